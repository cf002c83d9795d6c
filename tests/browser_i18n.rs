//! Language in Chromium: the locale follows `lang`, then the nearest ancestor, and changing it while
//! the dialog is open re-renders every text without losing what the user typed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(target_arch = "wasm32")]

mod support;

use serde_json::json;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn text_of(element: &web_sys::HtmlElement, selector: &str) -> String {
    find(element, selector)
        .and_then(|node| node.text_content())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn changing_lang_while_open_keeps_the_typed_values() {
    let element = element(&[("lang", "en-US")]);
    let pending = elicit(&element, WEATHER_PARAMS);
    assert_eq!(text_of(&element, "button[part~=accept]"), "Submit");
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    type_into(&city, "Coimbra");
    fire(&city, "focusout");
    element.set_attribute("lang", "pt-BR").unwrap();
    assert_eq!(text_of(&element, "button[part~=accept]"), "Enviar");
    assert_eq!(text_of(&element, "button[part~=reject]"), "Recusar");
    assert_eq!(text_of(&element, "button[part~=cancel]"), "Cancelar");
    assert_eq!(
        text_of(&element, "[part~=server]"),
        "De Servidor desconhecido"
    );
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    assert_eq!(
        city.dyn_ref::<web_sys::HtmlInputElement>().unwrap().value(),
        "Coimbra"
    );
    type_into(&city, "");
    fire(&city, "focusout");
    assert_eq!(
        text_of(&element, r#"[data-field="city"] [part~=error]"#),
        "Obrigatório"
    );
    type_into(&city, "Coimbra");
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Coimbra"}})
    );
    element.remove();
}

#[wasm_bindgen_test]
async fn the_nearest_ancestor_lang_applies_and_unknown_locales_fall_back_to_english() {
    let wrapper = document().create_element("section").unwrap();
    wrapper.set_attribute("lang", "pt-PT").unwrap();
    document().body().unwrap().append_child(&wrapper).unwrap();
    let element = element(&[]);
    wrapper.append_child(&element).unwrap();
    let pending = elicit(&element, WEATHER_PARAMS);
    assert_eq!(text_of(&element, "button[part~=accept]"), "Enviar");
    assert_eq!(
        find(&element, "dialog")
            .unwrap()
            .get_attribute("lang")
            .as_deref(),
        Some("pt-BR")
    );
    element.set_attribute("lang", "fr").unwrap();
    // `fr` does not ship: the next candidates decide (navigator.languages, then en-US).
    let accept = text_of(&element, "button[part~=accept]");
    assert!(accept == "Submit" || accept == "Enviar", "{accept}");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    wrapper.remove();
}

#[wasm_bindgen_test]
async fn validate_messages_carry_their_numbers_in_both_locales() {
    let schema =
        json!({"type": "object", "properties": {"code": {"type": "string", "minLength": 4}}});
    for (lang, expected) in [
        ("en-US", "Enter at least 4 characters"),
        ("pt-BR", "Digite pelo menos 4 caracteres"),
    ] {
        let element = element(&[("lang", lang)]);
        let pending = elicit(&element, &form_request(schema.clone()));
        let input = find(&element, r#"[data-field="code"] input"#).unwrap();
        type_into(&input, "ab");
        fire(&input, "focusout");
        assert_eq!(
            text_of(&element, r#"[data-field="code"] [part~=error]"#),
            expected
        );
        click(&find(&element, "button[part~=cancel]").unwrap());
        settle(pending).await.unwrap();
        element.remove();
    }
}

// ---------------------------------------------------------------------------------------------
// Languages registered at run time (`registerTranslation`). One page runs this whole file, so
// each test registers its own language tags (never `fr` or `pt-*`, which the tests above use).

use koder_mcp_elicitation::element::{advance_clock, register_translation};

/// The demo's Spanish, complete.
const SPANISH: &str = include_str!("../www/es.ftl");

/// A form with a control of every kind, some rules and two required fields.
const EVERY_KIND: &str = r#"{
  "message": "Trip details",
  "requestedSchema": {"type": "object", "properties": {
    "city": {"type": "string", "title": "City", "minLength": 3},
    "email": {"type": "string", "format": "email", "title": "Email"},
    "day": {"type": "string", "format": "date", "title": "Day"},
    "notes": {"type": "string", "format": "textarea", "title": "Notes"},
    "days": {"type": "integer", "title": "Days", "minimum": 1},
    "threshold": {"type": "number", "title": "Threshold", "minimum": 0.5},
    "alerts": {"type": "boolean", "title": "Alerts"},
    "unit": {"type": "string", "title": "Unit", "enum": ["C", "F"]},
    "layers": {"type": "array", "title": "Layers", "minItems": 2,
               "items": {"type": "string", "enum": ["rain", "wind", "clouds"]}},
    "labels": {"type": "array", "title": "Labels", "items": {"type": "string"}, "default": ["home"]}
  }, "required": ["city", "unit"]}
}"#;

/// The server's own words in `EVERY_KIND` (never translated).
const SERVER_WORDS: [&str; 14] = [
    "Trip details",
    "City",
    "Email",
    "Day",
    "Notes",
    "Days",
    "Threshold",
    "Alerts",
    "Unit",
    "Layers",
    "Labels",
    "rain",
    "wind",
    "clouds",
];

/// Every string a user sees or hears in the dialog: text (shown, or in a live region) and the
/// accessible names and placeholders.
fn strings_in_dialog(element: &web_sys::HtmlElement) -> Vec<String> {
    let mut found = Vec::new();
    for node in find_all(element, "dialog *") {
        for name in ["aria-label", "placeholder", "title"] {
            if let Some(value) = node.get_attribute(name).filter(|v| !v.trim().is_empty()) {
                found.push(value.trim().to_string());
            }
        }
        let hidden = node.closest("[hidden]").ok().flatten().is_some();
        let children = node.child_nodes();
        for index in 0..children.length() {
            let child = children.item(index).unwrap();
            if child.node_type() == web_sys::Node::TEXT_NODE && !hidden {
                let text = child.text_content().unwrap_or_default();
                if !text.trim().is_empty() {
                    found.push(text.trim().to_string());
                }
            }
        }
    }
    found
}

/// The English text of every message without variables, from the translators' template.
fn english_texts() -> Vec<String> {
    koder_mcp_elicitation::i18n::template()
        .lines()
        .filter_map(|line| line.split_once(" = "))
        .filter(|(id, text)| id.starts_with("mcp-elicitation-") && !text.contains('{'))
        .map(|(_, text)| text.to_string())
        .collect()
}

fn assert_nothing_english(element: &web_sys::HtmlElement, state: &str) {
    let english = english_texts();
    let strings = strings_in_dialog(element);
    assert!(strings.len() >= 8, "{state}: {strings:?}");
    for text in &strings {
        let ours = !SERVER_WORDS.contains(&text.as_str()) && !text.starts_with("https://");
        assert!(
            !text.contains("mcp-elicitation-"),
            "{state}: an id shows: {text}"
        );
        assert!(
            !(ours && english.contains(text)),
            "{state}: still English: {text:?} in {strings:?}"
        );
    }
}

#[wasm_bindgen_test]
async fn a_registered_locale_renders_every_visible_and_announced_string_in_it() {
    register_translation("es", SPANISH).unwrap();
    let element = element(&[("lang", "es-MX"), ("timeout-ms", "60000")]);
    let first = elicit(&element, EVERY_KIND);
    let second = elicit(&element, WEATHER_PARAMS);
    assert_eq!(
        find(&element, "dialog")
            .unwrap()
            .get_attribute("lang")
            .as_deref(),
        Some("es")
    );
    assert_eq!(text_of(&element, "button[part~=accept]"), "Enviar");
    assert_eq!(text_of(&element, "button[part~=reject]"), "Rechazar");
    assert_eq!(
        text_of(&element, "[part~=server]"),
        "De Servidor desconocido"
    );
    assert_eq!(text_of(&element, "[part~=queue]"), "1 de 2");
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    type_into(&city, "");
    fire(&city, "focusout");
    assert_eq!(
        text_of(&element, r#"[data-field="city"] [part~=error]"#),
        "Obligatorio"
    );
    type_into(&city, "ab");
    fire(&city, "focusout");
    assert_eq!(
        text_of(&element, r#"[data-field="city"] [part~=error]"#),
        "Escriba al menos 3 caracteres"
    );
    let threshold = find(&element, r#"[data-field="threshold"] input"#).unwrap();
    type_into(&threshold, "0.1");
    fire(&threshold, "focusout");
    // Numbers in messages as `Intl.NumberFormat("es")` writes them.
    assert_eq!(
        text_of(&element, r#"[data-field="threshold"] [part~=error]"#),
        "Debe ser como mínimo 0,5"
    );
    assert_nothing_english(&element, "form with errors");

    // The countdown, and what is announced as it passes 30 s.
    advance_clock(31_000.0);
    assert_eq!(text_of(&element, "[part~=countdown]"), "Se cierra en 29 s");
    assert_eq!(
        text_of(&element, "dialog > [role=status]"),
        "Esta solicitud se cierra en 29 segundos."
    );
    assert_nothing_english(&element, "countdown");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(first).await.unwrap();
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(second).await.unwrap();

    // URL mode, before consent.
    let url = r#"{"mode": "url", "elicitationId": "es-1", "message": "Connect",
                  "url": "http://localhost:8080/callback"}"#;
    let pending = elicit(&element, url);
    assert_eq!(text_of(&element, "button[part~=open]"), "Abrir página");
    assert_nothing_english(&element, "URL mode");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
}

const POLISH: &str = "\
mcp-elicitation-action-accept = Wyślij
mcp-elicitation-error-min_length = { $limit ->
    [one] Wpisz co najmniej { $limit } znak
    [few] Wpisz co najmniej { $limit } znaki
   *[many] Wpisz co najmniej { $limit } znaków
}
mcp-elicitation-error-minimum = Musi wynosić co najmniej { $limit }
";

#[wasm_bindgen_test]
async fn plurals_follow_the_browser_rules_of_a_registered_locale() {
    register_translation("pl", POLISH).unwrap();
    // Polish: 1 → one, 2–4 and 22–24 → few, 5–21 and 25 → many.
    for (limit, expected) in [
        (1, "Wpisz co najmniej 1 znak"),
        (3, "Wpisz co najmniej 3 znaki"),
        (5, "Wpisz co najmniej 5 znaków"),
        (12, "Wpisz co najmniej 12 znaków"),
        (22, "Wpisz co najmniej 22 znaki"),
        (25, "Wpisz co najmniej 25 znaków"),
    ] {
        let schema = json!({"type": "object", "properties": {
            "code": {"type": "string", "minLength": limit},
            "ratio": {"type": "number", "minimum": 1234.5}
        }});
        let element = element(&[("lang", "pl")]);
        let pending = elicit(&element, &form_request(schema));
        let input = find(&element, r#"[data-field="code"] input"#).unwrap();
        type_into(&input, "x".repeat(limit - 1).as_str());
        fire(&input, "focusout");
        if limit > 1 {
            assert_eq!(
                text_of(&element, r#"[data-field="code"] [part~=error]"#),
                expected
            );
        }
        let ratio = find(&element, r#"[data-field="ratio"] input"#).unwrap();
        type_into(&ratio, "1");
        fire(&ratio, "focusout");
        assert_eq!(
            text_of(&element, r#"[data-field="ratio"] [part~=error]"#),
            "Musi wynosić co najmniej 1234,5"
        );
        click(&find(&element, "button[part~=cancel]").unwrap());
        settle(pending).await.unwrap();
        element.remove();
    }
    // One character short of one: the `one` form, through the same rules.
    let one = koder_mcp_elicitation::i18n::violation_message(
        koder_mcp_elicitation::i18n::Locale::negotiate(["pl-PL"]),
        &koder_mcp_elicitation::validate::ViolationKind::MinLength { limit: 1 },
    );
    assert_eq!(one, "Wpisz co najmniej 1 znak");
}

#[wasm_bindgen_test]
async fn a_missing_message_falls_back_to_the_nearest_registered_locale_then_english() {
    register_translation(
        "ca",
        "mcp-elicitation-action-accept = Envia\nmcp-elicitation-action-reject = Rebutja\n",
    )
    .unwrap();
    register_translation(
        "ca-ES-valencia",
        "mcp-elicitation-action-accept = Envia-ho\n",
    )
    .unwrap();
    let element = element(&[("lang", "ca-ES-valencia")]);
    let pending = elicit(&element, WEATHER_PARAMS);
    assert_eq!(text_of(&element, "button[part~=accept]"), "Envia-ho");
    assert_eq!(text_of(&element, "button[part~=reject]"), "Rebutja");
    assert_eq!(text_of(&element, "button[part~=cancel]"), "Cancel");
    assert_eq!(
        find(&element, "dialog")
            .unwrap()
            .get_attribute("lang")
            .as_deref(),
        Some("ca-ES-valencia")
    );
    // A tag only the language matches takes the language's registration.
    element.set_attribute("lang", "ca-AD").unwrap();
    assert_eq!(text_of(&element, "button[part~=accept]"), "Envia");
    assert_eq!(text_of(&element, "button[part~=cancel]"), "Cancel");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
}

#[wasm_bindgen_test]
async fn a_malformed_registration_is_refused_naming_the_message_and_changes_nothing() {
    let element = element(&[("lang", "eu")]);
    let pending = elicit(&element, WEATHER_PARAMS);
    let before = text_of(&element, "button[part~=accept]");
    let error = register_translation(
        "eu",
        "mcp-elicitation-action-accept = Bidali\nmcp-elicitation-action-cancel = Utzi { $n\n",
    )
    .unwrap_err();
    assert_eq!(error.code, -32602);
    assert_eq!(
        error.message,
        "the translation for `eu` was not registered: \
         message `mcp-elicitation-action-cancel`: a `{` without its `}`"
    );
    let unknown = register_translation("eu", "mcp-elicitation-accept = Bidali\n").unwrap_err();
    assert!(
        unknown
            .message
            .contains("message `mcp-elicitation-accept`: not a message"),
        "{}",
        unknown.message
    );
    // Nothing of it was kept: not even the good message.
    assert_eq!(text_of(&element, "button[part~=accept]"), before);
    assert_ne!(before, "Bidali");
    assert_ne!(
        find(&element, "dialog")
            .unwrap()
            .get_attribute("lang")
            .as_deref(),
        Some("eu")
    );
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
}

#[wasm_bindgen_test]
async fn registering_the_language_of_an_open_dialog_re_renders_it_keeping_the_typed_values() {
    let element = element(&[("lang", "it")]);
    let pending = elicit(&element, WEATHER_PARAMS);
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    type_into(&city, "Roma");
    fire(&city, "focusout");
    register_translation(
        "it",
        "mcp-elicitation-action-accept = Invia\nmcp-elicitation-action-cancel = Annulla\n\
         mcp-elicitation-server-unknown = Server sconosciuto\nmcp-elicitation-server-from = Da { $server }\n",
    )
    .unwrap();
    assert_eq!(text_of(&element, "button[part~=accept]"), "Invia");
    assert_eq!(text_of(&element, "button[part~=cancel]"), "Annulla");
    assert_eq!(text_of(&element, "[part~=server]"), "Da Server sconosciuto");
    assert_eq!(
        find(&element, "dialog")
            .unwrap()
            .get_attribute("lang")
            .as_deref(),
        Some("it")
    );
    let city = find(&element, r#"[data-field="city"] input"#).unwrap();
    assert_eq!(
        city.dyn_ref::<web_sys::HtmlInputElement>().unwrap().value(),
        "Roma"
    );
    // Registering it again replaces it, on screen too.
    register_translation("it", "mcp-elicitation-action-accept = Conferma\n").unwrap();
    assert_eq!(text_of(&element, "button[part~=accept]"), "Conferma");
    assert_ne!(text_of(&element, "button[part~=cancel]"), "Annulla");
    click(&find(&element, "button[part~=accept]").unwrap());
    assert_eq!(
        json_of(&settle(pending).await.unwrap()),
        json!({"action": "accept", "content": {"city": "Roma"}})
    );
    element.remove();
}

// The parts built ahead while idle are in the language of that moment; a dialog opened after the
// language changed must be in the new one throughout.
#[wasm_bindgen_test]
async fn a_dialog_opened_after_the_language_changed_is_in_the_new_language() {
    let element = element(&[("lang", "en-US")]);
    let pending = elicit(&element, WEATHER_PARAMS);
    assert_eq!(text_of(&element, "button[part~=accept]"), "Submit");
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    tick(20).await;
    element.set_attribute("lang", "pt-BR").unwrap();
    let pending = elicit(&element, WEATHER_PARAMS);
    let dialog = find(&element, "dialog").unwrap();
    assert_eq!(dialog.get_attribute("lang").as_deref(), Some("pt-BR"));
    assert_eq!(text_of(&element, "button[part~=accept]"), "Enviar");
    assert_eq!(text_of(&element, "button[part~=cancel]"), "Cancelar");
    assert_eq!(
        text_of(&element, ".legend"),
        "Campos marcados com * são obrigatórios."
    );
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
}
