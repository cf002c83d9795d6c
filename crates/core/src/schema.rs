//! `requestedSchema` compiled into renderable fields. The generic keyword rules live in
//! [`crate::validate`]; this module adds what a form needs on top: a control kind per property,
//! labels, options, defaults, secret detection, the MCP subset (`strict`) and the hostile-size limits.

use serde_json::{Map, Value};

use crate::error::{child_path, ElicitationError};
use crate::limits::{
    exceeds_text_limit, MAX_DEFAULTS_PATTERN_WORK, MAX_FORM_DEPTH, MAX_OPTIONS, MAX_PROPERTIES,
    MAX_TEXT_CHARS,
};
use crate::validate::Rules;

/// A single select with more options than this renders as a `select`.
pub const SEGMENTED_MAX_OPTIONS: usize = 5;

/// The compiled form: leaves in document order plus the layout tree that groups them.
#[derive(Debug, Clone)]
pub struct FormSchema {
    /// Every input control, depth first in document order.
    pub fields: Vec<Field>,
    /// What to render, in order: fields and nested groups.
    pub layout: Vec<Item>,
    /// The whole schema's rules, the same ones `validateContent` applies.
    pub rules: Rules,
    /// Required property names at the root.
    pub required: Vec<String>,
}

impl FormSchema {
    /// Whether any field looks like it asks for a secret.
    pub fn asks_for_secret(&self) -> bool {
        self.fields.iter().any(|field| field.secret)
    }
}

/// One entry of the layout tree.
#[derive(Debug, Clone)]
pub enum Item {
    /// Index into [`FormSchema::fields`].
    Field(usize),
    Group(Group),
}

/// A nested `object` property (an extension), rendered as a `fieldset`.
#[derive(Debug, Clone)]
pub struct Group {
    pub name: String,
    pub path: Vec<String>,
    pub label: String,
    pub description: Option<String>,
    pub required: bool,
    pub items: Vec<Item>,
}

/// One input control.
#[derive(Debug, Clone)]
pub struct Field {
    /// The property name, as the server wrote it.
    pub name: String,
    /// Property names from the root down to this field.
    pub path: Vec<String>,
    /// `title`, else the property name.
    pub label: String,
    pub description: Option<String>,
    pub required: bool,
    pub kind: FieldKind,
    /// The schema's `default`, already coerced (a scalar default of a multi select is a list).
    pub default: Option<Value>,
    /// The name, title or description looks like a secret: mask it and warn.
    pub secret: bool,
    /// This property's own rules.
    pub rules: Rules,
}

impl Field {
    /// `data-field` value: the path joined with dots.
    pub fn key(&self) -> String {
        crate::strings::join(&self.path, ".")
    }
}

/// Which control renders a field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text {
        format: TextFormat,
        min_length: Option<u64>,
        max_length: Option<u64>,
    },
    Number {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Toggle,
    Choice {
        options: Vec<Choice>,
    },
    MultiChoice {
        options: Vec<Choice>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    /// Extension: an array of plain strings, entered as tags.
    Tags {
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
}

/// How a single select should render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChoiceStyle {
    Segmented,
    Dropdown,
}

impl FieldKind {
    /// Segmented control up to five options, a `select` above.
    pub fn choice_style(options: &[Choice]) -> ChoiceStyle {
        if options.len() <= SEGMENTED_MAX_OPTIONS {
            ChoiceStyle::Segmented
        } else {
            ChoiceStyle::Dropdown
        }
    }
}

/// The string control flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    Plain,
    Email,
    Uri,
    Date,
    DateTime,
    /// Extension: `format: "textarea"`.
    Textarea,
}

/// One option of a select: the value sent back and the text shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

/// Keywords a property may carry under `strict` (the MCP 2025-11-25 subset), by `type`.
fn strict_keywords(kind: &str) -> &'static [&'static str] {
    match kind {
        // `pattern` is not in schema.ts but the 2025-11-25 chapter's string example uses it.
        "string" => &[
            "type",
            "title",
            "description",
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "default",
            "enum",
            "enumNames",
            "oneOf",
        ],
        "number" | "integer" => &[
            "type",
            "title",
            "description",
            "minimum",
            "maximum",
            "default",
        ],
        "boolean" => &["type", "title", "description", "default"],
        "array" => &[
            "type",
            "title",
            "description",
            "minItems",
            "maxItems",
            "items",
            "default",
        ],
        _ => &[],
    }
}

struct Compiler {
    strict: bool,
    property_count: usize,
    fields: Vec<Field>,
    /// Pattern work the defaults so far need (see [`MAX_DEFAULTS_PATTERN_WORK`]).
    defaults_work: usize,
}

/// A server string shown as text: refused past [`MAX_TEXT_CHARS`]. `path` is built only for
/// the error, since a valid schema needs none.
fn check_text(text: &str, path: &dyn Fn() -> String) -> Result<(), ElicitationError> {
    if exceeds_text_limit(text) {
        return Err(ElicitationError::invalid(
            &path(),
            format!("is longer than {MAX_TEXT_CHARS} characters"),
        ));
    }
    Ok(())
}

/// Compiles `requestedSchema` (found at `path`) into a form, or the first problem found.
pub fn compile_form_schema(
    schema: &Value,
    path: &str,
    strict: bool,
) -> Result<FormSchema, ElicitationError> {
    let object = schema
        .as_object()
        .ok_or_else(|| ElicitationError::invalid(path, "must be an object"))?;
    match object.get("type") {
        None => {}
        Some(Value::String(kind)) if kind == "object" => {}
        Some(_) => {
            return Err(ElicitationError::invalid(
                &child_path(path, "type"),
                "must be \"object\"",
            ))
        }
    }
    check_object_keywords(object, path)?;
    // Size limits come before anything expensive, so hostile schemas are refused cheaply.
    check_sizes(object, path, 0)?;
    let rules = Rules::compile(schema, path)?;
    let mut compiler = Compiler {
        strict,
        property_count: 0,
        fields: Vec::new(),
        defaults_work: 0,
    };
    let (layout, required) = compiler.object_items(object, &rules, path, &[], 0)?;
    Ok(FormSchema {
        fields: compiler.fields,
        layout,
        rules,
        required,
    })
}

/// Counts properties and nesting before compiling, so 10,000 properties cost one pass.
fn check_sizes(
    object: &Map<String, Value>,
    path: &str,
    depth: usize,
) -> Result<usize, ElicitationError> {
    let Some(properties) = object.get("properties").and_then(Value::as_object) else {
        return Ok(0);
    };
    let mut count = properties.len();
    if count > MAX_PROPERTIES {
        return Err(ElicitationError::invalid(
            &child_path(path, "properties"),
            format!("has more than {MAX_PROPERTIES} properties"),
        ));
    }
    for (name, property) in properties {
        if exceeds_text_limit(name) {
            return Err(ElicitationError::invalid(
                &child_path(path, "properties"),
                format!("has a property name longer than {MAX_TEXT_CHARS} characters"),
            ));
        }
        let Some(child) = property.as_object() else {
            continue;
        };
        if child.get("type").and_then(Value::as_str) == Some("object") {
            let child_path_text = child_path(&child_path(path, "properties"), name);
            if depth + 1 > MAX_FORM_DEPTH {
                return Err(ElicitationError::invalid(
                    &child_path_text,
                    format!("nests objects deeper than {MAX_FORM_DEPTH} levels"),
                ));
            }
            count += check_sizes(child, &child_path_text, depth + 1)?;
            if count > MAX_PROPERTIES {
                return Err(ElicitationError::invalid(
                    path,
                    format!("has more than {MAX_PROPERTIES} properties"),
                ));
            }
        }
    }
    Ok(count)
}

impl Compiler {
    fn object_items(
        &mut self,
        object: &Map<String, Value>,
        rules: &Rules,
        path: &str,
        parents: &[String],
        depth: usize,
    ) -> Result<(Vec<Item>, Vec<String>), ElicitationError> {
        let properties_path = child_path(path, "properties");
        let empty = Map::new();
        let properties = match object.get("properties") {
            None => &empty,
            Some(Value::Object(properties)) => properties,
            Some(_) => {
                return Err(ElicitationError::invalid(
                    &properties_path,
                    "must be an object",
                ))
            }
        };
        let required = required_names(object, properties, path)?;
        let mut items = Vec::with_capacity(properties.len());
        for (name, property) in properties {
            self.property_count += 1;
            if self.property_count > MAX_PROPERTIES {
                return Err(ElicitationError::invalid(
                    &properties_path,
                    format!("has more than {MAX_PROPERTIES} properties"),
                ));
            }
            let property_path = child_path(&properties_path, name);
            let property_rules = rules.property(name).ok_or_else(|| {
                ElicitationError::invalid(&property_path, "could not be compiled")
            })?;
            let mut field_path = parents.to_vec();
            field_path.push(name.clone());
            let is_required = required.iter().any(|r| r == name);
            items.push(self.property(
                name,
                property,
                property_rules,
                &property_path,
                field_path,
                is_required,
                depth,
            )?);
        }
        Ok((items, required))
    }

    #[allow(clippy::too_many_arguments)]
    fn property(
        &mut self,
        name: &str,
        property: &Value,
        rules: &Rules,
        path: &str,
        field_path: Vec<String>,
        required: bool,
        depth: usize,
    ) -> Result<Item, ElicitationError> {
        let object = property
            .as_object()
            .ok_or_else(|| ElicitationError::invalid(path, "must be an object"))?;
        let title = optional_string(object, "title", path)?;
        let description = optional_string(object, "description", path)?;
        let label = title.clone().unwrap_or_else(|| name.to_string());
        let kind_name =
            match object.get("type") {
                Some(Value::String(kind)) => kind.as_str(),
                // A select without `type` is still unambiguous; strict mode wants the MCP spelling.
                None if !self.strict
                    && (object.contains_key("enum") || object.contains_key("oneOf")) =>
                {
                    "string"
                }
                _ => return Err(ElicitationError::invalid(
                    &child_path(path, "type"),
                    "must be one of \"string\", \"number\", \"integer\", \"boolean\", \"array\"",
                )),
            };
        if self.strict {
            if kind_name == "object" {
                return Err(ElicitationError::invalid(
                    &child_path(path, "type"),
                    "\"object\" is an extension not allowed in strict mode",
                ));
            }
            let allowed = strict_keywords(kind_name);
            if let Some(keyword) = object.keys().find(|key| !allowed.contains(&key.as_str())) {
                return Err(ElicitationError::invalid(
                    &child_path(path, keyword),
                    "is not part of the MCP 2025-11-25 schema subset (strict mode)",
                ));
            }
        }
        if kind_name == "object" {
            check_object_keywords(object, path)?;
            if depth + 1 > MAX_FORM_DEPTH {
                return Err(ElicitationError::invalid(
                    path,
                    format!("nests objects deeper than {MAX_FORM_DEPTH} levels"),
                ));
            }
            let (items, _) = self.object_items(object, rules, path, &field_path, depth + 1)?;
            if object.contains_key("default") {
                check_group_default(object.get("default"), path)?;
            }
            return Ok(Item::Group(Group {
                name: name.to_string(),
                path: field_path,
                label,
                description,
                required,
                items,
            }));
        }
        let kind =
            match kind_name {
                "string" => self.string_kind(object, path)?,
                "number" | "integer" => FieldKind::Number {
                    integer: kind_name == "integer",
                    minimum: number_bound(object, "minimum", "exclusiveMinimum"),
                    maximum: number_bound(object, "maximum", "exclusiveMaximum"),
                },
                "boolean" => FieldKind::Toggle,
                "array" => self.array_kind(object, path)?,
                _ => return Err(ElicitationError::invalid(
                    &child_path(path, "type"),
                    "must be one of \"string\", \"number\", \"integer\", \"boolean\", \"array\"",
                )),
            };
        let default = field_default(object.get("default"), &kind, path)?;
        if let Some(default) = &default {
            self.defaults_work = self
                .defaults_work
                .saturating_add(rules.pattern_work(default));
            if self.defaults_work > MAX_DEFAULTS_PATTERN_WORK {
                return Err(ElicitationError::invalid(
                    &child_path(path, "default"),
                    "is too long to check against its pattern when the form opens",
                ));
            }
        }
        let secret = matches!(kind, FieldKind::Text { .. })
            && (looks_secret(name)
                || title.as_deref().is_some_and(looks_secret)
                || object.get("format").and_then(Value::as_str) == Some("password"));
        let index = self.fields.len();
        self.fields.push(Field {
            name: name.to_string(),
            path: field_path,
            label,
            description,
            required,
            kind,
            default,
            secret,
            rules: rules.clone(),
        });
        Ok(Item::Field(index))
    }

    fn string_kind(
        &self,
        object: &Map<String, Value>,
        path: &str,
    ) -> Result<FieldKind, ElicitationError> {
        if let Some(options) = select_options(object, path)? {
            return Ok(FieldKind::Choice { options });
        }
        let format =
            match object.get("format") {
                None => TextFormat::Plain,
                Some(Value::String(format)) => match format.as_str() {
                    "email" => TextFormat::Email,
                    "uri" => TextFormat::Uri,
                    "date" => TextFormat::Date,
                    "date-time" => TextFormat::DateTime,
                    "textarea" if !self.strict => TextFormat::Textarea,
                    _ if self.strict => return Err(ElicitationError::invalid(
                        &child_path(path, "format"),
                        "must be one of \"email\", \"uri\", \"date\", \"date-time\" in strict mode",
                    )),
                    _ => TextFormat::Plain,
                },
                Some(_) => {
                    return Err(ElicitationError::invalid(
                        &child_path(path, "format"),
                        "must be a string",
                    ))
                }
            };
        Ok(FieldKind::Text {
            format,
            min_length: object.get("minLength").and_then(Value::as_u64),
            max_length: object.get("maxLength").and_then(Value::as_u64),
        })
    }

    fn array_kind(
        &self,
        object: &Map<String, Value>,
        path: &str,
    ) -> Result<FieldKind, ElicitationError> {
        let items_path = child_path(path, "items");
        let items = object
            .get("items")
            .and_then(Value::as_object)
            .ok_or_else(|| ElicitationError::invalid(&items_path, "must be an object"))?;
        let min_items = object.get("minItems").and_then(Value::as_u64);
        let max_items = object.get("maxItems").and_then(Value::as_u64);
        if self.strict {
            let allowed: &[&str] = &["type", "enum", "anyOf"];
            if let Some(keyword) = items.keys().find(|key| !allowed.contains(&key.as_str())) {
                return Err(ElicitationError::invalid(
                    &child_path(&items_path, keyword),
                    "is not part of the MCP 2025-11-25 schema subset (strict mode)",
                ));
            }
        }
        if let Some(options) = select_options(items, &items_path)? {
            return Ok(FieldKind::MultiChoice {
                options,
                min_items,
                max_items,
            });
        }
        match items.get("type").and_then(Value::as_str) {
            Some("string") if !self.strict => Ok(FieldKind::Tags {
                min_items,
                max_items,
            }),
            _ => Err(ElicitationError::invalid(
                &items_path,
                if self.strict {
                    "must list options with \"enum\" or \"anyOf\""
                } else {
                    "must list options with \"enum\", \"anyOf\" or \"oneOf\", or be {\"type\": \"string\"}"
                },
            )),
        }
    }
}

/// The options of a select in any spelling: `enum` (+ legacy `enumNames`), `oneOf` or `anyOf`
/// of `{const, title}`. `None` when the schema has no options.
fn select_options(
    object: &Map<String, Value>,
    path: &str,
) -> Result<Option<Vec<Choice>>, ElicitationError> {
    let options = if let Some(values) = object.get("enum") {
        let enum_path = child_path(path, "enum");
        let values = values
            .as_array()
            .ok_or_else(|| ElicitationError::invalid(&enum_path, "must be an array"))?;
        let names = match object.get("enumNames") {
            None => None,
            Some(Value::Array(names)) if names.len() == values.len() => Some(names),
            Some(_) => {
                return Err(ElicitationError::invalid(
                    &child_path(path, "enumNames"),
                    "must be an array of strings as long as enum",
                ))
            }
        };
        let mut options = Vec::with_capacity(values.len());
        for (index, value) in values.iter().enumerate() {
            let value = value.as_str().ok_or_else(|| {
                ElicitationError::invalid(&format!("{enum_path}[{index}]"), "must be a string")
            })?;
            let label = match names.and_then(|names| names.get(index)) {
                None => value.to_string(),
                Some(Value::String(name)) => name.clone(),
                Some(_) => {
                    return Err(ElicitationError::invalid(
                        &format!("{}[{index}]", child_path(path, "enumNames")),
                        "must be a string",
                    ))
                }
            };
            options.push(Choice {
                value: value.to_string(),
                label,
            });
        }
        check_options(&options, &enum_path)?;
        options
    } else if let Some((keyword, list)) = ["oneOf", "anyOf"]
        .iter()
        .find_map(|keyword| object.get(*keyword).map(|list| (*keyword, list)))
    {
        let list_path = child_path(path, keyword);
        let list = list
            .as_array()
            .ok_or_else(|| ElicitationError::invalid(&list_path, "must be an array"))?;
        let mut options = Vec::with_capacity(list.len());
        for (index, entry) in list.iter().enumerate() {
            // Paths are built only for an error: a valid list needs none.
            let entry_path = |key| child_path(&format!("{list_path}[{index}]"), key);
            let value = entry.get("const").and_then(Value::as_str).ok_or_else(|| {
                ElicitationError::invalid(&entry_path("const"), "must be a string")
            })?;
            let label = match entry.get("title") {
                None => value.to_string(),
                Some(Value::String(title)) => title.clone(),
                Some(_) => {
                    return Err(ElicitationError::invalid(
                        &entry_path("title"),
                        "must be a string",
                    ))
                }
            };
            options.push(Choice {
                value: value.to_string(),
                label,
            });
        }
        check_options(&options, &list_path)?;
        options
    } else {
        return Ok(None);
    };
    Ok(Some(options))
}

fn check_options(options: &[Choice], path: &str) -> Result<(), ElicitationError> {
    if options.is_empty() {
        return Err(ElicitationError::invalid(path, "must not be empty"));
    }
    for (index, option) in options.iter().enumerate() {
        for text in [&option.value, &option.label] {
            check_text(text, &|| format!("{path}[{index}]"))?;
        }
    }
    if options.len() > MAX_OPTIONS {
        return Err(ElicitationError::invalid(
            path,
            format!("has more than {MAX_OPTIONS} options"),
        ));
    }
    let mut values: Vec<&str> = options.iter().map(|option| option.value.as_str()).collect();
    if let Some(duplicate) = crate::sort::first_repeat(&mut values) {
        return Err(ElicitationError::invalid(
            path,
            format!(
                "has the duplicate value {}",
                crate::json::write(&Value::from(duplicate))
            ),
        ));
    }
    Ok(())
}

fn required_names(
    object: &Map<String, Value>,
    properties: &Map<String, Value>,
    path: &str,
) -> Result<Vec<String>, ElicitationError> {
    let required_path = child_path(path, "required");
    let Some(required) = object.get("required") else {
        return Ok(Vec::new());
    };
    let list = required
        .as_array()
        .ok_or_else(|| ElicitationError::invalid(&required_path, "must be an array of strings"))?;
    let mut names = Vec::with_capacity(list.len());
    for (index, name) in list.iter().enumerate() {
        let entry_path = || format!("{required_path}[{index}]");
        let name = name
            .as_str()
            .ok_or_else(|| ElicitationError::invalid(&entry_path(), "must be a string"))?;
        if !properties.contains_key(name) {
            return Err(ElicitationError::invalid(
                &entry_path(),
                format!(
                    "names {} which is not a property",
                    crate::json::write(&Value::from(name))
                ),
            ));
        }
        names.push(name.to_string());
    }
    Ok(names)
}

fn optional_string(
    object: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<String>, ElicitationError> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::String(text)) => {
            check_text(text, &|| child_path(path, key))?;
            Ok(Some(text.clone()))
        }
        Some(_) => Err(ElicitationError::invalid(
            &child_path(path, key),
            "must be a string",
        )),
    }
}

/// The tighter of an inclusive and an exclusive bound, for the control's `min`/`max` hint.
fn number_bound(object: &Map<String, Value>, inclusive: &str, exclusive: &str) -> Option<f64> {
    object
        .get(inclusive)
        .and_then(Value::as_f64)
        .or_else(|| object.get(exclusive).and_then(Value::as_f64))
}

/// The default coerced to the field's shape. A default of the wrong JSON type is refused; one that
/// only breaks a constraint (a bound, the enum) is kept and shown invalid by the form.
fn field_default(
    default: Option<&Value>,
    kind: &FieldKind,
    path: &str,
) -> Result<Option<Value>, ElicitationError> {
    let Some(default) = default else {
        return Ok(None);
    };
    let default_path = child_path(path, "default");
    let coerced = match (kind, default) {
        (FieldKind::MultiChoice { .. } | FieldKind::Tags { .. }, Value::String(single)) => {
            Value::Array(vec![Value::String(single.clone())])
        }
        _ => default.clone(),
    };
    let expected = match kind {
        FieldKind::Text { .. } | FieldKind::Choice { .. } => "a string",
        FieldKind::Number { integer: true, .. } => "an integer",
        FieldKind::Number { integer: false, .. } => "a number",
        FieldKind::Toggle => "a boolean",
        FieldKind::MultiChoice { .. } | FieldKind::Tags { .. } => "an array of strings",
    };
    let type_ok = match kind {
        FieldKind::Text { .. } | FieldKind::Choice { .. } => coerced.is_string(),
        FieldKind::Number { integer, .. } => coerced
            .as_f64()
            .is_some_and(|number| !integer || number.fract() == 0.0),
        FieldKind::Toggle => coerced.is_boolean(),
        FieldKind::MultiChoice { .. } | FieldKind::Tags { .. } => coerced
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string)),
    };
    if !type_ok {
        return Err(ElicitationError::invalid(
            &default_path,
            format!("must be {expected}"),
        ));
    }
    match &coerced {
        Value::String(text) => check_text(text, &|| default_path.clone())?,
        Value::Array(items) if items.len() > MAX_OPTIONS => {
            return Err(ElicitationError::invalid(
                &default_path,
                format!("has more than {MAX_OPTIONS} entries"),
            ))
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                if let Value::String(text) = item {
                    check_text(text, &|| format!("{default_path}[{index}]"))?;
                }
            }
        }
        _ => {}
    }
    Ok(Some(coerced))
}

/// `enum` and `const` on an object (the root or a nested group) constrain the whole object, which
/// no combination of fields can be relied on to meet: a form that could never send valid content
/// is refused instead of shown.
fn check_object_keywords(object: &Map<String, Value>, path: &str) -> Result<(), ElicitationError> {
    match ["enum", "const"]
        .iter()
        .find(|key| object.contains_key(**key))
    {
        Some(key) => Err(ElicitationError::invalid(
            &child_path(path, key),
            "is not supported on an object schema",
        )),
        None => Ok(()),
    }
}

fn check_group_default(default: Option<&Value>, path: &str) -> Result<(), ElicitationError> {
    match default {
        Some(Value::Object(_)) | None => Ok(()),
        Some(_) => Err(ElicitationError::invalid(
            &child_path(path, "default"),
            "must be an object",
        )),
    }
}

/// Words that mark a field as asking for a secret, matched on the name with separators removed.
const SECRET_MARKERS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "cardnumber",
    "creditcard",
    "cvv",
    "cvc",
    "securitycode",
    "pin",
    "ssn",
    "senha",
];

/// MCP forbids servers to ask for secrets in form mode; such fields are masked and warned about.
pub fn looks_secret(text: &str) -> bool {
    let folded: String = text
        .chars()
        .filter(|c| c.is_alphanumeric())
        .map(fold_for_markers)
        .collect();
    SECRET_MARKERS.iter().any(|marker| {
        // Short markers only count as whole words, so "spinner" or "shipping" stay plain.
        if marker.len() <= 3 {
            text.split(|c: char| !c.is_alphanumeric())
                .any(|word| word.eq_ignore_ascii_case(marker))
        } else {
            crate::strings::contains(&folded, marker)
        }
    })
}

/// Lower-cases `c` as far as matching the ASCII `SECRET_MARKERS` can tell: ASCII letters, and the two
/// non-ASCII characters whose lower case starts with ASCII (KELVIN SIGN → `k`; `İ` → `i`, where std adds
/// a combining dot that would let `PRİVATEKEY` slip past). Every other character stays non-ASCII, as its
/// lower case would. This keeps std's full lower-case table out of the wasm.
fn fold_for_markers(c: char) -> char {
    match c {
        '\u{212a}' => 'k',
        '\u{130}' => 'i',
        _ => c.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marker_fold_agrees_with_full_lower_case_on_every_ascii_outcome() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let full: String = c.to_lowercase().collect();
            let ours = fold_for_markers(c);
            if full.is_ascii() {
                assert_eq!(full, ours.to_string(), "U+{:04X}", c as u32);
            } else if c == '\u{130}' {
                assert_eq!(full.chars().next(), Some('i'));
                assert!(!full.chars().nth(1).is_some_and(|m| m.is_ascii()));
            } else {
                assert!(
                    !ours.is_ascii(),
                    "U+{:04X} folds to ASCII {ours:?}",
                    c as u32
                );
                assert!(full.chars().all(|m| !m.is_ascii()), "U+{:04X}", c as u32);
            }
        }
        assert!(looks_secret("api_to\u{212a}en"));
        assert!(looks_secret("PR\u{130}VATEKEY"));
    }

    fn compile(schema: Value) -> Result<FormSchema, ElicitationError> {
        compile_form_schema(&schema, "requestedSchema", false)
    }

    fn strict(schema: Value) -> Result<FormSchema, ElicitationError> {
        compile_form_schema(&schema, "requestedSchema", true)
    }

    fn one(property: Value) -> Result<FormSchema, ElicitationError> {
        compile(json!({"type": "object", "properties": {"f": property}}))
    }

    fn message(result: Result<FormSchema, ElicitationError>) -> String {
        result
            .err()
            .map(|err| err.message)
            .unwrap_or_else(|| "ok".into())
    }

    #[test]
    fn weather_schema_gives_two_fields_in_document_order() {
        let form = compile(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "Your city"},
                "temperature_unit": {"type": "string", "enum": ["C", "F"]}
            },
            "required": ["city"]
        }))
        .unwrap();
        assert_eq!(form.fields.len(), 2);
        assert_eq!(form.fields[0].name, "city");
        assert!(form.fields[0].required);
        assert_eq!(form.fields[0].description.as_deref(), Some("Your city"));
        assert_eq!(form.fields[1].name, "temperature_unit");
        assert!(!form.fields[1].required);
        assert!(
            matches!(&form.fields[1].kind, FieldKind::Choice { options } if options.len() == 2)
        );
    }

    #[test]
    fn document_order_is_kept_even_when_not_alphabetical() {
        let form = compile(json!({"type": "object", "properties": {
            "zeta": {"type": "string"}, "alpha": {"type": "string"}, "mid": {"type": "boolean"}
        }}))
        .unwrap();
        let names: Vec<_> = form.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha", "mid"]);
    }

    #[test]
    fn every_enum_spelling_gives_choices_with_labels() {
        let plain = one(json!({"type": "string", "enum": ["a", "b"]})).unwrap();
        assert_eq!(
            plain.fields[0].kind,
            FieldKind::Choice {
                options: vec![
                    Choice {
                        value: "a".into(),
                        label: "a".into()
                    },
                    Choice {
                        value: "b".into(),
                        label: "b".into()
                    }
                ]
            }
        );
        let titled =
            one(json!({"type": "string", "oneOf": [{"const": "r", "title": "Red"}]})).unwrap();
        assert!(
            matches!(&titled.fields[0].kind, FieldKind::Choice { options } if options[0].label == "Red")
        );
        let legacy = one(json!({"type": "string", "enum": ["r"], "enumNames": ["Red"]})).unwrap();
        assert!(
            matches!(&legacy.fields[0].kind, FieldKind::Choice { options } if options[0].label == "Red" && options[0].value == "r")
        );
        let multi =
            one(json!({"type": "array", "items": {"type": "string", "enum": ["x", "y"]}})).unwrap();
        assert!(
            matches!(&multi.fields[0].kind, FieldKind::MultiChoice { options, .. } if options.len() == 2)
        );
        let titled_multi =
            one(json!({"type": "array", "items": {"anyOf": [{"const": "x", "title": "Ex"}]}}))
                .unwrap();
        assert!(
            matches!(&titled_multi.fields[0].kind, FieldKind::MultiChoice { options, .. } if options[0].label == "Ex")
        );
        let one_of_multi =
            one(json!({"type": "array", "items": {"oneOf": [{"const": "x", "title": "Ex"}]}}))
                .unwrap();
        assert!(matches!(
            &one_of_multi.fields[0].kind,
            FieldKind::MultiChoice { .. }
        ));
    }

    #[test]
    fn choice_style_switches_above_five_options() {
        let five: Vec<Choice> = (0..5)
            .map(|i| Choice {
                value: i.to_string(),
                label: i.to_string(),
            })
            .collect();
        assert_eq!(FieldKind::choice_style(&five), ChoiceStyle::Segmented);
        let six: Vec<Choice> = (0..6)
            .map(|i| Choice {
                value: i.to_string(),
                label: i.to_string(),
            })
            .collect();
        assert_eq!(FieldKind::choice_style(&six), ChoiceStyle::Dropdown);
    }

    #[test]
    fn formats_and_extensions_pick_their_controls() {
        for (format, expected) in [
            ("email", TextFormat::Email),
            ("uri", TextFormat::Uri),
            ("date", TextFormat::Date),
            ("date-time", TextFormat::DateTime),
            ("textarea", TextFormat::Textarea),
        ] {
            let form = one(json!({"type": "string", "format": format})).unwrap();
            assert!(
                matches!(form.fields[0].kind, FieldKind::Text { format: f, .. } if f == expected),
                "{format}"
            );
        }
        let tags = one(json!({"type": "array", "items": {"type": "string"}})).unwrap();
        assert!(matches!(tags.fields[0].kind, FieldKind::Tags { .. }));
        let nested = compile(json!({"type": "object", "properties": {
            "address": {"type": "object", "properties": {"street": {"type": "string"}}, "required": ["street"]}
        }}))
        .unwrap();
        assert_eq!(nested.fields[0].path, ["address", "street"]);
        assert_eq!(nested.fields[0].key(), "address.street");
        assert!(nested.fields[0].required);
        assert!(matches!(&nested.layout[0], Item::Group(group) if group.name == "address"));
    }

    #[test]
    fn strict_mode_refuses_extensions() {
        assert_eq!(
            message(strict(json!({"type": "object", "properties": {"f": {"type": "string", "format": "textarea"}}}))),
            "requestedSchema.properties.f.format must be one of \"email\", \"uri\", \"date\", \"date-time\" in strict mode"
        );
        assert_eq!(
            message(strict(json!({"type": "object", "properties": {"f": {"type": "string", "x-widget": "a"}}}))),
            "requestedSchema.properties.f.x-widget is not part of the MCP 2025-11-25 schema subset (strict mode)"
        );
        assert!(message(strict(
            json!({"type": "object", "properties": {"f": {"type": "object", "properties": {}}}})
        ))
        .contains("strict mode"));
        assert!(message(strict(json!({"type": "object", "properties": {"f": {"type": "array", "items": {"type": "string"}}}})))
            .starts_with("requestedSchema.properties.f.items must list options"));
        assert!(strict(json!({"type": "object", "properties": {
            "a": {"type": "string", "format": "email", "minLength": 1, "title": "A", "default": "x@y.z"},
            "b": {"type": "integer", "minimum": 1, "maximum": 3},
            "c": {"type": "array", "items": {"type": "string", "enum": ["x"]}, "minItems": 1}
        }, "required": ["a"]}))
        .is_ok());
    }

    #[test]
    fn limits_are_refused_with_paths() {
        let mut properties = serde_json::Map::new();
        for i in 0..=MAX_PROPERTIES {
            properties.insert(format!("p{i}"), json!({"type": "string"}));
        }
        assert_eq!(
            message(compile(json!({"type": "object", "properties": properties}))),
            "requestedSchema.properties has more than 100 properties"
        );
        let options: Vec<String> = (0..=MAX_OPTIONS).map(|i| format!("o{i}")).collect();
        assert_eq!(
            message(one(json!({"type": "string", "enum": options}))),
            "requestedSchema.properties.f.enum has more than 500 options"
        );
        let deep = json!({"type": "object", "properties": {"a": {"type": "object", "properties": {
            "b": {"type": "object", "properties": {"c": {"type": "object", "properties": {
                "d": {"type": "object", "properties": {"e": {"type": "string"}}}}}}}}}}});
        assert!(message(compile(deep)).contains("deeper than 3 levels"));
        let three = json!({"type": "object", "properties": {"a": {"type": "object", "properties": {
            "b": {"type": "object", "properties": {"c": {"type": "object", "properties": {"e": {"type": "string"}}}}}}}}});
        assert!(compile(three).is_ok());
    }

    #[test]
    fn bad_schemas_are_refused_with_paths() {
        assert_eq!(
            message(compile(json!([]))),
            "requestedSchema must be an object"
        );
        assert_eq!(
            message(compile(json!({"type": "array"}))),
            "requestedSchema.type must be \"object\""
        );
        assert_eq!(
            message(one(json!({"type": "string", "enum": []}))),
            "requestedSchema.properties.f.enum must not be empty"
        );
        assert_eq!(
            message(one(json!({"type": "string", "enum": ["a", "a"]}))),
            "requestedSchema.properties.f.enum has the duplicate value \"a\""
        );
        assert_eq!(
            message(compile(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]})
            )),
            "requestedSchema.required[0] names \"b\" which is not a property"
        );
        assert_eq!(
            message(one(json!({"type": "integer", "default": "3"}))),
            "requestedSchema.properties.f.default must be an integer"
        );
        assert_eq!(
            message(one(json!({"type": "integer", "default": 2.5}))),
            "requestedSchema.properties.f.default must be an integer"
        );
        assert_eq!(
            message(one(json!({"type": "boolean", "default": 1}))),
            "requestedSchema.properties.f.default must be a boolean"
        );
        assert_eq!(
            message(one(json!({"type": "string", "default": 1}))),
            "requestedSchema.properties.f.default must be a string"
        );
        assert_eq!(
            message(one(json!({"type": "string", "minLength": -1})))
                .split(' ')
                .next(),
            Some("requestedSchema.properties.f.minLength")
        );
        assert_eq!(
            message(one(json!({"type": "number", "minimum": "3"}))),
            "requestedSchema.properties.f.minimum must be a number"
        );
        assert_eq!(
            message(one(json!("string"))),
            "requestedSchema.properties.f must be a schema (an object or a boolean)"
        );
        assert!(message(one(json!({"type": "date"})))
            .starts_with("requestedSchema.properties.f.type must be"));
        assert_eq!(
            message(one(json!({"type": "string", "oneOf": [{"title": "x"}]}))),
            "requestedSchema.properties.f.oneOf[0].const must be a string"
        );
        assert_eq!(
            message(one(json!({"type": "string", "enum": [1]}))),
            "requestedSchema.properties.f.enum[0] must be a string"
        );
        assert!(message(one(json!({"type": "string", "pattern": "("})))
            .starts_with("requestedSchema.properties.f.pattern"));
        assert_eq!(
            message(one(json!({"type": "array", "items": 3}))),
            "requestedSchema.properties.f.items must be a schema (an object or a boolean)"
        );
    }

    #[test]
    fn defaults_are_kept_and_coerced() {
        let form = compile(json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": "a"}
        }}))
        .unwrap();
        let defaults: Vec<_> = form.fields.iter().map(|f| f.default.clone()).collect();
        assert_eq!(defaults[0], Some(json!("John Doe")));
        assert_eq!(defaults[1], Some(json!(30)));
        assert_eq!(defaults[2], Some(json!(95.5)));
        assert_eq!(defaults[3], Some(json!("active")));
        assert_eq!(defaults[4], Some(json!(true)));
        assert_eq!(defaults[5], Some(json!(["a"])));
        // A default that only breaks a bound is kept, to be shown invalid.
        assert!(one(json!({"type": "integer", "minimum": 10, "default": 3})).is_ok());
    }

    #[test]
    fn unknown_keywords_are_tolerated_outside_strict_mode() {
        assert!(compile(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema", "title": "T", "description": "D",
            "type": "object", "additionalProperties": false,
            "properties": {"a": {"type": "string", "x-widget": "fancy"}}
        }))
        .is_ok());
    }

    #[test]
    fn secret_looking_fields_are_flagged() {
        for name in [
            "password",
            "api_key",
            "API Key",
            "accessToken",
            "card_number",
            "cvv",
            "client secret",
            "PIN",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in ["city", "spinner", "shipping_address", "opinion"] {
            assert!(!looks_secret(name), "{name}");
        }
        let form = one(json!({"type": "string", "title": "Your password"})).unwrap();
        assert!(form.fields[0].secret);
        assert!(form.asks_for_secret());
        let numeric =
            compile(json!({"type": "object", "properties": {"max_tokens": {"type": "integer"}}}))
                .unwrap();
        assert!(!numeric.asks_for_secret());
    }

    #[test]
    fn property_names_like_proto_are_plain_data() {
        let form = compile(json!({"type": "object", "properties": {
            "__proto__": {"type": "string"}, "constructor": {"type": "string"}, "toString": {"type": "string"}
        }, "required": ["__proto__"]}))
        .unwrap();
        assert_eq!(form.fields.len(), 3);
        assert_eq!(form.fields[0].name, "__proto__");
        assert!(form.fields[0].required);
    }

    #[test]
    fn hostile_text_sizes_are_refused() {
        let long = "x".repeat(MAX_TEXT_CHARS + 1);
        let ok = "x".repeat(MAX_TEXT_CHARS);
        let mut properties = Map::new();
        properties.insert(long.clone(), json!({"type": "string"}));
        assert_eq!(
            message(compile(json!({"type": "object", "properties": properties}))),
            "requestedSchema.properties has a property name longer than 20000 characters"
        );
        assert_eq!(
            message(one(json!({"type": "string", "enum": ["a", long]}))),
            "requestedSchema.properties.f.enum[1] is longer than 20000 characters"
        );
        assert_eq!(
            message(one(
                json!({"type": "string", "oneOf": [{"const": "a", "title": long}]})
            )),
            "requestedSchema.properties.f.oneOf[0] is longer than 20000 characters"
        );
        assert_eq!(
            message(one(json!({"type": "string", "default": long}))),
            "requestedSchema.properties.f.default is longer than 20000 characters"
        );
        assert_eq!(
            message(one(
                json!({"type": "array", "items": {"type": "string"}, "default": ["a", long]})
            )),
            "requestedSchema.properties.f.default[1] is longer than 20000 characters"
        );
        assert!(one(json!({"type": "string", "default": ok, "enum": [ok]})).is_ok());
    }

    #[test]
    fn defaults_too_costly_for_their_pattern_are_refused() {
        // Near the pattern size cap, a long default would cost a full match budget per field.
        let wide = "^(?:a|a){0,1666}$";
        let default = "a".repeat(19_000);
        let mut properties = Map::new();
        for i in 0..2 {
            properties.insert(
                format!("f{i}"),
                json!({"type": "string", "pattern": wide, "default": default}),
            );
        }
        let err = message(compile(json!({"type": "object", "properties": properties})));
        assert!(
            err.ends_with(".default is too long to check against its pattern when the form opens"),
            "{err}"
        );
        // Ordinary patterns with long defaults are fine.
        let mut properties = Map::new();
        for i in 0..100 {
            properties.insert(
                format!("f{i}"),
                json!({"type": "string", "pattern": "^[a-z ]+$", "default": "a".repeat(1_000)}),
            );
        }
        assert!(compile(json!({"type": "object", "properties": properties})).is_ok());
        assert!(one(
            json!({"type": "string", "pattern": "(x+x+)+y", "default": "x".repeat(20_000)})
        )
        .is_ok());
    }

    #[test]
    fn enum_or_const_on_an_object_is_refused() {
        // Found by tests/fuzz.rs: the form rendered, and its content could never be valid.
        let city = json!({"city": {"type": "string"}});
        assert_eq!(
            message(compile(
                json!({"type": "object", "properties": city, "enum": [{"city": "x"}]})
            )),
            "requestedSchema.enum is not supported on an object schema"
        );
        assert_eq!(
            message(compile(json!({"type": "object", "const": {}}))),
            "requestedSchema.const is not supported on an object schema"
        );
        assert_eq!(
            message(compile(json!({"type": "object", "properties": {
                "address": {"type": "object", "properties": city, "const": {"city": "x"}}
            }}))),
            "requestedSchema.properties.address.const is not supported on an object schema"
        );
    }
}
