//! Every field kind of CONTRACT §4 rendered, filled and accepted in Chromium, with the exact typed
//! content checked: the MCP 2025-11-25 chapter's examples, the SEP-1034 conformance fixture, all five
//! enum spellings and the extensions.

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

fn control(element: &web_sys::HtmlElement, field: &str, selector: &str) -> web_sys::Element {
    find(element, &format!(r#"[data-field="{field}"] {selector}"#))
        .unwrap_or_else(|| panic!("{field}: no {selector}"))
}

#[wasm_bindgen_test]
async fn chapter_simple_text_request() {
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
        "params": {"mode": "form", "message": "Please provide your GitHub username",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
    });
    let result = accept_with(&request.to_string(), |element| {
        type_into(&control(element, "name", "input[type=text]"), "octocat");
    })
    .await;
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"name": "octocat"}})
    );
}

#[wasm_bindgen_test]
async fn chapter_structured_data_request() {
    let request = json!({
        "jsonrpc": "2.0", "id": 2, "method": "elicitation/create",
        "params": {"mode": "form", "message": "Please provide your contact information",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "description": "Your full name"},
                "email": {"type": "string", "format": "email", "description": "Your email address"},
                "age": {"type": "number", "minimum": 18, "description": "Your age"}
            }, "required": ["name", "email"]}}
    });
    let result = accept_with(&request.to_string(), |element| {
        type_into(
            &control(element, "name", "input[type=text]"),
            "Monalisa Octocat",
        );
        type_into(
            &control(element, "email", "input[type=email]"),
            "octocat@github.com",
        );
        let age = control(element, "age", "input[type=number]");
        assert_eq!(age.get_attribute("min").as_deref(), Some("18"));
        type_into(&age, "30");
    })
    .await;
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"name": "Monalisa Octocat", "email": "octocat@github.com", "age": 30}})
    );
}

#[wasm_bindgen_test]
async fn chapter_primitive_schemas_with_defaults_are_sent_untouched() {
    let schema = json!({"type": "object", "properties": {
        "number": {"type": "number", "title": "Display Name", "description": "Description text", "minimum": 0, "maximum": 100, "default": 50},
        "boolean": {"type": "boolean", "title": "Display Name", "description": "Description text", "default": false},
        "untitled": {"type": "string", "title": "Color Selection", "enum": ["Red", "Green", "Blue"], "default": "Red"},
        "titled": {"type": "string", "title": "Color Selection", "oneOf": [
            {"const": "#FF0000", "title": "Red"}, {"const": "#00FF00", "title": "Green"}, {"const": "#0000FF", "title": "Blue"}], "default": "#FF0000"},
        "multi": {"type": "array", "title": "Color Selection", "minItems": 1, "maxItems": 2,
            "items": {"type": "string", "enum": ["Red", "Green", "Blue"]}, "default": ["Red", "Green"]},
        "multi_titled": {"type": "array", "title": "Color Selection", "minItems": 1, "maxItems": 2,
            "items": {"anyOf": [{"const": "#FF0000", "title": "Red"}, {"const": "#00FF00", "title": "Green"}, {"const": "#0000FF", "title": "Blue"}]},
            "default": ["#FF0000", "#00FF00"]}
    }});
    let result = accept_with(&form_request(schema), |element| {
        let number = control(element, "number", "input[type=number]");
        assert_eq!(number.get_attribute("max").as_deref(), Some("100"));
        assert!(!is_checked(&control(
            element,
            "boolean",
            "input[type=checkbox][role=switch]"
        )));
        assert!(is_checked(&control(
            element,
            "untitled",
            r#"[role=radiogroup] input[type=radio][value="Red"]"#
        )));
        let red = control(
            element,
            "titled",
            r##"[role=radiogroup] input[type=radio][value="#FF0000"]"##,
        );
        assert!(is_checked(&red));
        assert_eq!(
            red.parent_element().unwrap().text_content().as_deref(),
            Some("Red")
        );
        assert!(is_checked(&control(
            element,
            "multi",
            r#"fieldset input[type=checkbox][value="Green"]"#
        )));
        assert!(!is_checked(&control(
            element,
            "multi_titled",
            r##"fieldset input[type=checkbox][value="#0000FF"]"##
        )));
    })
    .await;
    assert_eq!(
        result,
        json!({"action": "accept", "content": {
            "number": 50, "boolean": false, "untitled": "Red", "titled": "#FF0000",
            "multi": ["Red", "Green"], "multi_titled": ["#FF0000", "#00FF00"]}})
    );
}

#[wasm_bindgen_test]
async fn chapter_string_example_shows_its_self_contradicting_default_invalid() {
    // The chapter's string example: its default breaks its own pattern, so it must not be sent.
    let schema = json!({"type": "object", "properties": {"contact": {
        "type": "string", "title": "Display Name", "description": "Description text",
        "minLength": 3, "maxLength": 50, "pattern": "^[A-Za-z]+$", "format": "email", "default": "user@example.com"}}});
    let element = element(&[]);
    let _pending = elicit(&element, &form_request(schema));
    let input = control(&element, "contact", "input[type=email]");
    assert_eq!(
        input
            .dyn_ref::<web_sys::HtmlInputElement>()
            .map(|i| i.value()),
        Some("user@example.com".into())
    );
    assert_eq!(input.get_attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(
        control(&element, "contact", "[part~=error]")
            .text_content()
            .as_deref(),
        Some("Does not match the expected format")
    );
    assert!(find(&element, "button[part~=accept]")
        .unwrap()
        .has_attribute("disabled"));
    element.remove();
}

#[wasm_bindgen_test]
async fn conformance_fixture_defaults_are_sent_with_their_json_types() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": true}
    }});
    let element = element(&[]);
    let recorder = Recorder::new(&element, &["accept"]);
    let pending = elicit(&element, &form_request(schema));
    click(&find(&element, "button[part~=accept]").unwrap());
    let result = settle(pending).await.unwrap();
    let text = js_sys::JSON::stringify(&result)
        .unwrap()
        .as_string()
        .unwrap();
    assert_eq!(
        text,
        r#"{"action":"accept","content":{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}}"#
    );
    assert_eq!(recorder.detail(0)["result"]["content"]["age"], json!(30));
    element.remove();
}

#[wasm_bindgen_test]
async fn all_five_enum_shapes_render_and_send_their_values() {
    let schema = json!({"type": "object", "properties": {
        "plain": {"type": "string", "enum": ["a", "b"]},
        "titled": {"type": "string", "oneOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]},
        "legacy": {"type": "string", "enum": ["p", "q"], "enumNames": ["Pe", "Qu"]},
        "many": {"type": "array", "items": {"type": "string", "enum": ["m", "n"]}},
        "many_titled": {"type": "array", "items": {"anyOf": [{"const": "s", "title": "Es"}, {"const": "t", "title": "Te"}]}}
    }, "required": ["plain", "titled", "legacy", "many", "many_titled"]});
    let result = accept_with(&form_request(schema), |element| {
        click(&control(
            element,
            "plain",
            r#"[role=radiogroup] input[value="b"]"#,
        ));
        let why = control(element, "titled", r#"[role=radiogroup] input[value="y"]"#);
        assert_eq!(
            why.parent_element().unwrap().text_content().as_deref(),
            Some("Why")
        );
        click(&why);
        let qu = control(element, "legacy", r#"[role=radiogroup] input[value="q"]"#);
        assert_eq!(
            qu.parent_element().unwrap().text_content().as_deref(),
            Some("Qu")
        );
        click(&qu);
        click(&control(
            element,
            "many",
            r#"fieldset input[type=checkbox][value="n"]"#,
        ));
        click(&control(
            element,
            "many",
            r#"fieldset input[type=checkbox][value="m"]"#,
        ));
        click(&control(
            element,
            "many_titled",
            r#"fieldset input[type=checkbox][value="t"]"#,
        ));
    })
    .await;
    assert_eq!(
        result,
        json!({"action": "accept", "content": {
            "plain": "b", "titled": "y", "legacy": "q", "many": ["m", "n"], "many_titled": ["t"]}})
    );
}

#[wasm_bindgen_test]
async fn a_single_select_above_five_options_is_a_select() {
    let schema = json!({"type": "object", "properties": {
        "country": {"type": "string", "oneOf": [
            {"const": "br", "title": "Brazil"}, {"const": "pt", "title": "Portugal"}, {"const": "ao", "title": "Angola"},
            {"const": "mz", "title": "Mozambique"}, {"const": "cv", "title": "Cape Verde"}, {"const": "tl", "title": "Timor-Leste"}]}
    }, "required": ["country"]});
    let result = accept_with(&form_request(schema), |element| {
        let select = control(element, "country", "select");
        assert!(find(element, r#"[data-field="country"] input[type=radio]"#).is_none());
        let option = control(element, "country", r#"option[value="mz"]"#);
        assert_eq!(option.text_content().as_deref(), Some("Mozambique"));
        type_into(&select, "mz");
    })
    .await;
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"country": "mz"}})
    );
}

#[wasm_bindgen_test]
async fn string_formats_numbers_and_switches_are_typed() {
    let schema = json!({"type": "object", "properties": {
        "site": {"type": "string", "format": "uri"},
        "day": {"type": "string", "format": "date"},
        "when": {"type": "string", "format": "date-time"},
        "count": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
        "ratio": {"type": "number"},
        "agree": {"type": "boolean"}
    }});
    let result = accept_with(&form_request(schema), |element| {
        type_into(
            &control(element, "site", "input[type=url]"),
            "https://example.com/x",
        );
        type_into(&control(element, "day", "input[type=date]"), "2025-06-01");
        type_into(
            &control(element, "when", "input[type=datetime-local]"),
            "2025-06-01T09:30",
        );
        let count = control(element, "count", "input[type=number]");
        assert_eq!(count.get_attribute("step").as_deref(), Some("1"));
        type_into(&count, "7");
        type_into(&control(element, "ratio", "input[type=number]"), "0.25");
        click(&control(
            element,
            "agree",
            "input[type=checkbox][role=switch]",
        ));
    })
    .await;
    let content = &result["content"];
    assert_eq!(content["site"], "https://example.com/x");
    assert_eq!(content["day"], "2025-06-01");
    assert_eq!(content["count"], json!(7));
    assert_eq!(content["ratio"], json!(0.25));
    assert_eq!(content["agree"], json!(true));
    // RFC 3339 with the local offset, never the bare datetime-local value.
    let when = content["when"].as_str().unwrap();
    assert!(when.starts_with("2025-06-01T09:30:00"), "{when}");
    let offset = &when[19..];
    assert!(
        offset.len() == 6 && (offset.starts_with('+') || offset.starts_with('-')),
        "{when}"
    );
}

#[wasm_bindgen_test]
async fn an_integer_field_refuses_a_fraction() {
    let element = element(&[]);
    let _pending = elicit(
        &element,
        &form_request(json!({"type": "object", "properties": {"n": {"type": "integer"}}})),
    );
    let input = control(&element, "n", "input[type=number]");
    type_into(&input, "2.5");
    fire(&input, "focusout");
    assert_eq!(input.get_attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(
        control(&element, "n", "[part~=error]")
            .text_content()
            .as_deref(),
        Some("Enter a whole number")
    );
    assert!(find(&element, "button[part~=accept]")
        .unwrap()
        .has_attribute("disabled"));
    element.remove();
}

#[wasm_bindgen_test]
async fn extensions_textarea_tags_and_nested_objects() {
    let schema = json!({"type": "object", "properties": {
        "notes": {"type": "string", "format": "textarea"},
        "labels": {"type": "array", "items": {"type": "string"}},
        "address": {"type": "object", "title": "Address", "properties": {
            "street": {"type": "string"}, "zip": {"type": "string"}}, "required": ["street"]}
    }});
    let result = accept_with(&form_request(schema), |element| {
        type_into(&control(element, "notes", "textarea"), "line one\nline two");
        let tags = control(element, "labels", "input[type=text]");
        type_into(&tags, "urgent");
        key(&tags, "Enter");
        type_into(&tags, "home");
        key(&tags, ",");
        type_into(&tags, "drop-me");
        key(&tags, "Enter");
        let remove = find(
            element,
            r#"[data-field="labels"] button[data-remove-tag="drop-me"]"#,
        )
        .expect("remove button");
        assert_eq!(
            remove.get_attribute("aria-label").as_deref(),
            Some("Remove \u{2068}drop-me\u{2069}")
        );
        click(&remove);
        assert_eq!(find_all(element, r#"[data-field="labels"] li"#).len(), 2);
        let fieldset = find(element, r#"fieldset[data-group="address"]"#).expect("nested fieldset");
        assert!(fieldset
            .query_selector("legend")
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap()
            .starts_with("Address"));
        type_into(&control(element, "address.street", "input"), "Rua Augusta");
    })
    .await;
    assert_eq!(
        result,
        json!({"action": "accept", "content": {
            "notes": "line one\nline two", "labels": ["urgent", "home"], "address": {"street": "Rua Augusta"}}})
    );
}

#[wasm_bindgen_test]
async fn strict_mode_refuses_extensions_with_32602() {
    let element = element(&[("strict", "")]);
    let pending = elicit(
        &element,
        &form_request(
            json!({"type": "object", "properties": {"n": {"type": "string", "format": "textarea"}}}),
        ),
    );
    let error = settle(pending).await.unwrap_err();
    assert_eq!(
        json_of(&js_sys::Reflect::get(&error, &"code".into()).unwrap()),
        json!(-32602)
    );
    assert!(find(&element, "dialog").is_none());
    element.remove();
}

#[wasm_bindgen_test]
async fn a_secret_looking_field_is_masked_and_warned_about() {
    let element = element(&[]);
    let _pending = elicit(
        &element,
        &form_request(json!({"type": "object", "properties": {"api_key": {"type": "string"}}})),
    );
    assert!(find(&element, r#"[data-field="api_key"] input[type=password]"#).is_some());
    let warning = find(&element, "[part~=warning]").expect("warning");
    assert!(warning.text_content().unwrap().contains("MCP forbids"));
    element.remove();
}
