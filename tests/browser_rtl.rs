//! Right-to-left languages in Chromium: the dialog runs in the direction of the language it shows,
//! whatever the page's; every server string takes its own direction and cannot reorder the
//! dialog's text; a registered Arabic plurals by all six CLDR categories. One page runs this whole
//! file, so it registers only `ar`, and `he` is never registered.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg(target_arch = "wasm32")]

mod support;

use js_sys::{Function, Reflect};
use koder_mcp_elicitation::element::{
    advance_clock, register_translation, register_translation_with_direction,
};
use koder_mcp_elicitation::i18n::Direction;
use serde_json::json;
use support::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// Arabic, with a countdown and a length message in all six of its plural forms.
const ARABIC: &str = "\
mcp-elicitation-action-accept = إرسال
mcp-elicitation-action-reject = رفض
mcp-elicitation-action-cancel = إلغاء
mcp-elicitation-timeout_warning = { $seconds ->
    [zero] يُغلق الآن
    [one] يُغلق بعد ثانية واحدة
    [two] يُغلق بعد ثانيتين
    [few] يُغلق بعد { $seconds } ثوانٍ
    [many] يُغلق بعد { $seconds } ثانيةً
   *[other] يُغلق بعد { $seconds } ثانية
}
mcp-elicitation-error-max_length = { $limit ->
    [zero] لا يُسمح بأي حرف
    [one] حرف واحد على الأكثر
    [two] حرفان على الأكثر
    [few] { $limit } أحرف على الأكثر
    [many] { $limit } حرفًا على الأكثر
   *[other] { $limit } حرف على الأكثر
}
";

fn text_of(element: &web_sys::HtmlElement, selector: &str) -> String {
    find(element, selector)
        .and_then(|node| node.text_content())
        .unwrap_or_default()
}

/// The computed CSS `direction` of an element.
fn direction(element: &Element) -> String {
    web_sys::window()
        .unwrap()
        .get_computed_style(element)
        .unwrap()
        .unwrap()
        .get_property_value("direction")
        .unwrap()
}

/// `n` as `Intl.NumberFormat("ar")` writes it, as the dialog does.
fn arabic_number(n: u32) -> String {
    let format =
        js_sys::Intl::NumberFormat::new(&js_sys::Array::of1(&"ar".into()), &js_sys::Object::new());
    format
        .format()
        .call1(&JsValue::NULL, &n.into())
        .unwrap()
        .as_string()
        .unwrap()
}

/// Left and right edges of an element on screen.
fn edges(element: &Element) -> (f64, f64) {
    let measure: Function = Reflect::get(element, &"getBoundingClientRect".into())
        .unwrap()
        .dyn_into()
        .unwrap();
    let rect = measure.call0(element).unwrap();
    let side = |name: &str| Reflect::get(&rect, &name.into()).unwrap().as_f64().unwrap();
    (side("left"), side("right"))
}

/// Runs `test` with the page's `<html>` in `lang` and `dir`, then puts them back.
async fn in_page<F: std::future::Future<Output = ()>>(lang: &str, dir: &str, test: F) {
    let root = document().document_element().unwrap();
    let (old_lang, old_dir) = (root.get_attribute("lang"), root.get_attribute("dir"));
    root.set_attribute("lang", lang).unwrap();
    root.set_attribute("dir", dir).unwrap();
    test.await;
    for (name, old) in [("lang", old_lang), ("dir", old_dir)] {
        match old {
            Some(value) => root.set_attribute(name, &value).unwrap(),
            None => root.remove_attribute(name).unwrap(),
        }
    }
}

#[wasm_bindgen_test]
async fn a_registered_arabic_runs_right_to_left_and_mirrors_in_any_page() {
    register_translation("ar", ARABIC).unwrap();
    for page_dir in ["ltr", "rtl"] {
        in_page("ar", page_dir, async {
            let element = element(&[]);
            let pending = elicit(&element, WEATHER_PARAMS);
            let dialog = find(&element, "dialog").unwrap();
            assert_eq!(dialog.get_attribute("dir").as_deref(), Some("rtl"));
            assert_eq!(direction(&dialog), "rtl", "in a {page_dir} page");
            assert_eq!(text_of(&element, "button[part~=accept]"), "إرسال");
            // The footer mirrors: Cancel, Reject, Submit run leftwards, Submit at the left edge.
            let (_, cancel_right) = edges(&find(&element, "button[part~=cancel]").unwrap());
            let (reject_left, reject_right) =
                edges(&find(&element, "button[part~=reject]").unwrap());
            let (accept_left, accept_right) =
                edges(&find(&element, "button[part~=accept]").unwrap());
            let (dialog_left, dialog_right) = edges(&dialog);
            assert!(cancel_right > reject_right, "{cancel_right} {reject_right}");
            assert!(accept_right <= reject_left, "{accept_right} {reject_left}");
            assert!(
                accept_left - dialog_left < dialog_right - accept_right,
                "Submit nearer the left edge: {accept_left} {accept_right}"
            );
            // Labels start at the right.
            let (_, title_right) =
                edges(&find(&element, r#"[data-field="city"] label bdi"#).unwrap());
            let (_, field_right) = edges(&find(&element, r#"[data-field="city"]"#).unwrap());
            assert!(
                (field_right - title_right).abs() < 1.0,
                "{field_right} {title_right}"
            );
            assert!(dialog_right > field_right);
            // The page's own direction is its own.
            let root = document().document_element().unwrap();
            assert_eq!(root.get_attribute("dir").as_deref(), Some(page_dir));
            click(&find(&element, "button[part~=cancel]").unwrap());
            settle(pending).await.unwrap();
            element.remove();
        })
        .await;
    }
}

#[wasm_bindgen_test]
async fn an_english_fallback_in_a_right_to_left_page_runs_left_to_right() {
    // Hebrew is never registered here: the dialog falls back to English, left to right.
    in_page("he", "rtl", async {
        let element = element(&[]);
        let pending = elicit(&element, WEATHER_PARAMS);
        let dialog = find(&element, "dialog").unwrap();
        assert_eq!(text_of(&element, "button[part~=accept]"), "Submit");
        assert_eq!(dialog.get_attribute("dir").as_deref(), Some("ltr"));
        assert_eq!(direction(&dialog), "ltr");
        // Cancel, Reject, Submit from left to right; labels start at the left.
        let (cancel_left, _) = edges(&find(&element, "button[part~=cancel]").unwrap());
        let (accept_left, _) = edges(&find(&element, "button[part~=accept]").unwrap());
        assert!(cancel_left < accept_left);
        let (label_left, _) = edges(&find(&element, r#"[data-field="city"] label bdi"#).unwrap());
        let (field_left, _) = edges(&find(&element, r#"[data-field="city"]"#).unwrap());
        assert!(
            (label_left - field_left).abs() < 1.0,
            "{label_left} {field_left}"
        );
        click(&find(&element, "button[part~=cancel]").unwrap());
        settle(pending).await.unwrap();
        element.remove();
    })
    .await;
}

#[wasm_bindgen_test]
async fn a_direction_given_at_registration_wins_over_the_tags() {
    register_translation_with_direction(
        "qaa",
        "mcp-elicitation-action-accept = Zend\n",
        Some(Direction::Rtl),
    )
    .unwrap();
    let element = element(&[("lang", "qaa")]);
    let pending = elicit(&element, WEATHER_PARAMS);
    let dialog = find(&element, "dialog").unwrap();
    assert_eq!(dialog.get_attribute("dir").as_deref(), Some("rtl"));
    // Registered again without one: its tag says nothing, so left to right; the open dialog follows.
    register_translation("qaa", "mcp-elicitation-action-accept = Zend\n").unwrap();
    let dialog = find(&element, "dialog").unwrap();
    assert_eq!(dialog.get_attribute("dir").as_deref(), Some("ltr"));
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    // The parts built ahead while idle follow a registration made meanwhile.
    tick(50).await;
    register_translation_with_direction(
        "qaa",
        "mcp-elicitation-action-accept = Zend\n",
        Some(Direction::Rtl),
    )
    .unwrap();
    let pending = elicit(&element, WEATHER_PARAMS);
    let dialog = find(&element, "dialog[open]").unwrap();
    assert_eq!(dialog.get_attribute("dir").as_deref(), Some("rtl"));
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
}

#[wasm_bindgen_test]
async fn hebrew_server_text_in_an_english_dialog_takes_its_own_direction() {
    let request = json!({"message": "נא למלא את הטופס", "requestedSchema": {
        "type": "object", "properties": {
            "name": {"type": "string", "title": "שם מלא", "description": "כפי שבדרכון"},
            "unit": {"type": "string", "title": "Unit", "enum": ["c", "f"], "enumNames": ["צלזיוס", "Fahrenheit"]},
            "tags": {"type": "array", "items": {"type": "string"}, "default": ["בית"]}
        }, "required": ["name"]}});
    let element = element(&[("lang", "en-US"), ("server-name", "שרת מזג האוויר")]);
    let pending = elicit(&element, &request.to_string());
    let dialog = find(&element, "dialog").unwrap();
    assert_eq!(direction(&dialog), "ltr");
    assert_eq!(
        direction(&find(&element, "[part~=message]").unwrap()),
        "rtl"
    );
    assert_eq!(direction(&find(&element, "[part~=title]").unwrap()), "ltr");
    let label = find(&element, r#"[data-field="name"] label"#).unwrap();
    // The label itself stays in the dialog's direction; the server's title in it is its own.
    assert_eq!(direction(&label), "ltr");
    assert_eq!(label.text_content().as_deref(), Some("שם מלא *"));
    assert_eq!(
        direction(&find(&element, r#"[data-field="name"] label bdi"#).unwrap()),
        "rtl"
    );
    assert_eq!(
        direction(&find(&element, r#"[data-field="name"] .description"#).unwrap()),
        "rtl"
    );
    let captions = find_all(&element, r#"[data-field="unit"] label span"#);
    assert_eq!(direction(&captions[0]), "rtl");
    assert_eq!(direction(&captions[1]), "ltr");
    assert_eq!(
        direction(&find(&element, r#"[data-field="tags"] li span"#).unwrap()),
        "rtl"
    );
    // "From" stays first, the server's name isolated after it.
    let server = find(&element, "[part~=server]").unwrap();
    assert_eq!(
        server.text_content().as_deref(),
        Some("From שרת מזג האוויר")
    );
    assert_eq!(
        server.first_child().unwrap().text_content().as_deref(),
        Some("From ")
    );
    assert_eq!(
        direction(&find(&element, "[part~=server] bdi").unwrap()),
        "rtl"
    );
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
}

#[wasm_bindgen_test]
async fn a_servers_unpaired_bidi_controls_are_closed_where_its_string_ends() {
    let request = json!({"message": "Pay \u{202E}0001$ now", "requestedSchema": {
        "type": "object", "properties": {
            "city": {"type": "string", "title": "\u{2067}City", "description": "\u{202B}Where"}
        }, "required": ["city"]}});
    let element = element(&[("lang", "en-US"), ("server-name", "\u{202E}Acme")]);
    let pending = elicit(&element, &request.to_string());
    assert_eq!(
        text_of(&element, "[part~=message]"),
        "Pay \u{202E}0001$ now\u{202C}"
    );
    assert_eq!(
        text_of(&element, "[part~=server] bdi"),
        "\u{202E}Acme\u{202C}"
    );
    assert_eq!(
        text_of(&element, r#"[data-field="city"] label bdi"#),
        "\u{2067}City\u{2069}"
    );
    assert_eq!(
        text_of(&element, r#"[data-field="city"] .description"#),
        "\u{202B}Where\u{202C}"
    );
    // The dialog's own words around them read in order: "From" on the left of the server's name,
    // the asterisk after the title, the buttons in their order.
    let server = find(&element, "[part~=server]").unwrap();
    let (server_left, _) = edges(&server);
    let (name_left, _) = edges(&find(&element, "[part~=server] bdi").unwrap());
    assert!(name_left > server_left + 10.0, "{name_left} {server_left}");
    let (_, title_right) = edges(&find(&element, r#"[data-field="city"] label bdi"#).unwrap());
    let (star_left, _) = edges(&find(&element, r#"[data-field="city"] .required"#).unwrap());
    assert!(star_left >= title_right - 0.5, "{star_left} {title_right}");
    let (cancel_left, _) = edges(&find(&element, "button[part~=cancel]").unwrap());
    let (accept_left, _) = edges(&find(&element, "button[part~=accept]").unwrap());
    assert!(cancel_left < accept_left);
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
}

#[wasm_bindgen_test]
async fn a_registered_arabic_plurals_by_all_six_categories() {
    register_translation("ar", ARABIC).unwrap();
    // The countdown: 11, 3, 2 and 1 seconds left (many, few, two, one).
    let timed = element(&[("lang", "ar"), ("timeout-ms", "60000")]);
    let pending = elicit(&timed, WEATHER_PARAMS);
    advance_clock(49_000.0);
    assert_eq!(
        text_of(&timed, "[part~=countdown]"),
        format!("يُغلق بعد {} ثانيةً", arabic_number(11))
    );
    advance_clock(8_000.0);
    assert_eq!(
        text_of(&timed, "[part~=countdown]"),
        format!("يُغلق بعد {} ثوانٍ", arabic_number(3))
    );
    advance_clock(1_000.0);
    assert_eq!(text_of(&timed, "[part~=countdown]"), "يُغلق بعد ثانيتين");
    advance_clock(1_000.0);
    assert_eq!(text_of(&timed, "[part~=countdown]"), "يُغلق بعد ثانية واحدة");
    click(&find(&timed, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    timed.remove();

    // A length limit of 0, 1, 2, 3, 11 and 100: all six.
    for (limit, expected) in [
        (0, "لا يُسمح بأي حرف".to_string()),
        (1, "حرف واحد على الأكثر".to_string()),
        (2, "حرفان على الأكثر".to_string()),
        (3, format!("{} أحرف على الأكثر", arabic_number(3))),
        (11, format!("{} حرفًا على الأكثر", arabic_number(11))),
        (100, format!("{} حرف على الأكثر", arabic_number(100))),
    ] {
        let schema = json!({"type": "object", "properties": {
            "code": {"type": "string", "maxLength": limit}
        }});
        let element = element(&[("lang", "ar")]);
        let pending = elicit(&element, &form_request(schema));
        let input = find(&element, r#"[data-field="code"] input"#).unwrap();
        type_into(&input, "x".repeat(limit + 1).as_str());
        fire(&input, "focusout");
        assert_eq!(
            text_of(&element, r#"[data-field="code"] [part~=error]"#),
            expected,
            "maxLength {limit}"
        );
        click(&find(&element, "button[part~=cancel]").unwrap());
        settle(pending).await.unwrap();
        element.remove();
    }
}

#[wasm_bindgen_test]
async fn a_tags_remove_label_isolates_the_tag_and_closes_its_controls() {
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "title": "\u{202E}Tags",
                 "default": ["\u{202E}evil", "בית", "a\u{2069}b"]}
    }});
    let element = element(&[("lang", "en-US")]);
    let pending = elicit(&element, &form_request(schema));
    let labels = || -> Vec<String> {
        find_all(&element, r#"[data-field="tags"] li button"#)
            .iter()
            .map(|button| button.get_attribute("aria-label").unwrap_or_default())
            .collect()
    };
    let from_defaults = labels();
    let list_label = find(&element, r#"[data-field="tags"] ul"#)
        .and_then(|list| list.get_attribute("aria-label"));
    // A tag typed in gets its label the same way.
    let input = find(&element, r#"[data-field="tags"] input"#).unwrap();
    type_into(&input, "\u{202B}new");
    key(&input, "Enter");
    let after_typing = labels();
    click(&find(&element, "button[part~=cancel]").unwrap());
    settle(pending).await.unwrap();
    element.remove();
    // An attribute holds no <bdi>: FSI … PDI around the tag, its override closed inside, and a
    // PDI of its own that would end the isolate early dropped.
    assert_eq!(
        from_defaults,
        [
            "Remove \u{2068}\u{202E}evil\u{202C}\u{2069}",
            "Remove \u{2068}בית\u{2069}",
            "Remove \u{2068}ab\u{2069}",
        ]
    );
    // The list's label is the server's title alone, its override closed at its end.
    assert_eq!(list_label.as_deref(), Some("\u{202E}Tags\u{202C}"));
    assert_eq!(
        after_typing.last().map(String::as_str),
        Some("Remove \u{2068}\u{202B}new\u{202C}\u{2069}")
    );
}

/// The left and right edges of the characters `from..to` (UTF-16 units) of `node`'s text.
fn text_edges(node: &web_sys::Node, from: u32, to: u32) -> (f64, f64) {
    let method = |target: &JsValue, name: &str| -> Function {
        Reflect::get(target, &name.into())
            .unwrap()
            .dyn_into()
            .unwrap()
    };
    let range = method(&document(), "createRange")
        .call0(&document())
        .unwrap();
    method(&range, "setStart")
        .call2(&range, node, &from.into())
        .unwrap();
    method(&range, "setEnd")
        .call2(&range, node, &to.into())
        .unwrap();
    let rect = method(&range, "getBoundingClientRect")
        .call0(&range)
        .unwrap();
    let side = |name: &str| Reflect::get(&rect, &name.into()).unwrap().as_f64().unwrap();
    (side("left"), side("right"))
}

#[wasm_bindgen_test]
fn a_property_name_in_a_message_is_isolated_and_its_override_stays_inside() {
    // `validateContent`'s message for a missing property, shown in a page's paragraph.
    let schema = json!({"type": "object", "properties": {"\u{202E}evil": {"type": "string"}},
                        "required": ["\u{202E}evil"]});
    let errors = koder_mcp_elicitation::content::validate_content(
        &schema,
        &json!({}),
        koder_mcp_elicitation::i18n::Locale::EnUs,
    )
    .unwrap();
    let message = &errors[0].message;
    let paragraph = document().create_element("p").unwrap();
    paragraph.set_attribute("dir", "ltr").unwrap();
    paragraph.set_text_content(Some(message));
    document().body().unwrap().append_child(&paragraph).unwrap();
    let text = paragraph.first_child().unwrap();
    let units = |text: &str| text.encode_utf16().count() as u32;
    let name = units(&message[..message.find("evil").unwrap()]);
    let is = units(message) - units("is required");
    let (_, name_right) = text_edges(&text, name, name + 4);
    let (is_left, is_right) = text_edges(&text, is, is + 2);
    let (required_left, _) = text_edges(&text, is + 3, is + 11);
    paragraph.remove();
    // The name's override reverses the name and nothing past it: the message's own words stay
    // after it, in order.
    assert!(is_left >= name_right, "{is_left} {name_right}");
    assert!(required_left >= is_right, "{required_left} {is_right}");
    assert_eq!(message, "\u{2068}\u{202E}evil\u{202C}\u{2069} is required");
}
