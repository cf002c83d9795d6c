//! Form state: what the user entered per field, which fields they have left, and the content that
//! accepting would send. Typed values come from here only, so the JSON types are right in one place.

use serde_json::{Map, Number, Value};

use crate::schema::{Field, FieldKind, FormSchema, Item, TextFormat};
use crate::validate::ViolationKind;

/// What a control currently holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Text, email, URL, date, date-time (local `YYYY-MM-DDTHH:MM[:SS]`), textarea and number controls.
    Text(String),
    Toggle(bool),
    Choice(Option<String>),
    /// Multi select and tags.
    Many(Vec<String>),
}

/// One field's state.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldState {
    pub input: Input,
    /// Changed by the user; untouched fields send their default verbatim.
    pub dirty: bool,
    /// The user has left the field once, so its error may show.
    pub visited: bool,
    /// The browser could not read a number out of what was typed.
    pub bad_input: bool,
    /// Minutes east of UTC for a date-time field's local value.
    pub offset_minutes: i32,
}

/// Why a field's value cannot be sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    Required,
    NotANumber,
    NotAnInteger,
    NotADateTime,
    Rule(ViolationKind),
}

/// All fields of one form.
#[derive(Debug, Clone, PartialEq)]
pub struct FormState {
    pub fields: Vec<FieldState>,
    /// The user tried to submit: every error shows from now on.
    pub submit_attempted: bool,
}

impl FormState {
    /// Fresh state with every default prefilled.
    pub fn new(schema: &FormSchema) -> Self {
        let fields = schema
            .fields
            .iter()
            .map(|field| FieldState {
                input: initial_input(field),
                dirty: false,
                visited: false,
                bad_input: false,
                offset_minutes: 0,
            })
            .collect();
        let mut state = FormState {
            fields,
            submit_attempted: false,
        };
        // A default that breaks its own schema is shown invalid at once, not silently sent.
        for (index, field) in schema.fields.iter().enumerate() {
            if field.default.is_some() && !state.problems(schema, index).is_empty() {
                state.visit(index);
            }
        }
        state
    }

    /// Whether a draft taken from another form of the same shape can be restored here.
    pub fn fits(&self, schema: &FormSchema) -> bool {
        self.fields.len() == schema.fields.len()
            && self
                .fields
                .iter()
                .zip(&schema.fields)
                .all(|(state, field)| state.input.fits(&field.kind))
    }

    /// The user changed a field.
    pub fn set(&mut self, index: usize, input: Input) {
        if let Some(state) = self.fields.get_mut(index) {
            state.input = input;
            state.dirty = true;
            state.bad_input = false;
        }
    }

    /// The user changed a number field; `bad_input` when the browser could not parse it.
    pub fn set_number(&mut self, index: usize, text: String, bad_input: bool) {
        self.set(index, Input::Text(text));
        if let Some(state) = self.fields.get_mut(index) {
            state.bad_input = bad_input;
        }
    }

    /// The user changed a date-time field (local time plus the offset in force at that time).
    pub fn set_local_date_time(&mut self, index: usize, local: String, offset_minutes: i32) {
        self.set(index, Input::Text(local));
        if let Some(state) = self.fields.get_mut(index) {
            state.offset_minutes = offset_minutes;
        }
    }

    /// Fills the form from answers given as content (`{"name": value}`, nested objects for
    /// groups), the way a script or a test answers without a screen. Each value goes in as what
    /// the user would have typed, so the same checks apply; fields without an answer keep their
    /// default. Returns the paths of answers that match no field.
    pub fn fill(&mut self, schema: &FormSchema, answers: &Map<String, Value>) -> Vec<String> {
        let mut unknown = Vec::new();
        collect_unknown(&schema.layout, schema, answers, "", &mut unknown);
        for (index, field) in schema.fields.iter().enumerate() {
            let mut map: Option<&Map<String, Value>> = Some(answers);
            let mut answer = None;
            for (depth, name) in field.path.iter().enumerate() {
                let found = map.and_then(|map| map.get(name));
                if depth + 1 == field.path.len() {
                    answer = found;
                } else {
                    map = found.and_then(Value::as_object);
                }
            }
            let Some(answer) = answer else { continue };
            self.visit(index);
            match (&field.kind, answer) {
                (FieldKind::Text { format, .. }, Value::String(text))
                    if *format == TextFormat::DateTime =>
                {
                    match split_rfc3339(text) {
                        Some((local, offset)) => self.set_local_date_time(index, local, offset),
                        None => self.set(index, Input::Text(text.clone())),
                    }
                }
                (FieldKind::Number { .. }, Value::Number(number)) => {
                    self.set_number(index, number.to_string(), false)
                }
                (FieldKind::Number { .. }, Value::Null) => {
                    self.set_number(index, String::new(), false)
                }
                (FieldKind::Number { .. }, _) => {
                    self.set_number(index, crate::json::write(answer), true)
                }
                (FieldKind::Toggle, Value::Bool(on)) => self.set(index, Input::Toggle(*on)),
                (FieldKind::Choice { .. }, Value::String(choice)) => {
                    self.set(index, Input::Choice(Some(choice.clone())))
                }
                (FieldKind::Choice { .. }, Value::Null) => self.set(index, Input::Choice(None)),
                (FieldKind::MultiChoice { .. } | FieldKind::Tags { .. }, Value::Array(items))
                    if items.iter().all(Value::is_string) =>
                {
                    let items = items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect();
                    self.set(index, Input::Many(items))
                }
                (FieldKind::Text { .. }, Value::String(text)) => {
                    self.set(index, Input::Text(text.clone()))
                }
                (_, Value::Null) => self.set(index, Input::Text(String::new())),
                // A value of the wrong JSON type: kept as its JSON text so the field's own
                // type rule reports it.
                (_, other) => self.set(index, Input::Text(crate::json::write(other))),
            }
        }
        unknown
    }

    /// The user left a field.
    pub fn visit(&mut self, index: usize) {
        if let Some(state) = self.fields.get_mut(index) {
            state.visited = true;
        }
    }

    /// The typed value the field would send, `None` when empty.
    pub fn value(&self, schema: &FormSchema, index: usize) -> Result<Option<Value>, Problem> {
        let (Some(field), Some(state)) = (schema.fields.get(index), self.fields.get(index)) else {
            return Ok(None);
        };
        if !state.dirty {
            if let Some(default) = &field.default {
                return Ok(Some(default.clone()));
            }
        }
        typed_value(field, state)
    }

    /// Everything wrong with a field now, whether shown yet or not.
    pub fn problems(&self, schema: &FormSchema, index: usize) -> Vec<Problem> {
        let Some(field) = schema.fields.get(index) else {
            return Vec::new();
        };
        match self.value(schema, index) {
            Err(problem) => vec![problem],
            Ok(None) if field.required && self.parent_present(schema, field) => {
                vec![Problem::Required]
            }
            Ok(None) => Vec::new(),
            Ok(Some(value)) => field
                .rules
                .validate(&value)
                .into_iter()
                .map(|violation| Problem::Rule(violation.kind))
                .collect(),
        }
    }

    /// The problem to show next to a field: only once the user left it or tried to submit.
    pub fn shown_problem(&self, schema: &FormSchema, index: usize) -> Option<Problem> {
        let state = self.fields.get(index)?;
        if state.visited || self.submit_attempted {
            self.problems(schema, index).into_iter().next()
        } else {
            None
        }
    }

    /// Index of the first field with a problem, in document order.
    pub fn first_invalid(&self, schema: &FormSchema) -> Option<usize> {
        (0..schema.fields.len()).find(|&index| !self.problems(schema, index).is_empty())
    }

    /// Whether accepting is allowed.
    pub fn is_valid(&self, schema: &FormSchema) -> bool {
        self.first_invalid(schema).is_none()
    }

    /// The accepted `content`: typed values, defaults included, empty optional fields omitted,
    /// nested objects nested.
    pub fn content(&self, schema: &FormSchema) -> Result<Value, Vec<(usize, Problem)>> {
        let problems: Vec<(usize, Problem)> = (0..schema.fields.len())
            .flat_map(|index| {
                self.problems(schema, index)
                    .into_iter()
                    .map(move |problem| (index, problem))
            })
            .collect();
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Value::Object(self.object_content(schema, &schema.layout)))
    }

    fn object_content(&self, schema: &FormSchema, items: &[Item]) -> Map<String, Value> {
        let mut object = Map::new();
        for item in items {
            match item {
                Item::Field(index) => {
                    if let (Ok(Some(value)), Some(field)) =
                        (self.value(schema, *index), schema.fields.get(*index))
                    {
                        object.insert(field.name.clone(), value);
                    }
                }
                Item::Group(group) => {
                    let inner = self.object_content(schema, &group.items);
                    if group.required || !inner.is_empty() {
                        object.insert(group.name.clone(), Value::Object(inner));
                    }
                }
            }
        }
        object
    }

    /// A nested field is only required when its object is sent: the object is required itself,
    /// or the user filled something in it.
    fn parent_present(&self, schema: &FormSchema, field: &Field) -> bool {
        let depth = field.path.len();
        if depth <= 1 {
            return true;
        }
        let mut items = &schema.layout;
        for level in 0..depth - 1 {
            let Some(name) = field.path.get(level) else {
                return true;
            };
            let group = items.iter().find_map(|item| match item {
                Item::Group(group) if &group.name == name => Some(group),
                _ => None,
            });
            let Some(group) = group else { return true };
            if !group.required && self.object_content(schema, &group.items).is_empty() {
                return false;
            }
            items = &group.items;
        }
        true
    }
}

impl Input {
    fn fits(&self, kind: &FieldKind) -> bool {
        matches!(
            (self, kind),
            (
                Input::Text(_),
                FieldKind::Text { .. } | FieldKind::Number { .. }
            ) | (Input::Toggle(_), FieldKind::Toggle)
                | (Input::Choice(_), FieldKind::Choice { .. })
                | (
                    Input::Many(_),
                    FieldKind::MultiChoice { .. } | FieldKind::Tags { .. }
                )
        )
    }
}

fn initial_input(field: &Field) -> Input {
    let default = field.default.as_ref();
    match &field.kind {
        FieldKind::Text { .. } => Input::Text(
            default
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        ),
        FieldKind::Number { .. } => {
            Input::Text(default.map(crate::json::write).unwrap_or_default())
        }
        FieldKind::Toggle => Input::Toggle(default.and_then(Value::as_bool).unwrap_or(false)),
        FieldKind::Choice { .. } => {
            Input::Choice(default.and_then(Value::as_str).map(str::to_string))
        }
        FieldKind::MultiChoice { .. } | FieldKind::Tags { .. } => Input::Many(
            default
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        ),
    }
}

fn typed_value(field: &Field, state: &FieldState) -> Result<Option<Value>, Problem> {
    match (&field.kind, &state.input) {
        (FieldKind::Number { integer, .. }, Input::Text(text)) => {
            if state.bad_input {
                return Err(Problem::NotANumber);
            }
            parse_number(text, *integer)
        }
        (FieldKind::Text { format, .. }, Input::Text(text)) => {
            if text.is_empty() {
                Ok(None)
            } else if *format == TextFormat::DateTime {
                local_to_rfc3339(text, state.offset_minutes)
                    .map(|stamp| Some(Value::String(stamp)))
                    .ok_or(Problem::NotADateTime)
            } else {
                Ok(Some(Value::String(text.clone())))
            }
        }
        (_, Input::Toggle(on)) => Ok(Some(Value::Bool(*on))),
        (_, Input::Choice(choice)) => Ok(choice.clone().map(Value::String)),
        (_, Input::Many(items)) if items.is_empty() => Ok(None),
        (_, Input::Many(items)) => Ok(Some(Value::Array(
            items.iter().cloned().map(Value::String).collect(),
        ))),
        (_, Input::Text(text)) if text.is_empty() => Ok(None),
        (_, Input::Text(text)) => Ok(Some(Value::String(text.clone()))),
    }
}

/// Parses what a number control holds: integers without a fraction, numbers as JSON numbers.
pub fn parse_number(text: &str, integer: bool) -> Result<Option<Value>, Problem> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let number = read_decimal(trimmed).ok_or(Problem::NotANumber)?;
    if integer {
        if number.fract() != 0.0 {
            return Err(Problem::NotAnInteger);
        }
        // Within ±2^53 an integer is exact; send it without a fraction.
        if number.abs() <= 9_007_199_254_740_992.0 {
            return Ok(Some(Value::from(number as i64)));
        }
    }
    Number::from_f64(if number == 0.0 { 0.0 } else { number })
        .map(|number| Some(Value::Number(number)))
        .ok_or(Problem::NotANumber)
}

/// Reads an HTML "valid floating-point number" (what a number control reports: `-1`, `.5`, `007`,
/// `1e3`) as a finite `f64`. It goes through the JSON reader's numbers ([`crate::json`]), which
/// the binary has anyway, instead of pulling in core's float parser; "inf", "NaN" and overflow
/// are refused.
pub fn read_decimal(text: &str) -> Option<f64> {
    let (sign, unsigned) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    // JSON wants exactly one digit before the point and no leading zeros; HTML allows both.
    let integer_end = unsigned
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(unsigned.len());
    let (integer, rest) = unsigned.split_at_checked(integer_end)?;
    let integer = integer.trim_start_matches('0');
    let integer = if integer.is_empty() { "0" } else { integer };
    if unsigned.is_empty() || rest.starts_with(['e', 'E']) && integer_end == 0 {
        return None;
    }
    let value = crate::json::parse(&format!("{sign}{integer}{rest}")).ok()?;
    let number = value.as_f64()?;
    number.is_finite().then_some(number)
}

/// Writes a number the way JSON and the controls' `min`/`max` attributes want it: integers
/// without a fraction, others in the shortest form that reads back the same.
pub fn number_attribute(number: f64) -> String {
    if number.fract() == 0.0 && number.abs() < 1e15 {
        (number as i64).to_string()
    } else {
        Number::from_f64(number)
            .map(|number| number.to_string())
            .unwrap_or_default()
    }
}

/// `YYYY-MM-DDTHH:MM[:SS[.fff]]` local time plus minutes east of UTC → RFC 3339 with that offset.
pub fn local_to_rfc3339(local: &str, offset_minutes: i32) -> Option<String> {
    let (date, time) = local.split_once('T')?;
    let mut date_parts = date.split('-');
    let year = date_parts
        .next()
        .filter(|p| p.len() == 4)?
        .parse::<u32>()
        .ok()?;
    let month = date_parts
        .next()
        .filter(|p| p.len() == 2)?
        .parse::<u32>()
        .ok()?;
    let day = date_parts
        .next()
        .filter(|p| p.len() == 2)?
        .parse::<u32>()
        .ok()?;
    if date_parts.next().is_some()
        || !(1..=12).contains(&month)
        || day < 1
        || day > crate::format::days_in_month(year, month)
    {
        return None;
    }
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction))
            if !fraction.is_empty() && fraction.chars().all(|c| c.is_ascii_digit()) =>
        {
            (clock, Some(fraction))
        }
        Some(_) => return None,
        None => (time, None),
    };
    let mut clock_parts = clock.split(':');
    let hour = clock_parts
        .next()
        .filter(|p| p.len() == 2)?
        .parse::<u32>()
        .ok()?;
    let minute = clock_parts
        .next()
        .filter(|p| p.len() == 2)?
        .parse::<u32>()
        .ok()?;
    let second = match clock_parts.next() {
        Some(part) if part.len() == 2 => part.parse::<u32>().ok()?,
        Some(_) => return None,
        None => 0,
    };
    if clock_parts.next().is_some()
        || hour > 23
        || minute > 59
        || second > 59
        || offset_minutes.abs() >= 24 * 60
    {
        return None;
    }
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let offset = offset_minutes.unsigned_abs();
    let fraction = fraction.map(|f| format!(".{f}")).unwrap_or_default();
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}{sign}{:02}:{:02}",
        offset / 60,
        offset % 60
    ))
}

/// An RFC 3339 date-time (`…T10:00:00Z`, `…T10:00+02:00`) split into the local part a
/// date-time field holds and its offset in minutes east of UTC.
pub fn split_rfc3339(stamp: &str) -> Option<(String, i32)> {
    let (date, time) = stamp.split_once(['T', 't'])?;
    if let Some(local) = time.strip_suffix(['Z', 'z']) {
        return Some((format!("{date}T{local}"), 0));
    }
    let sign_at = time.rfind(['+', '-'])?;
    let (local, offset) = time.split_at_checked(sign_at)?;
    let sign = if offset.starts_with('-') { -1 } else { 1 };
    let (hours, minutes) = offset.get(1..)?.split_once(':')?;
    if hours.len() != 2 || minutes.len() != 2 {
        return None;
    }
    let hours: i32 = hours.parse().ok()?;
    let minutes: i32 = minutes.parse().ok()?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    Some((format!("{date}T{local}"), sign * (hours * 60 + minutes)))
}

fn collect_unknown(
    items: &[Item],
    schema: &FormSchema,
    answers: &Map<String, Value>,
    prefix: &str,
    unknown: &mut Vec<String>,
) {
    for (name, value) in answers {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let item = items.iter().find(|item| match item {
            Item::Field(index) => schema.fields.get(*index).is_some_and(|f| &f.name == name),
            Item::Group(group) => &group.name == name,
        });
        match (item, value) {
            (Some(Item::Group(group)), Value::Object(inner)) => {
                collect_unknown(&group.items, schema, inner, &path, unknown)
            }
            (Some(_), _) => {}
            (None, _) => unknown.push(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::compile_form_schema;
    use serde_json::json;

    #[test]
    fn rfc3339_stamps_split_into_local_time_and_offset() {
        assert_eq!(
            split_rfc3339("2026-05-01T10:30:00Z"),
            Some(("2026-05-01T10:30:00".into(), 0))
        );
        assert_eq!(
            split_rfc3339("2026-05-01T10:30-03:00"),
            Some(("2026-05-01T10:30".into(), -180))
        );
        assert_eq!(
            split_rfc3339("2026-05-01T10:30:00.5+05:45"),
            Some(("2026-05-01T10:30:00.5".into(), 345))
        );
        assert_eq!(split_rfc3339("2026-05-01T10:30"), None);
        assert_eq!(split_rfc3339("2026-05-01"), None);
        assert_eq!(split_rfc3339("2026-05-01T10:30+5"), None);
    }

    #[test]
    fn answers_fill_the_form_through_the_same_checks() {
        let schema = schema(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 2},
                "age": {"type": "integer", "minimum": 0},
                "ok": {"type": "boolean", "default": false},
                "unit": {"type": "string", "enum": ["C", "F"], "default": "C"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "when": {"type": "string", "format": "date-time"},
                "home": {"type": "object", "properties": {"street": {"type": "string"}}}
            },
            "required": ["city"]
        }));
        let mut state = FormState::new(&schema);
        let answers = json!({
            "city": "Lisbon", "age": 40, "tags": ["a", "b"], "when": "2026-05-01T10:30:00-03:00",
            "home": {"street": "Rua A", "floor": 2}, "extra": 1
        });
        let unknown = state.fill(&schema, answers.as_object().unwrap());
        assert_eq!(unknown, vec!["home.floor".to_string(), "extra".to_string()]);
        assert_eq!(
            state.content(&schema).unwrap(),
            json!({
                "city": "Lisbon", "age": 40, "ok": false, "unit": "C", "tags": ["a", "b"],
                "when": "2026-05-01T10:30:00-03:00", "home": {"street": "Rua A"}
            })
        );
        let mut state = FormState::new(&schema);
        state.fill(
            &schema,
            json!({"city": "L", "age": "old"}).as_object().unwrap(),
        );
        let problems = state.content(&schema).unwrap_err();
        assert_eq!(
            problems,
            vec![
                (0, Problem::Rule(ViolationKind::MinLength { limit: 2 })),
                (1, Problem::NotANumber)
            ]
        );
    }

    fn schema(value: Value) -> FormSchema {
        compile_form_schema(&value, "requestedSchema", false).unwrap()
    }

    fn weather() -> FormSchema {
        schema(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "Your city"},
                "temperature_unit": {"type": "string", "enum": ["C", "F"]}
            },
            "required": ["city"]
        }))
    }

    #[test]
    fn missing_required_field_blocks_accept_until_filled() {
        let schema = weather();
        let mut form = FormState::new(&schema);
        assert!(!form.is_valid(&schema));
        assert_eq!(form.problems(&schema, 0), vec![Problem::Required]);
        assert_eq!(
            form.shown_problem(&schema, 0),
            None,
            "not shown before leaving the field"
        );
        form.visit(0);
        assert_eq!(form.shown_problem(&schema, 0), Some(Problem::Required));
        form.set(0, Input::Text("Lisbon".into()));
        assert!(form.is_valid(&schema));
        assert_eq!(form.content(&schema).unwrap(), json!({"city": "Lisbon"}));
        form.set(1, Input::Choice(Some("C".into())));
        assert_eq!(
            form.content(&schema).unwrap(),
            json!({"city": "Lisbon", "temperature_unit": "C"})
        );
    }

    #[test]
    fn untouched_defaults_are_sent_with_their_json_types() {
        let schema = schema(json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }}));
        let form = FormState::new(&schema);
        assert_eq!(
            form.content(&schema).unwrap(),
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
        );
        assert_eq!(form.fields[1].input, Input::Text("30".into()));
    }

    #[test]
    fn numbers_are_typed_and_checked() {
        assert_eq!(parse_number("42", true), Ok(Some(json!(42))));
        assert_eq!(parse_number("42.0", true), Ok(Some(json!(42))));
        assert_eq!(parse_number("4.5", true), Err(Problem::NotAnInteger));
        assert_eq!(parse_number("4.5", false), Ok(Some(json!(4.5))));
        assert_eq!(parse_number("-0", false), Ok(Some(json!(0.0))));
        assert_eq!(parse_number("1e3", false), Ok(Some(json!(1000.0))));
        assert_eq!(parse_number("NaN", false), Err(Problem::NotANumber));
        assert_eq!(parse_number("inf", false), Err(Problem::NotANumber));
        assert_eq!(parse_number("1e999", false), Err(Problem::NotANumber));
        assert_eq!(parse_number("  ", false), Ok(None));
        assert_eq!(parse_number(".5", false), Ok(Some(json!(0.5))));
        assert_eq!(parse_number("-.5", false), Ok(Some(json!(-0.5))));
        assert_eq!(parse_number("007", true), Ok(Some(json!(7))));
        assert_eq!(parse_number("1e+2", true), Ok(Some(json!(100))));
        assert_eq!(parse_number("1.", false), Err(Problem::NotANumber));
        assert_eq!(parse_number("+1", false), Err(Problem::NotANumber));
        assert_eq!(parse_number("1,5", false), Err(Problem::NotANumber));
        assert_eq!(parse_number("e5", false), Err(Problem::NotANumber));
        assert_eq!(parse_number("-", false), Err(Problem::NotANumber));
        assert_eq!(number_attribute(18.0), "18");
        assert_eq!(number_attribute(-0.25), "-0.25");
        assert_eq!(number_attribute(1e20), "1e+20");
        assert_eq!(number_attribute(0.1 + 0.2), "0.30000000000000004");
        let schema = schema(
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10}}}),
        );
        let mut form = FormState::new(&schema);
        form.set_number(0, "11".into(), false);
        assert!(matches!(
            form.problems(&schema, 0).as_slice(),
            [Problem::Rule(ViolationKind::Maximum { .. })]
        ));
        form.set_number(0, "".into(), true);
        assert_eq!(form.problems(&schema, 0), vec![Problem::NotANumber]);
        form.set_number(0, "".into(), false);
        assert!(
            form.is_valid(&schema),
            "an optional empty number is omitted"
        );
        assert_eq!(form.content(&schema).unwrap(), json!({}));
    }

    #[test]
    fn date_times_are_sent_in_rfc3339_with_an_offset() {
        assert_eq!(
            local_to_rfc3339("2025-03-04T05:06", 60).as_deref(),
            Some("2025-03-04T05:06:00+01:00")
        );
        assert_eq!(
            local_to_rfc3339("2025-03-04T05:06:07", -330).as_deref(),
            Some("2025-03-04T05:06:07-05:30")
        );
        assert_eq!(
            local_to_rfc3339("2025-03-04T05:06:07.250", 0).as_deref(),
            Some("2025-03-04T05:06:07.250+00:00")
        );
        assert_eq!(
            local_to_rfc3339("2024-02-29T00:00", 0).as_deref(),
            Some("2024-02-29T00:00:00+00:00")
        );
        assert_eq!(local_to_rfc3339("2023-02-29T00:00", 0), None);
        assert_eq!(local_to_rfc3339("2025-13-01T00:00", 0), None);
        assert_eq!(local_to_rfc3339("garbage", 0), None);
        let schema = schema(
            json!({"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}}),
        );
        let mut form = FormState::new(&schema);
        form.set_local_date_time(0, "2025-01-02T03:04".into(), 120);
        assert_eq!(
            form.content(&schema).unwrap(),
            json!({"when": "2025-01-02T03:04:00+02:00"})
        );
        assert!(schema
            .rules
            .validate(&form.content(&schema).unwrap())
            .is_empty());
    }

    #[test]
    fn multi_select_sends_a_list_and_omits_an_empty_optional_one() {
        let schema = schema(json!({"type": "object", "properties": {
            "colors": {"type": "array", "items": {"type": "string", "enum": ["r", "g", "b"]}, "maxItems": 2}
        }}));
        let mut form = FormState::new(&schema);
        assert_eq!(form.content(&schema).unwrap(), json!({}));
        form.set(0, Input::Many(vec!["r".into(), "b".into()]));
        assert_eq!(
            form.content(&schema).unwrap(),
            json!({"colors": ["r", "b"]})
        );
        form.set(0, Input::Many(vec!["r".into(), "g".into(), "b".into()]));
        assert!(matches!(
            form.problems(&schema, 0).as_slice(),
            [Problem::Rule(ViolationKind::MaxItems { limit: 2 })]
        ));
    }

    #[test]
    fn a_default_that_breaks_its_schema_is_shown_invalid_not_sent() {
        let schema = schema(
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 10, "default": 3}}}),
        );
        let form = FormState::new(&schema);
        assert!(!form.is_valid(&schema));
        assert!(form.content(&schema).is_err());
        assert!(matches!(
            form.shown_problem(&schema, 0),
            Some(Problem::Rule(ViolationKind::Minimum { .. }))
        ));
    }

    #[test]
    fn booleans_are_always_sent() {
        let schema = schema(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}));
        let mut form = FormState::new(&schema);
        assert_eq!(form.content(&schema).unwrap(), json!({"ok": false}));
        form.set(0, Input::Toggle(true));
        assert_eq!(form.content(&schema).unwrap(), json!({"ok": true}));
    }

    #[test]
    fn nested_objects_are_sent_nested_and_optional_empty_ones_omitted() {
        let schema = schema(json!({"type": "object", "properties": {
            "address": {"type": "object", "properties": {
                "street": {"type": "string"}, "zip": {"type": "string"}
            }, "required": ["street"]}
        }}));
        let mut form = FormState::new(&schema);
        assert!(
            form.is_valid(&schema),
            "an optional object left empty needs nothing"
        );
        assert_eq!(form.content(&schema).unwrap(), json!({}));
        form.set(1, Input::Text("1000".into()));
        assert_eq!(form.problems(&schema, 0), vec![Problem::Required]);
        form.set(0, Input::Text("Main St".into()));
        assert_eq!(
            form.content(&schema).unwrap(),
            json!({"address": {"street": "Main St", "zip": "1000"}})
        );
    }

    #[test]
    fn content_always_passes_the_schema_rules() {
        let schema = schema(json!({"type": "object", "properties": {
            "email": {"type": "string", "format": "email"},
            "code": {"type": "string", "pattern": "[A-Z]{3}"},
            "name": {"type": "string", "minLength": 2, "maxLength": 4}
        }, "required": ["email"]}));
        let mut form = FormState::new(&schema);
        form.set(0, Input::Text("not-an-email".into()));
        assert!(matches!(
            form.problems(&schema, 0).as_slice(),
            [Problem::Rule(ViolationKind::Format { .. })]
        ));
        form.set(0, Input::Text("a@b.co".into()));
        form.set(1, Input::Text("abc".into()));
        assert!(matches!(
            form.problems(&schema, 1).as_slice(),
            [Problem::Rule(ViolationKind::Pattern { .. })]
        ));
        form.set(1, Input::Text("xxABCxx".into()));
        assert!(
            form.problems(&schema, 1).is_empty(),
            "pattern is unanchored"
        );
        form.set(2, Input::Text("é".into()));
        assert!(matches!(
            form.problems(&schema, 2).as_slice(),
            [Problem::Rule(ViolationKind::MinLength { limit: 2 })]
        ));
        form.set(2, Input::Text("éé".into()));
        let content = form.content(&schema).unwrap();
        assert!(schema.rules.validate(&content).is_empty());
    }

    #[test]
    fn drafts_fit_only_forms_of_the_same_shape() {
        let weather = weather();
        let form = FormState::new(&weather);
        assert!(form.fits(&weather));
        let other = schema(
            json!({"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"type": "string"}}}),
        );
        assert!(!form.fits(&other));
    }
}
