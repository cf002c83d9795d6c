//! The core alone, as the web element would need it from a wasm module with no DOM, no JS glue and
//! no stylesheet: every core call the element makes, each reachable from a C-ABI export so that
//! link-time optimisation keeps it. `npm run bench` builds this module the way the element's is built
//! (the release profile, `wasm-opt -Oz`) and prints its gzip size beside the element's: whatever the
//! web layer becomes, the element cannot be smaller than this without a smaller core.
//!
//! Nothing calls these exports; they exist to be measured. Strings arrive as (pointer, length) and
//! leave as a pointer to a leaked `Box<str>`, which is enough for a module that only has to link.

use koder_mcp_elicitation_core::form::{self, FormState, Input};
use koder_mcp_elicitation_core::i18n::{self, Locale};
use koder_mcp_elicitation_core::policy::{self, Announcements, PollBackoff};
use koder_mcp_elicitation_core::reply::{CancelSource, Ending};
use koder_mcp_elicitation_core::request::{parse_request_text, Mode, ParseOptions, Request};
use koder_mcp_elicitation_core::scope::{DraftStore, Scope, Tenant};
use koder_mcp_elicitation_core::session::{Admit, Session};
use koder_mcp_elicitation_core::url::{self, UrlParts};
use koder_mcp_elicitation_core::url_rounds::{waits_for_completion, UrlConsents, UrlStep};
use koder_mcp_elicitation_core::{content, input_required, json, required};
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
// SAFETY: a wasm module without threads, as the element's (src/allocator.rs).
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };

/// A string the caller wrote at `pointer` (invalid UTF-8 reads as empty).
///
/// # Safety
/// `pointer` must address `length` readable bytes.
unsafe fn text<'a>(pointer: *const u8, length: usize) -> &'a str {
    std::str::from_utf8(std::slice::from_raw_parts(pointer, length)).unwrap_or_default()
}

fn leak(text: String) -> *const u8 {
    Box::leak(text.into_boxed_str()).as_ptr()
}

fn options(strict: bool) -> ParseOptions {
    ParseOptions {
        strict,
        local_id: String::from("local"),
    }
}

fn tenant(name: &str) -> Tenant {
    Tenant {
        user_id: name.to_string(),
        workspace_id: name.to_string(),
        conversation_id: name.to_string(),
    }
}

/// Room for the caller to write `length` bytes.
#[no_mangle]
pub extern "C" fn reserve(length: usize) -> *mut u8 {
    Box::leak(vec![0u8; length].into_boxed_slice()).as_mut_ptr()
}

/// An open, a session of edits and an accept: what one form-mode dialog asks of the core.
///
/// # Safety
/// Each (pointer, length) pair must address readable bytes.
#[no_mangle]
pub unsafe extern "C" fn open_and_answer(
    request: *const u8,
    request_length: usize,
    edit: *const u8,
    edit_length: usize,
    languages: *const u8,
    languages_length: usize,
    strict: bool,
    now: f64,
) -> *const u8 {
    leak(dialog(
        text(request, request_length),
        text(edit, edit_length),
        text(languages, languages_length),
        strict,
        now,
    ))
}

/// The work behind `open_and_answer`, with what it shows written out.
fn dialog(request: &str, edit: &str, languages: &str, strict: bool, now: f64) -> String {
    let locale = Locale::negotiate(languages.lines());
    let request: Request = match parse_request_text(request, &options(strict)) {
        Ok(request) => request,
        Err(error) => return error.message,
    };
    let mut session: Session<u32, FormState> = Session::default();
    let mut drafts: DraftStore<String> = DraftStore::default();
    let scope = Scope {
        tenant: tenant(edit),
        server: edit.to_string(),
        elicitation_id: request.elicitation_id.clone(),
    };
    let admit = Admit {
        server: edit.to_string(),
        tenant: tenant(edit),
        elicitation_id: request.elicitation_id.clone(),
        awaits_completion: waits_for_completion(&request),
        timeout_ms: policy::timeout_ms(Some(now), request.timeout_ms, None),
        rate_limit: policy::rate_limit(Some(now)),
    };
    let mut shown = String::new();
    let Mode::Form(schema) = &request.mode else {
        let parts = UrlParts {
            scheme: edit.to_string(),
            username: String::new(),
            password: String::new(),
            host: edit.to_string(),
            href: edit.to_string(),
        };
        let verdict = url::judge(Some(&parts));
        let mut consents = UrlConsents::default();
        let step = consents.step(&scope.tenant, edit, &request, &verdict);
        if verdict.may_open() {
            shown.push_str(edit);
        }
        if step == UrlStep::Resume {
            shown.push_str(&parts.href);
        }
        consents.settled(&scope.tenant, edit, &request, &Ending::Accept(None));
        shown.push_str(&consents.len().to_string());
        return shown;
    };
    let mut state = FormState::new(schema);
    if let Ok(Value::Object(answers)) = json::parse(edit) {
        for unknown in state.fill(schema, &answers) {
            shown.push_str(&unknown);
        }
    }
    for index in 0..schema.fields.len() {
        match now as u32 % 5 {
            0 => state.set(index, Input::Text(edit.to_string())),
            1 => state.set(index, Input::Toggle(edit.is_empty())),
            2 => state.set(index, Input::Choice(Some(edit.to_string()))),
            3 => state.set_number(index, edit.to_string(), false),
            _ => state.set_local_date_time(index, edit.to_string(), now as i32),
        }
        state.visit(index);
        if let Some(problem) = state.shown_problem(schema, index) {
            shown.push_str(&i18n::problem_message(locale, &problem));
        }
        if let Some(number) = form::read_decimal(edit) {
            shown.push_str(&form::number_attribute(number));
        }
    }
    if let Some(index) = state
        .first_invalid(schema)
        .filter(|_| !state.is_valid(schema))
    {
        shown.push_str(&index.to_string());
    }
    let (ticket, _) = session.admit_in_batch(now, admit, Some(now as u64), 1, state.clone());
    let mut announcements = Announcements::default();
    let mut backoff = PollBackoff::new(Some(now));
    backoff.failed();
    let seconds = session.countdown_seconds(now);
    if let Some(seconds) = announcements.on_countdown(seconds) {
        shown.push_str(&seconds.to_string());
    }
    if let Some((position, total)) = session.queue_position(edit.len()) {
        shown.push_str(&position.to_string());
        shown.push_str(&total.to_string());
    }
    shown.push_str(&form::number_attribute(backoff.delay_ms()));
    shown.push_str(&i18n::text(locale, edit, &[("n", i18n::Arg::Number(now))]));
    shown.push_str(&i18n::plain(locale, edit));
    let ending = match state.content(schema) {
        Ok(content) => Ending::Accept(Some(content)),
        Err(_) if now > 1.0 => Ending::Decline {
            reason: Some(edit.to_string()),
        },
        Err(_) => Ending::Cancel(CancelSource::User),
    };
    if policy::keeps_draft(&ending) {
        drafts.put(scope, edit.to_string());
    }
    shown.push_str(ending.event_name());
    if let Some(reply) = ending.reply(&request.protocol, request.id.as_ref()) {
        shown.push_str(&json::write(&reply));
    }
    if matches!(ending, Ending::Cancel(_)) {
        let _ = session.close_in_batch(ticket, ending);
    } else {
        let _ = session.settle(ticket, ending);
    }
    let _ = session.tick(policy::next_wake(now, now, session.next_deadline()));
    let _ = session.change_tenant(&tenant(""));
    shown.push_str(&drafts.len().to_string());
    shown
}

/// `validateContent(schema, content)`: the number of errors, their messages written out.
///
/// # Safety
/// Each (pointer, length) pair must address readable bytes.
#[no_mangle]
pub unsafe extern "C" fn validate_content(
    schema: *const u8,
    schema_length: usize,
    answer: *const u8,
    answer_length: usize,
) -> *const u8 {
    let read = |pointer, length| json::parse_argument(text(pointer, length), "content");
    let (Ok(schema), Ok(answer)) = (read(schema, schema_length), read(answer, answer_length))
    else {
        return leak(String::new());
    };
    match content::validate_content(&schema, &answer, Locale::negotiate(["en-US"])) {
        Ok(errors) => leak(errors.into_iter().map(|error| error.message).collect()),
        Err(error) => leak(error.message),
    }
}

/// `registerTranslation(tag, ftl)`: whether the translation was taken.
///
/// # Safety
/// Each (pointer, length) pair must address readable bytes.
#[no_mangle]
pub unsafe extern "C" fn register_translation(
    tag: *const u8,
    tag_length: usize,
    ftl: *const u8,
    ftl_length: usize,
) -> bool {
    i18n::register_translation(text(tag, tag_length), text(ftl, ftl_length)).is_ok()
}

/// `elicitRequired(error)`: how many URL elicitations the error holds.
///
/// # Safety
/// The (pointer, length) pair must address readable bytes.
#[no_mangle]
pub unsafe extern "C" fn required_count(error: *const u8, error_length: usize) -> usize {
    required::parse_required_text(text(error, error_length), &options(false))
        .map(|requests| requests.len())
        .unwrap_or_default()
}

/// `elicitInputs(round)`: how many elicitations the round holds.
///
/// # Safety
/// The (pointer, length) pair must address readable bytes.
#[no_mangle]
pub unsafe extern "C" fn input_round_count(round: *const u8, round_length: usize) -> usize {
    input_required::parse_input_round_text(text(round, round_length), &options(false))
        .map(|round| round.elicitations.len())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::dialog;

    #[test]
    fn the_measured_exports_do_the_work_they_stand_for() {
        let request = r#"{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":2}},"required":["name"]}}"#;
        let accepted = dialog(request, "Ada", "pt-BR", false, 0.0);
        assert!(accepted.contains("accept"), "{accepted}");
        assert!(accepted.contains(r#""name":"Ada""#), "{accepted}");
        let declined = dialog(request, "A", "pt-BR", false, 2.0);
        assert!(declined.contains("decline"), "{declined}");
    }
}
