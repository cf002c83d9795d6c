//! Language in Chromium: the locale follows `lang`, then the nearest ancestor, and changing it while
//! the dialog is open re-renders every text without losing what the user typed.
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
