//! The dialog on screen: which elicitation shows, rendering it, the queue position, the countdown
//! and its announcements, the one timer that wakes the element, and the next dialog's parts built
//! while it is idle.

use gloo_timers::callback::Timeout;
use web_sys::{Document, Element};

use super::calls::run_weak;
use super::effects::Effects;
use super::focus::{deep_active_element, field_focus_target};
use super::platform::{browser_url_parts, local_date_time, now};
use super::{Body, ElementEntry, Held, Inner, View};
use crate::dom::form_view::FormShell;
use crate::dom::frame::{self, Chrome, Heading, Presentation};
use crate::dom::{append, document, set_attr, set_hidden};
use crate::dom::{form_view, one_tap_view, url_view};
use crate::i18n::{plain, text, Arg, Locale};
use crate::policy::next_wake;
use crate::request::Mode;
use crate::session::Ticket;
use crate::url::{judge, UrlParts, UrlVerdict};
use crate::url_rounds::UrlStep;

/// How long after a dialog appears its first announcement is made, so screen readers notice it.
const ANNOUNCE_DELAY_MS: u32 = 150;
/// Fills `live` with `message` after [`ANNOUNCE_DELAY_MS`]; dropping the timer cancels it.
pub(super) fn announce_soon(live: Element, message: String) -> Timeout {
    Timeout::new(ANNOUNCE_DELAY_MS, move || {
        live.set_text_content(Some(&message));
    })
}

/// `setTimeout` takes a signed 32-bit delay.
const MAX_TIMER_MS: f64 = 2_147_483_647.0;

/// A delay for `setTimeout`, from milliseconds that may be huge or negative.
pub(super) fn timer_delay(ms: f64) -> u32 {
    ms.clamp(0.0, MAX_TIMER_MS).ceil() as u32
}

/// A dialog's parts that no request changes, built ahead while no dialog shows, so an open only
/// fills in the request's texts and builds its fields (≈ 90 fewer DOM calls). Detached and
/// without listeners: dropping it leaves nothing behind.
pub(super) struct Spare {
    /// The language its texts are in; an open in another one builds afresh.
    locale: Locale,
    /// The dialog or the inline card.
    presentation: Presentation,
    chrome: Chrome,
    form_shell: FormShell,
}

impl Spare {
    fn build(document: &Document, locale: Locale, presentation: Presentation) -> Spare {
        Spare {
            locale,
            presentation,
            chrome: frame::blank(document, locale, presentation),
            form_shell: form_view::shell(document, locale),
        }
    }

    /// The frame for a view: the spare's when it was built in this language and presentation,
    /// else a fresh one (without a form shell, so only what the mode uses is built).
    fn take_or_build(
        spare: &mut Option<Spare>,
        document: &Document,
        locale: Locale,
        presentation: Presentation,
    ) -> (Chrome, Option<FormShell>) {
        match spare
            .take()
            .filter(|spare| spare.locale == locale && spare.presentation == presentation)
        {
            Some(spare) => (spare.chrome, Some(spare.form_shell)),
            None => (frame::blank(document, locale, presentation), None),
        }
    }
}

impl Inner {
    /// The clock moved: expire what is due, and keep the countdown current.
    pub(super) fn tick(&mut self, fx: &mut Effects) {
        let changes = self.session.tick(now());
        self.finish(fx, changes);
        if self.screen.view.is_some() {
            self.sync_view(fx, false);
        }
    }

    /// Renders the elicitation at the front of the queue (or nothing), and keeps the queue
    /// position, countdown and timer current. `force` rebuilds the same dialog (language change).
    pub(super) fn sync_view(&mut self, fx: &mut Effects, force: bool) {
        let front = self
            .session
            .front()
            .map(|entry| (entry.ticket, entry.waiting));
        let current = self
            .screen
            .view
            .as_ref()
            .map(|view| (view.ticket, view.waiting));
        let showing = front.filter(|_| self.connected);
        if force || current != showing {
            let focused_index = self.focused_field_index();
            // A rebuild of the same dialog (language change) keeps the reject reason typed so far.
            let mut kept_reason = None;
            if let Some(old) = self.screen.view.take() {
                if showing.is_some_and(|(ticket, _)| ticket == old.ticket) {
                    kept_reason = Some(frame::reason_state(&old.chrome));
                }
                fx.close.push(old.chrome.dialog.clone());
            }
            match showing {
                Some((ticket, waiting)) => {
                    // Inline takes no focus on its own, so there is none to give back.
                    if current.is_none() && self.presentation() == Presentation::Modal {
                        self.screen.opener = deep_active_element();
                    }
                    let arrived = current.map(|(shown, _)| shown) != Some(ticket);
                    if let Some(view) = self.render(fx, ticket, waiting, focused_index, arrived) {
                        if let Some(kept) = &kept_reason {
                            frame::restore_reason(&view.chrome, kept);
                        }
                        fx.show = Some(view.chrome.dialog.clone());
                        self.screen.view = Some(view);
                    }
                }
                None => {
                    fx.restore_focus = self.screen.opener.take();
                }
            }
        }
        self.refresh_status(fx);
        self.schedule();
        self.schedule_spare();
    }

    /// While no dialog shows, builds the next one's [`Spare`] in a task of its own, so the close
    /// that made the element idle has settled and dispatched before the work starts.
    fn schedule_spare(&mut self) {
        let idle = self.screen.view.is_none() && self.connected;
        if !idle || self.screen.spare.is_some() || self.screen.spare_timer.is_some() {
            return;
        }
        let shared = self.shared.clone();
        self.screen.spare_timer = Some(Timeout::new(0, move || {
            run_weak(&shared, |inner, _| inner.build_spare());
        }));
    }

    fn build_spare(&mut self) {
        self.screen.spare_timer = None;
        if self.connected && self.screen.spare.is_none() {
            self.screen.spare = Some(Spare::build(
                &document(),
                self.locale(),
                self.presentation(),
            ));
        }
    }

    fn focused_field_index(&self) -> Option<usize> {
        let active = self.shadow.active_element()?;
        super::events::field_index(&active)
    }

    /// The queue position and the countdown, with its announcements.
    fn refresh_status(&mut self, fx: &mut Effects) {
        let position = self.session.queue_position(self.flow_done_before_front());
        let Some(view) = &self.screen.view else {
            self.screen.announcements.on_countdown(None);
            return;
        };
        let locale = view.locale;
        if let Some((position, total)) = position {
            let args = [
                ("position", Arg::Number(position as f64)),
                ("total", Arg::Number(total as f64)),
            ];
            view.chrome
                .queue
                .set_text_content(Some(&text(locale, "mcp-elicitation-queue", &args)));
            set_attr(
                &view.chrome.queue,
                "aria-label",
                &text(locale, "mcp-elicitation-queue-announce", &args),
            );
            set_hidden(&view.chrome.queue, false);
        } else {
            set_hidden(&view.chrome.queue, true);
        }
        let seconds = self
            .session
            .countdown_seconds(now())
            .filter(|_| !view.waiting);
        match seconds {
            Some(seconds) => {
                let args = [("seconds", Arg::Number(seconds as f64))];
                view.chrome.countdown.set_text_content(Some(&text(
                    locale,
                    "mcp-elicitation-timeout_warning",
                    &args,
                )));
                set_hidden(&view.chrome.countdown, false);
            }
            None => set_hidden(&view.chrome.countdown, true),
        }
        if let Some(seconds) = self.screen.announcements.on_countdown(seconds) {
            let args = [("seconds", Arg::Number(seconds as f64))];
            let message = text(locale, "mcp-elicitation-timeout-announce", &args);
            fx.announce = Some((view.chrome.live.clone(), message));
        }
    }

    /// One timer for the whole element, set for the core's next wake-up.
    fn schedule(&mut self) {
        self.screen.timer = None;
        let Some(deadline) = self.session.next_deadline() else {
            return;
        };
        let now = now();
        let front = self
            .session
            .front()
            .filter(|entry| self.screen.view.is_some() && !entry.waiting)
            .map(|entry| entry.deadline);
        let delay = timer_delay(next_wake(now, deadline, front) - now);
        let shared = self.shared.clone();
        self.screen.timer = Some(Timeout::new(delay, move || {
            run_weak(&shared, |inner, fx| inner.tick(fx));
        }));
    }

    /// Builds the view of `ticket` and puts it in the shadow root. What a mode shows is built by
    /// [`build_body`]; this decides the frame, the focus and the announcements.
    fn render(
        &mut self,
        fx: &mut Effects,
        ticket: Ticket,
        waiting: bool,
        focus_index: Option<usize>,
        arrived: bool,
    ) -> Option<View> {
        let locale = self.locale();
        let presentation = self.presentation();
        // Inline moves focus only where it already was inside the element (the next question of a
        // round, a rebuild), or where the host asked for it (`autofocus`); it never steals it.
        let takes_focus = presentation == Presentation::Modal
            || self.shadow.active_element().is_some()
            || (arrived && self.host.has_attribute("autofocus"));
        let document = document();
        let entry = self.session.get(ticket)?;
        let url_check = self.url_check(entry, waiting);
        let server = super::server_or_unknown(&entry.server, locale);
        let default_title = default_title(&entry.data.request.mode, url_check.as_ref(), locale);
        // `one-tap`: a one-tap shape shows as buttons, its question as the heading.
        let tap = self
            .attr("one-tap")
            .and_then(|_| crate::one_tap::one_tap(&entry.data.request));
        let heading = Heading {
            server: &server,
            title: tap
                .as_ref()
                .and_then(|tap| tap.question.as_deref())
                .or(entry.data.request.title.as_deref())
                .unwrap_or(&default_title),
            message: &entry.data.request.message,
        };
        let (chrome, form_shell) =
            Spare::take_or_build(&mut self.screen.spare, &document, locale, presentation);
        frame::fill(&document, &chrome, locale, &heading);
        let shape = BodyShape {
            url_check,
            focus_index,
            tap,
        };
        let built = build_body(&document, locale, &chrome, form_shell, &entry.data, shape)?;
        if takes_focus {
            fx.focus = Some(built.focus);
        }
        let mut announce_later = built.announce;
        if presentation == Presentation::Inline && arrived {
            // "<Server> needs your input": the card's arrival, spoken without focus moving there.
            announce_later = Some(text(
                locale,
                "mcp-elicitation-inline-announce",
                &[("server", Arg::Text(&server))],
            ));
        }
        // A live region filled in the same step it appears is often not spoken; fill it a moment
        // later, with a timer that goes with the view.
        let announce_later =
            announce_later.map(|message| announce_soon(chrome.live.clone(), message));
        let _ = self.shadow.append_child(&chrome.dialog);
        let listeners = self.listen(ticket, &chrome, &built.body);
        Some(View {
            ticket,
            waiting,
            presentation,
            locale,
            chrome,
            body: built.body,
            url_href: built.url_href,
            remember: built.remember,
            _listeners: listeners,
            _announce: announce_later,
        })
    }

    /// URL mode before consent: what the browser would open, the policy's verdict, and whether
    /// this server already had consent for it (then the dialog resumes instead of asking).
    fn url_check(&self, entry: &ElementEntry, waiting: bool) -> Option<UrlCheck> {
        let Mode::Url(url) = &entry.data.request.mode else {
            return None;
        };
        if waiting {
            return None;
        }
        let parts = browser_url_parts(&url.url);
        let verdict = judge(parts.as_ref());
        let step = self.drafts.url_consents.step(
            &entry.tenant,
            &entry.server,
            &entry.data.request,
            &verdict,
        );
        Some(UrlCheck {
            parts,
            verdict,
            step,
        })
    }

    /// Every field's error and state, after a submit attempt.
    pub(super) fn refresh_form_view(&self, ticket: Ticket) {
        let (Some(view), Some(entry)) = (self.screen.view.as_ref(), self.session.get(ticket))
        else {
            return;
        };
        if let (Body::Form(form_view), Mode::Form(schema), Some(state)) =
            (&view.body, &entry.data.request.mode, &entry.data.form)
        {
            form_view::refresh_form(form_view, schema, state, view.locale);
        }
    }

    /// After one field changed: that field and, inside a nested object, its siblings (whether
    /// they are required depends on the object being filled in).
    pub(super) fn refresh_field_view(&self, ticket: Ticket, index: usize) {
        let (Some(view), Some(entry)) = (self.screen.view.as_ref(), self.session.get(ticket))
        else {
            return;
        };
        if let (Body::Form(form_view), Mode::Form(schema), Some(state)) =
            (&view.body, &entry.data.request.mode, &entry.data.form)
        {
            let parent = schema.fields.get(index).map(|field| {
                field
                    .path
                    .split_last()
                    .map_or(&[][..], |(_, parent)| parent)
            });
            let related = |other: usize| {
                other == index
                    || parent.is_some_and(|parent| {
                        !parent.is_empty()
                            && schema
                                .fields
                                .get(other)
                                .is_some_and(|field| field.path.starts_with(parent))
                    })
            };
            form_view::refresh_fields(form_view, schema, state, view.locale, related);
        }
    }
}

/// URL mode before consent, judged by [`Inner::url_check`].
struct UrlCheck {
    parts: Option<UrlParts>,
    verdict: UrlVerdict,
    step: UrlStep,
}

/// What decides how a request's body shows, besides the request.
struct BodyShape {
    /// URL mode before consent.
    url_check: Option<UrlCheck>,
    /// The field focus was on, in a rebuild of the same form.
    focus_index: Option<usize>,
    /// The one-tap shape to show as buttons (the `one-tap` attribute on, and the core found one).
    tap: Option<crate::one_tap::OneTap>,
}

/// What a mode put in the frame.
struct BuiltBody {
    body: Body,
    /// The URL the open button opens, when the policy lets it.
    url_href: Option<String>,
    /// The "Remember" control, when the request offers scopes.
    remember: Option<Element>,
    /// Where focus goes when the view takes it.
    focus: Element,
    /// Said in the view's live region a moment after it appears.
    announce: Option<String>,
}

/// The heading shown when the request has no title of its own.
fn default_title(mode: &Mode, url_check: Option<&UrlCheck>, locale: Locale) -> String {
    let resuming = url_check.is_some_and(|check| check.step == UrlStep::Resume);
    plain(
        locale,
        match mode {
            Mode::Form(_) => "mcp-elicitation-title-default",
            Mode::Url(_) if resuming => "mcp-elicitation-url_mode-resume-title",
            Mode::Url(_) => "mcp-elicitation-url_mode-title",
        },
    )
}

/// Fills the frame with what the request's mode shows: the form, the URL consent, the view of a
/// URL already consented to, or the wait after consent. `None` for a form without its state.
fn build_body(
    document: &Document,
    locale: Locale,
    chrome: &Chrome,
    form_shell: Option<FormShell>,
    held: &Held,
    shape: BodyShape,
) -> Option<BuiltBody> {
    // In URL mode, focus goes to a control that neither consents nor claims the user is done.
    let url_body = |body, url_href, announce| BuiltBody {
        body,
        url_href,
        remember: None,
        focus: chrome.cancel.clone(),
        announce,
    };
    let offered = &held.request.persist;
    if let Some(tap) = shape.tap {
        let view = one_tap_view::one_tap(document, locale, chrome, tap, offered);
        return Some(BuiltBody {
            url_href: None,
            remember: view.remember.clone(),
            focus: view.focus.clone(),
            body: Body::Tap(view),
            announce: None,
        });
    }
    Some(match (&held.request.mode, shape.url_check) {
        (Mode::Url(url), None) => {
            url_view::waiting(document, locale, chrome, &url.url);
            let opening = plain(locale, "mcp-elicitation-url_mode-opening");
            url_body(Body::Waiting, None, Some(opening))
        }
        (Mode::Url(url), Some(check)) => match (check.step, &check.verdict, check.parts) {
            (UrlStep::Resume, UrlVerdict::Open { host, .. }, Some(parts)) => {
                url_view::resume(document, locale, chrome, &parts.href, host);
                url_body(Body::Resume { href: parts.href }, None, None)
            }
            (_, verdict, parts) => {
                let shown = parts.as_ref().map_or(url.url.as_str(), |parts| &parts.href);
                url_view::url(document, locale, chrome, shown, verdict);
                let href = parts.filter(|_| verdict.may_open()).map(|parts| parts.href);
                url_body(Body::Url, href, None)
            }
        },
        (Mode::Form(schema), _) => {
            let state = held.form.as_ref()?;
            let view = form_view::form(
                document,
                locale,
                chrome,
                form_shell.unwrap_or_else(|| form_view::shell(document, locale)),
                schema,
                state,
                &local_date_time,
            );
            form_view::refresh_form(&view, schema, state, locale);
            // A form offering scopes: "Remember" beside Submit.
            let remember = (!offered.is_empty()).then(|| {
                let (label, select) = one_tap_view::remember(document, locale, offered);
                // Before Submit: appending Submit again moves it after the control.
                append(&chrome.actions, &label);
                append(&chrome.actions, &view.accept);
                select
            });
            let focus = shape
                .focus_index
                .and_then(|index| view.fields.get(index))
                .or_else(|| view.fields.first())
                .map(field_focus_target)
                .unwrap_or_else(|| view.accept.clone());
            BuiltBody {
                body: Body::Form(view),
                url_href: None,
                remember,
                focus,
                announce: None,
            }
        }
    })
}
