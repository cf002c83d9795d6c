//! Form mode on the terminal: one question per field in document order, checked by the core's
//! [`FormState`] with the web dialog's messages, then a summary and a confirmation. Nothing is
//! sent until the whole form is valid.

use koder_mcp_elicitation_core::form::{number_attribute, split_rfc3339, FormState, Input};
use koder_mcp_elicitation_core::i18n::Arg;
use koder_mcp_elicitation_core::reply::{CancelSource, Ending};
use koder_mcp_elicitation_core::schema::{Choice, Field, FieldKind, FormSchema, Item, TextFormat};
use serde_json::Value;

use crate::editor::{read, Answer, Prompt, Ui};
use crate::flow::Flow;
use crate::messages::Messages;
use crate::term::{Key, Tone};

/// Asks the whole form; returns how it ended.
pub fn ask_form(ui: &mut Ui, schema: &FormSchema) -> Result<Ending, Flow> {
    let mut state = FormState::new(schema);
    let messages = ui.messages.clone();
    if schema.fields.iter().any(|field| field.required) {
        ui.term.line(
            Tone::Quiet,
            &messages.get("mcp-elicitation-required-legend"),
        )?;
    }
    if schema.asks_for_secret() {
        ui.term
            .line(Tone::Alert, &messages.get("mcp-elicitation-secret-warning"))?;
    }
    ask_items(ui, schema, &mut state, &schema.layout, 0)?;
    loop {
        // Anything still wrong (a nested field that became required, say) is asked again.
        if let Some(index) = state.first_invalid(schema) {
            state.submit_attempted = true;
            ask_field(ui, schema, &mut state, index, 0)?;
            continue;
        }
        show_summary(ui, schema, &state)?;
        let keys = messages.with(
            "mcp-elicitation-terminal-confirm",
            &[
                (
                    "submit",
                    Arg::Text(&messages.get("mcp-elicitation-action-accept")),
                ),
                (
                    "reject",
                    Arg::Text(&messages.get("mcp-elicitation-action-reject")),
                ),
                (
                    "cancel",
                    Arg::Text(&messages.get("mcp-elicitation-action-cancel")),
                ),
            ],
        );
        ui.term.line(Tone::Strong, &keys)?;
        match ask_key(ui)? {
            Key::Enter => {
                return match state.content(schema) {
                    Ok(content) => Ok(ui.life.settle(Ending::Accept(Some(content)))),
                    // Not reachable while first_invalid is None; ask again rather than send.
                    Err(_) => continue,
                };
            }
            Key::Char('e' | 'E') => {
                ui.term.line(
                    Tone::Normal,
                    &messages.get("mcp-elicitation-terminal-edit-which"),
                )?;
                let answer = ask_line(ui, Prompt::default())?;
                let chosen = answer
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .and_then(|number| number.checked_sub(1))
                    .filter(|index| *index < schema.fields.len());
                if let Some(index) = chosen {
                    ask_field(ui, schema, &mut state, index, 0)?;
                }
            }
            Key::Char('r' | 'R') => return ask_reject(ui),
            _ => {}
        }
    }
}

/// Reject, with the optional reason the web dialog asks for.
pub fn ask_reject(ui: &mut Ui) -> Result<Ending, Flow> {
    let messages = ui.messages.clone();
    ui.term
        .line(Tone::Strong, &messages.get("mcp-elicitation-reason-label"))?;
    let reason = match ask_line(ui, Prompt::default()) {
        Err(Flow::Reject) => String::new(),
        other => other?,
    };
    let reason = reason.trim();
    let reason = (!reason.is_empty()).then(|| reason.to_string());
    Ok(ui.life.settle(Ending::Decline { reason }))
}

/// One key of a menu; Esc and Ctrl-C stop with a cancel.
pub fn ask_key(ui: &mut Ui) -> Result<Key, Flow> {
    let prompt = Prompt {
        single_key: true,
        ..Prompt::default()
    };
    match read(ui, &prompt)? {
        Answer::Key(key) => Ok(key),
        Answer::Line(_) => Ok(Key::Enter),
        Answer::Reject => Err(Flow::Reject),
        Answer::Stop(stop) => Err(Flow::Stop(stop)),
    }
}

fn ask_line(ui: &mut Ui, prompt: Prompt) -> Result<String, Flow> {
    match read(ui, &prompt)? {
        Answer::Line(line) => Ok(line),
        Answer::Key(_) => Ok(String::new()),
        Answer::Reject => Err(Flow::Reject),
        Answer::Stop(stop) => Err(Flow::Stop(stop)),
    }
}

fn ask_items(
    ui: &mut Ui,
    schema: &FormSchema,
    state: &mut FormState,
    items: &[Item],
    depth: usize,
) -> Result<(), Flow> {
    for item in items {
        match item {
            Item::Field(index) => ask_field(ui, schema, state, *index, depth)?,
            Item::Group(group) => {
                let indent = "  ".repeat(depth);
                ui.term.raw("\r\n")?;
                let mark = if group.required { " *" } else { "" };
                ui.term.wrapped(
                    Tone::Strong,
                    &format!("{indent}▸ {}{mark}", group.label),
                    &indent,
                )?;
                if let Some(description) = &group.description {
                    ui.term
                        .wrapped(Tone::Quiet, &format!("{indent}  {description}"), &indent)?;
                }
                ask_items(ui, schema, state, &group.items, depth + 1)?;
            }
        }
    }
    Ok(())
}

/// Asks one field until its answer passes the core's checks.
fn ask_field(
    ui: &mut Ui,
    schema: &FormSchema,
    state: &mut FormState,
    index: usize,
    depth: usize,
) -> Result<(), Flow> {
    let Some(field) = schema.fields.get(index) else {
        return Ok(());
    };
    let messages = ui.messages.clone();
    let indent = "  ".repeat(depth);
    let mark = if field.required { " *" } else { "" };
    ui.term.raw("\r\n")?;
    ui.term.wrapped(
        Tone::Strong,
        &format!("{indent}{}. {}{mark}", index + 1, field.label),
        &indent,
    )?;
    if let Some(description) = &field.description {
        ui.term
            .wrapped(Tone::Quiet, &format!("{indent}   {description}"), &indent)?;
    }
    for hint in hints(&messages, field) {
        ui.term
            .wrapped(Tone::Quiet, &format!("{indent}   {hint}"), &indent)?;
    }
    if let FieldKind::Choice { options } | FieldKind::MultiChoice { options, .. } = &field.kind {
        let defaults = default_values(field);
        for (number, option) in options.iter().enumerate() {
            let default = if defaults.contains(&option.value) {
                format!(" {}", messages.get("mcp-elicitation-terminal-default-mark"))
            } else {
                String::new()
            };
            ui.term.wrapped(
                Tone::Normal,
                &format!("{indent}   {}) {}{default}", number + 1, option.label),
                &indent,
            )?;
        }
    }
    loop {
        if let Some(problem) = state.shown_problem(schema, index) {
            ui.term.wrapped(
                Tone::Alert,
                &format!("{indent}   ✗ {}", messages.problem(&problem)),
                &indent,
            )?;
        }
        let initial = shown_input(field, state, index, &messages);
        let prompt = Prompt {
            initial: initial.clone(),
            masked: field.secret,
            multiline: matches!(
                field.kind,
                FieldKind::Text {
                    format: TextFormat::Textarea,
                    ..
                }
            ),
            editor: editor(),
            single_key: false,
        };
        let answer = ask_line(ui, prompt)?;
        let untouched = state.fields.get(index).is_some_and(|f| !f.dirty) && answer == initial;
        if !untouched {
            if let Err(hint) = take_answer(field, state, index, &answer, &messages) {
                ui.term
                    .wrapped(Tone::Alert, &format!("{indent}   ✗ {hint}"), &indent)?;
                continue;
            }
        }
        state.visit(index);
        if state.problems(schema, index).is_empty() {
            return Ok(());
        }
    }
}

/// Puts what was typed into the form state; `Err` with a hint when it names no option.
fn take_answer(
    field: &Field,
    state: &mut FormState,
    index: usize,
    answer: &str,
    messages: &Messages,
) -> Result<(), String> {
    match &field.kind {
        FieldKind::Text {
            format: TextFormat::DateTime,
            ..
        } => {
            let (local, offset) = date_time_input(answer.trim());
            state.set_local_date_time(index, local, offset);
        }
        FieldKind::Text { .. } => state.set(index, Input::Text(answer.to_string())),
        FieldKind::Number { .. } => state.set_number(index, answer.trim().to_string(), false),
        FieldKind::Toggle => {
            let word = answer.trim().to_lowercase();
            let yes = messages.get("mcp-elicitation-terminal-yes");
            let no = messages.get("mcp-elicitation-terminal-no");
            let is = |full: &str, english: &str, typed: &str| {
                typed == full
                    || typed == english
                    || full.chars().next().is_some_and(|c| typed == c.to_string())
                    || english
                        .chars()
                        .next()
                        .is_some_and(|c| typed == c.to_string())
            };
            if is(&yes, "yes", &word) {
                state.set(index, Input::Toggle(true));
            } else if is(&no, "no", &word) {
                state.set(index, Input::Toggle(false));
            } else {
                return Err(messages.get("mcp-elicitation-terminal-hint-boolean"));
            }
        }
        FieldKind::Choice { options } => {
            let typed = answer.trim();
            if typed.is_empty() {
                state.set(index, Input::Choice(None));
            } else {
                let value = pick(options, typed).ok_or_else(|| choice_hint(messages, options))?;
                state.set(index, Input::Choice(Some(value)));
            }
        }
        FieldKind::MultiChoice { options, .. } => {
            let mut values = Vec::new();
            for part in answer.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let value = pick(options, part)
                    .ok_or_else(|| messages.get("mcp-elicitation-terminal-hint-multi"))?;
                values.push(value);
            }
            state.set(index, Input::Many(values));
        }
        FieldKind::Tags { .. } => {
            let tags = answer
                .split(',')
                .map(str::trim)
                .filter(|tag| !tag.is_empty())
                .map(str::to_string)
                .collect();
            state.set(index, Input::Many(tags));
        }
    }
    Ok(())
}

/// An option by its number, its value or its label (any case).
fn pick(options: &[Choice], typed: &str) -> Option<String> {
    if let Ok(number) = typed.parse::<usize>() {
        if let Some(option) = number.checked_sub(1).and_then(|i| options.get(i)) {
            return Some(option.value.clone());
        }
    }
    options
        .iter()
        .find(|option| option.value == typed)
        .or_else(|| {
            options.iter().find(|option| {
                option.label.to_lowercase() == typed.to_lowercase()
                    || option.value.to_lowercase() == typed.to_lowercase()
            })
        })
        .map(|option| option.value.clone())
}

fn choice_hint(messages: &Messages, options: &[Choice]) -> String {
    messages.with(
        "mcp-elicitation-terminal-hint-choice",
        &[("count", Arg::Number(options.len() as f64))],
    )
}

/// A typed date-time: with its own offset (`Z`, `±hh:mm`), or local time at this machine's
/// offset for that moment. A space may stand for the `T`.
fn date_time_input(typed: &str) -> (String, i32) {
    let normal = typed.replacen(' ', "T", 1);
    if let Some(split) = split_rfc3339(&normal) {
        return split;
    }
    (normal.clone(), local_offset_minutes(&normal))
}

fn local_offset_minutes(local: &str) -> i32 {
    use chrono::{Local, NaiveDateTime, Offset, TimeZone};
    let parsed = NaiveDateTime::parse_from_str(local, "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| NaiveDateTime::parse_from_str(local, "%Y-%m-%dT%H:%M"));
    let offset = match parsed {
        Ok(naive) => Local
            .from_local_datetime(&naive)
            .earliest()
            .map(|moment| moment.offset().fix().local_minus_utc()),
        Err(_) => None,
    };
    offset.unwrap_or_else(|| Local::now().offset().fix().local_minus_utc()) / 60
}

/// `UTC±hh:mm` now, for the date-time hint.
fn offset_label() -> String {
    use chrono::{Local, Offset};
    let minutes = Local::now().offset().fix().local_minus_utc() / 60;
    let sign = if minutes < 0 { '-' } else { '+' };
    let minutes = minutes.unsigned_abs();
    format!("UTC{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The editor for multi-line answers, when the person has one.
fn editor() -> Option<String> {
    ["VISUAL", "EDITOR"].into_iter().find_map(|name| {
        std::env::var(name)
            .ok()
            .filter(|value| !value.trim().is_empty())
    })
}

fn hints(messages: &Messages, field: &Field) -> Vec<String> {
    let mut hints = Vec::new();
    let number = |value: f64| number_attribute(value);
    match &field.kind {
        FieldKind::Text { format, .. } => match format {
            TextFormat::Date => hints.push(messages.get("mcp-elicitation-terminal-hint-date")),
            TextFormat::DateTime => hints.push(messages.with(
                "mcp-elicitation-terminal-hint-date_time",
                &[("offset", Arg::Text(&offset_label()))],
            )),
            TextFormat::Email => hints.push(messages.get("mcp-elicitation-terminal-hint-email")),
            TextFormat::Uri => hints.push(messages.get("mcp-elicitation-terminal-hint-uri")),
            TextFormat::Textarea => {
                hints.push(messages.get("mcp-elicitation-terminal-hint-textarea"));
                if let Some(editor) = editor() {
                    hints.push(messages.with(
                        "mcp-elicitation-terminal-hint-editor",
                        &[("editor", Arg::Text(&editor))],
                    ));
                }
            }
            TextFormat::Plain => {}
        },
        FieldKind::Number {
            integer,
            minimum,
            maximum,
        } => {
            if *integer {
                hints.push(messages.get("mcp-elicitation-terminal-hint-integer"));
            }
            match (minimum, maximum) {
                (Some(min), Some(max)) => hints.push(messages.with(
                    "mcp-elicitation-terminal-hint-range",
                    &[
                        ("min", Arg::Text(&number(*min))),
                        ("max", Arg::Text(&number(*max))),
                    ],
                )),
                (Some(min), None) => hints.push(messages.with(
                    "mcp-elicitation-terminal-hint-minimum",
                    &[("min", Arg::Text(&number(*min)))],
                )),
                (None, Some(max)) => hints.push(messages.with(
                    "mcp-elicitation-terminal-hint-maximum",
                    &[("max", Arg::Text(&number(*max)))],
                )),
                (None, None) => {}
            }
        }
        FieldKind::Toggle => hints.push(messages.get("mcp-elicitation-terminal-hint-boolean")),
        FieldKind::Choice { options } => hints.push(choice_hint(messages, options)),
        FieldKind::MultiChoice { .. } => {
            hints.push(messages.get("mcp-elicitation-terminal-hint-multi"))
        }
        FieldKind::Tags { .. } => hints.push(messages.get("mcp-elicitation-terminal-hint-tags")),
    }
    if field.secret {
        hints.push(messages.get("mcp-elicitation-terminal-hint-secret"));
    }
    if field.default.is_some() {
        hints.push(messages.get("mcp-elicitation-terminal-hint-keep"));
    }
    hints
}

fn default_values(field: &Field) -> Vec<String> {
    match &field.default {
        Some(Value::String(value)) => vec![value.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// What the input line starts with: the field's current input, as the person would type it.
fn shown_input(field: &Field, state: &FormState, index: usize, messages: &Messages) -> String {
    let Some(current) = state.fields.get(index) else {
        return String::new();
    };
    let number_of = |options: &[Choice], value: &str| {
        options
            .iter()
            .position(|option| option.value == value)
            .map(|i| (i + 1).to_string())
    };
    match (&current.input, &field.kind) {
        (Input::Text(text), _) => text.clone(),
        (Input::Toggle(on), _) => messages.get(if *on {
            "mcp-elicitation-terminal-yes"
        } else {
            "mcp-elicitation-terminal-no"
        }),
        (Input::Choice(Some(value)), FieldKind::Choice { options }) => {
            number_of(options, value).unwrap_or_default()
        }
        (Input::Choice(_), _) => String::new(),
        (Input::Many(values), FieldKind::MultiChoice { options, .. }) => values
            .iter()
            .filter_map(|value| number_of(options, value))
            .collect::<Vec<_>>()
            .join(","),
        (Input::Many(values), _) => values.join(", "),
    }
}

fn show_summary(ui: &mut Ui, schema: &FormSchema, state: &FormState) -> Result<(), Flow> {
    let messages = ui.messages.clone();
    ui.term.raw("\r\n")?;
    ui.term.line(
        Tone::Strong,
        &messages.get("mcp-elicitation-terminal-summary"),
    )?;
    for (index, field) in schema.fields.iter().enumerate() {
        let value = state.value(schema, index).ok().flatten();
        let shown = match (&value, field.secret) {
            (None, _) => messages.get("mcp-elicitation-terminal-empty"),
            (Some(_), true) => messages.get("mcp-elicitation-terminal-hidden"),
            (Some(value), false) => display_value(field, value, &messages),
        };
        let name = if field.path.len() > 1 {
            field.path.join(" › ")
        } else {
            field.label.clone()
        };
        ui.term.wrapped(
            Tone::Normal,
            &format!("  {}. {name}: {shown}", index + 1),
            "     ",
        )?;
    }
    Ok(())
}

/// A value as the person knows it: option labels, yes/no, plain strings.
fn display_value(field: &Field, value: &Value, messages: &Messages) -> String {
    let label = |options: &[Choice], value: &str| {
        options
            .iter()
            .find(|option| option.value == value)
            .map(|option| option.label.clone())
            .unwrap_or_else(|| value.to_string())
    };
    match (value, &field.kind) {
        (Value::String(choice), FieldKind::Choice { options }) => label(options, choice),
        (Value::Array(items), FieldKind::MultiChoice { options, .. }) => items
            .iter()
            .filter_map(Value::as_str)
            .map(|item| label(options, item))
            .collect::<Vec<_>>()
            .join(", "),
        (Value::Array(items), _) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        (Value::Bool(on), _) => messages.get(if *on {
            "mcp-elicitation-terminal-yes"
        } else {
            "mcp-elicitation-terminal-no"
        }),
        (Value::String(text), _) => text.clone(),
        (other, _) => other.to_string(),
    }
}

/// The ending a stop leaves: the user's cancel settles here; a timeout or the server's
/// cancel was settled by the session already.
pub fn ending_for_stop(ui: &mut Ui, stop: crate::lifecycle::Stop) -> Ending {
    use crate::lifecycle::Stop;
    match stop {
        Stop::UserCancel => ui.life.settle(Ending::Cancel(CancelSource::User)),
        Stop::Timeout => ui.life.settle(Ending::Timeout),
        Stop::ServerCancel => ui.life.settle(Ending::Cancel(CancelSource::Server)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Vec<Choice> {
        ["C", "F"]
            .iter()
            .zip(["Celsius", "Fahrenheit"])
            .map(|(value, label)| Choice {
                value: value.to_string(),
                label: label.to_string(),
            })
            .collect()
    }

    #[test]
    fn options_are_picked_by_number_value_or_label() {
        assert_eq!(pick(&options(), "2").as_deref(), Some("F"));
        assert_eq!(pick(&options(), "C").as_deref(), Some("C"));
        assert_eq!(pick(&options(), "fahrenheit").as_deref(), Some("F"));
        assert_eq!(pick(&options(), "3"), None);
        assert_eq!(pick(&options(), "Kelvin"), None);
    }

    #[test]
    fn typed_date_times_keep_an_explicit_offset() {
        assert_eq!(
            date_time_input("2026-05-01 10:30+02:00"),
            ("2026-05-01T10:30".to_string(), 120)
        );
        assert_eq!(
            date_time_input("2026-05-01T10:30Z"),
            ("2026-05-01T10:30".to_string(), 0)
        );
    }
}
