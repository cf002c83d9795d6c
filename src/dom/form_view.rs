//! Builds form mode's fields from the pure state and keeps their shown errors and the accept
//! button in step with it. Server strings go in through `textContent` or a plain attribute value;
//! nothing here parses markup. Each takes its own direction (`dir="auto"`, `<bdi>`), so none can
//! reorder the dialog's own text.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement};

use super::frame::Chrome;
use super::{append, create, create_part, isolated, set_attr, set_server_text, set_textarea_value};
use crate::form::{FormState, Input};
use crate::i18n::{close_bidi_controls, isolate, plain, problem_message, text, Arg, Locale};
use crate::schema::{Choice, ChoiceStyle, Field, FieldKind, FormSchema, Item, TextFormat};

/// A field's control id. Its other nodes add a suffix: `-e` the error, `-d` the description,
/// `-h` a hint, `-l` a group's legend, `-o{n}` an option.
fn field_id(index: usize) -> String {
    format!("kme-f{index}")
}

/// One rendered field: where its value lives and where its error shows.
pub struct FieldView {
    pub index: usize,
    /// The element that gets `aria-invalid` and first focus.
    pub control: Element,
    pub error: Element,
    /// Radios or checkboxes, in option order.
    pub options: Vec<Element>,
    /// Tag input: the list of tags.
    pub tag_list: Option<Element>,
    /// The ids the control's `aria-describedby` always carries (description, hints).
    pub described_by: String,
    /// The error message on screen, so a refresh that changes nothing touches no DOM.
    shown: std::cell::RefCell<Option<String>>,
}

/// The rendered form.
pub struct FormView {
    pub form: Element,
    pub fields: Vec<FieldView>,
    pub accept: Element,
    /// Whether accept carries `disabled` now, so an unchanged refresh touches no DOM.
    accept_disabled: std::cell::Cell<bool>,
}

/// Form mode's parts that no schema changes: the `<form>`, the required-fields legend and the
/// accept button. Built with a frame, ahead of a request (see `frame::blank`).
pub struct FormShell {
    form: Element,
    legend: Element,
    accept: Element,
}

/// Builds the parts of a form that do not depend on its schema, in `locale`.
pub fn shell(document: &Document, locale: Locale) -> FormShell {
    let form = create_part(document, "form", "form", None);
    set_attr(&form, "id", "kme-form");
    set_attr(&form, "novalidate", "");
    let legend = create(document, "p");
    set_attr(&legend, "class", "legend");
    set_attr(&legend, "aria-hidden", "true");
    legend.set_text_content(Some(&plain(locale, "mcp-elicitation-required-legend")));
    let accept = create_part(
        document,
        "button",
        "accept",
        Some(&plain(locale, "mcp-elicitation-action-accept")),
    );
    set_attr(&accept, "type", "submit");
    set_attr(&accept, "form", "kme-form");
    FormShell {
        form,
        legend,
        accept,
    }
}

/// Builds the form for `schema` with the values of `state`, into a `shell` built in `locale`.
pub fn form(
    document: &Document,
    locale: Locale,
    chrome: &Chrome,
    shell: FormShell,
    schema: &FormSchema,
    state: &FormState,
    local_date_time: &dyn Fn(&str) -> String,
) -> FormView {
    if schema.asks_for_secret() {
        let warning = create_part(
            document,
            "p",
            "warning",
            Some(&plain(locale, "mcp-elicitation-secret-warning")),
        );
        set_attr(&warning, "role", "note");
        append(&chrome.body, &warning);
    }
    let FormShell {
        form,
        legend,
        accept,
    } = shell;
    if schema.fields.iter().any(|field| field.required) {
        append(&form, &legend);
    }
    let mut builder = FormBuilder {
        document,
        locale,
        schema,
        state,
        views: Vec::with_capacity(schema.fields.len()),
        local_date_time,
    };
    builder.items(&form, &schema.layout);
    let mut views = builder.views;
    crate::sort::sort_by_less(&mut views, |a, b| a.index < b.index);
    append(&chrome.body, &form);
    append(&chrome.body, &chrome.reason_box);
    append(&chrome.actions, &accept);
    FormView {
        form,
        fields: views,
        accept,
        accept_disabled: std::cell::Cell::new(false),
    }
}

struct FormBuilder<'a> {
    document: &'a Document,
    locale: Locale,
    schema: &'a FormSchema,
    state: &'a FormState,
    views: Vec<FieldView>,
    local_date_time: &'a dyn Fn(&str) -> String,
}

impl FormBuilder<'_> {
    fn items(&mut self, parent: &Element, items: &[Item]) {
        for item in items {
            match item {
                Item::Field(index) => {
                    if let (Some(field), Some(state)) = (
                        self.schema.fields.get(*index),
                        self.state.fields.get(*index),
                    ) {
                        let wrapper = self.field(*index, field, &state.input, state.dirty);
                        append(parent, &wrapper);
                    }
                }
                Item::Group(group) => {
                    let fieldset = create(self.document, "fieldset");
                    set_attr(&fieldset, "class", "group");
                    set_attr(
                        &fieldset,
                        "data-group",
                        &crate::strings::join(&group.path, "."),
                    );
                    let legend = create(self.document, "legend");
                    self.name(&legend, &group.label, group.required);
                    append(&fieldset, &legend);
                    if let Some(description) = &group.description {
                        let paragraph = server_paragraph(self.document, description);
                        append(&fieldset, &paragraph);
                    }
                    self.items(&fieldset, &group.items);
                    append(parent, &fieldset);
                }
            }
        }
    }

    /// A field's or group's name into `parent` (a label or legend): `text`, isolated, and when
    /// `required` an asterisk.
    fn name(&self, parent: &Element, text: &str, required: bool) {
        append(parent, &isolated(self.document, text, None));
        if required {
            // The asterisk is visual only; aria-required says it to screen readers.
            let mark = create(self.document, "span");
            set_attr(&mark, "class", "required");
            set_attr(&mark, "aria-hidden", "true");
            mark.set_text_content(Some(" *"));
            append(parent, &mark);
        }
    }

    fn field(&mut self, index: usize, field: &Field, input: &Input, dirty: bool) -> Element {
        let document = self.document;
        let id = field_id(index);
        let wrapper = create_part(document, "div", "field", None);
        set_attr(&wrapper, "data-field", &field.key());
        // Its id is given when it first shows a message, the only time anything points at it.
        let error = create_part(document, "p", "error", None);
        set_attr(&error, "aria-live", "polite");
        let mut parts = FieldParts {
            id,
            wrapper,
            error,
            description: None,
            described_by: Vec::new(),
            options: Vec::new(),
            tag_list: None,
        };
        if let Some(text) = &field.description {
            let paragraph = server_paragraph(document, text);
            let description_id = format!("{}-d", parts.id);
            set_attr(&paragraph, "id", &description_id);
            parts.described_by.push(description_id);
            parts.description = Some(paragraph);
        }
        let control = self.control(&mut parts, index, field, input, dirty);
        set_attr(&control, "id", &parts.id);
        set_attr(&control, "data-index", &index.to_string());
        let FieldParts {
            wrapper,
            error,
            described_by,
            options,
            tag_list,
            ..
        } = parts;
        let described_by = crate::strings::join(&described_by, " ");
        if !described_by.is_empty() {
            // Radios and checkboxes take focus one by one: each carries the description too.
            for element in std::iter::once(&control).chain(&options) {
                set_attr(element, "aria-describedby", &described_by);
            }
        }
        self.views.push(FieldView {
            index,
            control,
            error,
            options,
            tag_list,
            described_by,
            shown: std::cell::RefCell::new(None),
        });
        wrapper
    }

    /// Radios (segmented choices) or a checkbox group: a fieldset whose legend names the group.
    fn choice_group(
        &self,
        parts: &mut FieldParts,
        field: &Field,
        choices: &[Choice],
        multi: bool,
        input: &Input,
    ) -> Element {
        let document = self.document;
        let id = &parts.id;
        let fieldset = create(document, "fieldset");
        set_attr(&fieldset, "class", "choices");
        let legend = self.group_legend(field, multi);
        set_attr(&legend, "id", &format!("{id}-l"));
        append(&fieldset, &legend);
        if let Some(description) = &parts.description {
            append(&fieldset, description);
        }
        // The fieldset is the one group a screen reader announces (named by its legend):
        // a radiogroup for radios, so it can say "required"; a plain group for checkboxes.
        let list = create(document, "div");
        if !multi {
            set_attr(&fieldset, "role", "radiogroup");
            set_attr(&list, "class", "segmented");
            if field.required {
                set_attr(&fieldset, "aria-required", "true");
            }
        }
        for (position, choice) in choices.iter().enumerate() {
            let (label, option) = self.choice_option(id, position, choice, multi, input);
            append(&list, &label);
            parts.options.push(option);
        }
        append(&fieldset, &list);
        append(&fieldset, &parts.error);
        append(&parts.wrapper, &fieldset);
        fieldset
    }

    /// A choice group's legend: its label, and when required the asterisk (and, for checkboxes,
    /// the word said to screen readers).
    fn group_legend(&self, field: &Field, multi: bool) -> Element {
        let document = self.document;
        let legend = create_part(document, "legend", "label", None);
        self.name(&legend, &field.label, field.required);
        if field.required && multi {
            // A checkbox group cannot carry aria-required: its name says it instead.
            let said = create(document, "span");
            set_attr(&said, "class", "visually-hidden");
            said.set_text_content(Some(&format!(
                " ({})",
                plain(self.locale, "mcp-elicitation-field_required")
            )));
            append(&legend, &said);
        }
        legend
    }

    /// One radio or checkbox inside the label that names it (no `for` needed): (label, input).
    fn choice_option(
        &self,
        id: &str,
        position: usize,
        choice: &Choice,
        multi: bool,
        input: &Input,
    ) -> (Element, Element) {
        let document = self.document;
        let label = create(document, "label");
        if multi {
            set_attr(&label, "class", "check");
        }
        let option = create(document, "input");
        set_attr(&option, "type", if multi { "checkbox" } else { "radio" });
        set_attr(&option, "id", &format!("{id}-o{position}"));
        set_attr(&option, "name", id);
        set_attr(&option, "value", &choice.value);
        // A new input starts unchecked: only a chosen option needs the call.
        if chosen(input, choice) {
            option.unchecked_ref::<HtmlInputElement>().set_checked(true);
        }
        append(&label, &option);
        append(&label, &server_span(document, &choice.label));
        (label, option)
    }

    /// The field's control, built as its kind wants: one match over every kind, so a kind added
    /// to the core does not compile until it is rendered here.
    fn control(
        &self,
        parts: &mut FieldParts,
        index: usize,
        field: &Field,
        input: &Input,
        dirty: bool,
    ) -> Element {
        let typed = typed(input);
        let control = match &field.kind {
            FieldKind::Text {
                format: TextFormat::Textarea,
                ..
            } => Control::Labelled(self.textarea(input), Layout::Stacked),
            // No maxlength attribute: the browser would silently cut pasted text; the validator
            // tells the user instead.
            FieldKind::Text {
                format,
                min_length,
                max_length: _,
            } => {
                let line = self.text_input(field, *format, *min_length, typed, dirty);
                Control::Labelled(line, Layout::Stacked)
            }
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            } => {
                let line = self.number_input(*integer, *minimum, *maximum, typed);
                Control::Labelled(line, Layout::Stacked)
            }
            FieldKind::Toggle => Control::Labelled(self.switch(input), Layout::Switch),
            FieldKind::Tags { .. } => Control::Labelled(self.tag_input(), Layout::Tags),
            FieldKind::Choice { options } => match FieldKind::choice_style(options) {
                ChoiceStyle::Segmented => Control::Group(options, false),
                ChoiceStyle::Dropdown => {
                    Control::Labelled(self.select(options, input), Layout::Stacked)
                }
            },
            FieldKind::MultiChoice { options, .. } => Control::Group(options, true),
        };
        match control {
            Control::Labelled(element, layout) => {
                self.labelled(parts, index, field, input, element, layout)
            }
            Control::Group(choices, multi) => {
                self.choice_group(parts, field, choices, multi, input)
            }
        }
    }

    /// `element` named by a `<label for>`, laid out as `layout` says, with the field's
    /// description and error.
    fn labelled(
        &self,
        parts: &mut FieldParts,
        index: usize,
        field: &Field,
        input: &Input,
        element: Element,
        layout: Layout,
    ) -> Element {
        let label = create_part(self.document, "label", "label", None);
        self.name(&label, &field.label, field.required);
        set_attr(&label, "for", &parts.id);
        if field.required {
            set_attr(&element, "aria-required", "true");
        }
        if field.secret {
            set_attr(&element, "autocomplete", "off");
        }
        let wrapper = &parts.wrapper;
        match layout {
            Layout::Stacked => {
                append(wrapper, &label);
                append_description(wrapper, parts);
                append(wrapper, &element);
            }
            Layout::Switch => {
                let row = create(self.document, "div");
                set_attr(&row, "class", "switch");
                append(&row, &element);
                append(&row, &label);
                append(wrapper, &row);
                append_description(wrapper, parts);
            }
            Layout::Tags => {
                append(wrapper, &label);
                append_description(wrapper, parts);
                self.tag_box(parts, index, field, input, &element);
            }
        }
        append(&parts.wrapper, &parts.error);
        element
    }

    /// A one-line input of `format`'s type (a password for secret plain text) holding `value`.
    fn text_input(
        &self,
        field: &Field,
        format: TextFormat,
        min_length: Option<u64>,
        value: &str,
        dirty: bool,
    ) -> Element {
        let element = create(self.document, "input");
        let kind = match format {
            TextFormat::Email => "email",
            TextFormat::Uri => "url",
            TextFormat::Date => "date",
            TextFormat::DateTime => "datetime-local",
            TextFormat::Plain | TextFormat::Textarea if field.secret => "password",
            TextFormat::Plain | TextFormat::Textarea => "text",
        };
        set_attr(&element, "type", kind);
        if kind == "text" {
            // What is typed (or a server's default) takes its own direction.
            set_attr(&element, "dir", "auto");
        }
        if format == TextFormat::DateTime {
            set_attr(&element, "step", "1");
        }
        if let Some(min) = min_length {
            set_attr(&element, "minlength", &min.to_string());
        }
        if format == TextFormat::DateTime && !dirty && !value.is_empty() {
            set_input_value(&element, &(self.local_date_time)(value));
        } else {
            set_input_value(&element, value);
        }
        element
    }

    /// A number input holding `value`, whole numbers only when `integer`.
    fn number_input(
        &self,
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
        value: &str,
    ) -> Element {
        let element = create(self.document, "input");
        set_attr(&element, "type", "number");
        set_attr(&element, "step", if integer { "1" } else { "any" });
        if let Some(min) = minimum {
            set_attr(&element, "min", &crate::form::number_attribute(min));
        }
        if let Some(max) = maximum {
            set_attr(&element, "max", &crate::form::number_attribute(max));
        }
        set_input_value(&element, value);
        element
    }

    /// A checkbox shown as a switch.
    fn switch(&self, input: &Input) -> Element {
        let element = create(self.document, "input");
        set_attr(&element, "type", "checkbox");
        set_attr(&element, "role", "switch");
        if let (Some(checkbox), Input::Toggle(on)) = (element.dyn_ref::<HtmlInputElement>(), input)
        {
            checkbox.set_checked(*on);
        }
        element
    }

    /// A multi-line text box.
    fn textarea(&self, input: &Input) -> Element {
        let area = create(self.document, "textarea");
        set_attr(&area, "dir", "auto");
        if let Input::Text(value) = input {
            set_textarea_value(&area, value);
        }
        area
    }

    /// A drop-down of `choices` after a placeholder option.
    fn select(&self, choices: &[Choice], input: &Input) -> Element {
        let document = self.document;
        let select = create(document, "select");
        let placeholder = create(document, "option");
        set_attr(&placeholder, "value", "");
        placeholder.set_text_content(Some(&plain(
            self.locale,
            "mcp-elicitation-select-placeholder",
        )));
        append(&select, &placeholder);
        for choice in choices {
            let option = create(document, "option");
            set_attr(&option, "value", &choice.value);
            set_attr(&option, "dir", "auto");
            set_server_text(&option, &choice.label);
            if chosen(input, choice) {
                set_attr(&option, "selected", "");
            }
            append(&select, &option);
        }
        select
    }

    /// The text input that adds a tag (see [`Self::tag_box`]).
    fn tag_input(&self) -> Element {
        let element = create(self.document, "input");
        set_attr(&element, "type", "text");
        set_attr(&element, "dir", "auto");
        set_attr(&element, "data-tags", "");
        element
    }

    /// A tag input: the list of tags so far, the text input `element` that adds one, and a hint.
    fn tag_box(
        &self,
        parts: &mut FieldParts,
        index: usize,
        field: &Field,
        input: &Input,
        element: &Element,
    ) {
        let document = self.document;
        let tags = create(document, "div");
        set_attr(&tags, "class", "tags");
        let list = create(document, "ul");
        set_attr(&list, "aria-label", &close_bidi_controls(&field.label));
        if let Input::Many(values) = input {
            for value in values {
                append(&list, &tag_item(document, self.locale, index, value));
            }
        }
        append(&tags, &list);
        append(&tags, element);
        let hint = create(document, "p");
        set_attr(&hint, "class", "description");
        let hint_id = format!("{}-h", parts.id);
        set_attr(&hint, "id", &hint_id);
        hint.set_text_content(Some(&plain(self.locale, "mcp-elicitation-tags-hint")));
        parts.described_by.push(hint_id);
        append(&tags, &hint);
        append(&parts.wrapper, &tags);
        parts.tag_list = Some(list);
    }
}

/// What one field's builders share while they build it.
struct FieldParts {
    /// The control's id (see [`field_id`]).
    id: String,
    wrapper: Element,
    error: Element,
    /// The field's description paragraph, if it has one.
    description: Option<Element>,
    /// The ids the control's `aria-describedby` always carries.
    described_by: Vec<String>,
    /// Radios or checkboxes, in option order.
    options: Vec<Element>,
    /// Tag input: the list of tags.
    tag_list: Option<Element>,
}

/// A field's control: one element named by a `<label for>`, or a group of radios or checkboxes
/// (the choices, and whether several may be chosen).
enum Control<'a> {
    Labelled(Element, Layout),
    Group(&'a [Choice], bool),
}

/// How a labelled control sits beside its label.
enum Layout {
    /// Label, description, control.
    Stacked,
    /// The control, then its label, in one row; the description below.
    Switch,
    /// Label, description, then the tag box around the control (with the field's tags so far).
    Tags,
}

/// What a text or number control holds.
fn typed(input: &Input) -> &str {
    match input {
        Input::Text(value) => value.as_str(),
        _ => "",
    }
}

/// Whether `input` has `choice` chosen (as the one of a choice, or one of several).
fn chosen(input: &Input, choice: &Choice) -> bool {
    match input {
        Input::Choice(Some(value)) => value == &choice.value,
        Input::Many(values) => values.contains(&choice.value),
        _ => false,
    }
}

/// The description, if the field has one, next in `wrapper`.
fn append_description(wrapper: &Element, parts: &FieldParts) {
    if let Some(description) = &parts.description {
        append(wrapper, description);
    }
}

/// A paragraph of server text (a description) that takes its own direction.
fn server_paragraph(document: &Document, text: &str) -> Element {
    let paragraph = create(document, "p");
    set_attr(&paragraph, "class", "description");
    set_attr(&paragraph, "dir", "auto");
    set_server_text(&paragraph, text);
    paragraph
}

/// A span of server text (an option's title, a tag) isolated in its own direction.
fn server_span(document: &Document, text: &str) -> Element {
    let span = create(document, "span");
    set_attr(&span, "dir", "auto");
    set_server_text(&span, text);
    span
}

/// Fills a new input; one left empty needs no call.
fn set_input_value(element: &Element, value: &str) {
    if value.is_empty() {
        return;
    }
    if let Some(input) = element.dyn_ref::<HtmlInputElement>() {
        input.set_value(value);
    }
}

/// One tag with its remove button.
pub fn tag_item(document: &Document, locale: Locale, index: usize, value: &str) -> Element {
    let item = create(document, "li");
    let caption = server_span(document, value);
    let remove = create(document, "button");
    set_attr(&remove, "type", "button");
    set_attr(&remove, "data-remove-tag", value);
    set_attr(&remove, "data-index", &index.to_string());
    // An attribute cannot hold a <bdi>: the tag is isolated by FSI … PDI inside the label.
    set_attr(
        &remove,
        "aria-label",
        &text(
            locale,
            "mcp-elicitation-tags-remove",
            &[("tag", Arg::Text(&isolate(value)))],
        ),
    );
    remove.set_text_content(Some("×"));
    append(&item, &caption);
    append(&item, &remove);
    item
}

/// Shows or clears a field's error and keeps `aria-invalid` / `aria-describedby` in step.
pub fn show_problem(view: &FieldView, message: Option<&str>) {
    if view.shown.borrow().as_deref() == message {
        return;
    }
    *view.shown.borrow_mut() = message.map(str::to_string);
    view.error.set_text_content(message);
    let mut described = view.described_by.clone();
    if message.is_some() {
        let error_id = format!("{}-e", field_id(view.index));
        set_attr(&view.error, "id", &error_id);
        set_attr(&view.control, "aria-invalid", "true");
        if !described.is_empty() {
            described.push(' ');
        }
        described.push_str(&error_id);
    } else {
        super::remove_attr(&view.control, "aria-invalid");
    }
    // Radios and checkboxes take focus one by one: each carries the description and error too.
    for element in std::iter::once(&view.control).chain(&view.options) {
        if described.is_empty() {
            super::remove_attr(element, "aria-describedby");
        } else {
            set_attr(element, "aria-describedby", &described);
        }
    }
}

/// Refreshes every field's shown error and the accept button.
pub fn refresh_form(view: &FormView, schema: &FormSchema, state: &FormState, locale: Locale) {
    refresh_fields(view, schema, state, locale, |_| true);
}

/// Refreshes the shown error of the fields `which` picks, then the accept button. A keystroke
/// touches one field (or one nested object), so the DOM work does not grow with the form.
pub fn refresh_fields(
    view: &FormView,
    schema: &FormSchema,
    state: &FormState,
    locale: Locale,
    which: impl Fn(usize) -> bool,
) {
    for field in view.fields.iter().filter(|field| which(field.index)) {
        let problem = state.shown_problem(schema, field.index);
        let message = problem.map(|problem| problem_message(locale, &problem));
        show_problem(field, message.as_deref());
    }
    refresh_accept(view, schema, state);
}

/// Disables accept while any field is invalid.
pub fn refresh_accept(view: &FormView, schema: &FormSchema, state: &FormState) {
    let disabled = !state.is_valid(schema);
    if view.accept_disabled.replace(disabled) == disabled {
        return;
    }
    if disabled {
        set_attr(&view.accept, "disabled", "");
    } else {
        super::remove_attr(&view.accept, "disabled");
    }
}
