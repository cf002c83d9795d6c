//! What only `presentation="inline"` does: the summary a settled elicitation leaves in the card's
//! place (unless `settled="remove"`), and `focus()` moving into the card.

use web_sys::Element;

use super::effects::Effects;
use super::focus::field_focus_target;
use super::platform::browser_url_parts;
use super::{Body, Held, Inner};
use crate::dom::frame::Presentation;
use crate::dom::summary_view::{summary, SummaryTexts};
use crate::dom::{document, SLOT};
use crate::reply::{CancelSource, Ending};
use crate::request::Mode;
use crate::session::Ticket;
use crate::summary::{answered_by, summarize};

impl Inner {
    /// The summary `ticket` leaves, when it is the inline card on screen and the host keeps
    /// summaries. Built under the borrow, placed by [`Inner::keep_summary`].
    pub(super) fn summary_of(
        &self,
        ticket: Ticket,
        held: &Held,
        ending: &Ending,
    ) -> Option<Element> {
        let view =
            self.screen.view.as_ref().filter(|view| {
                view.presentation == Presentation::Inline && view.ticket == ticket
            })?;
        // Detached (`connected` is already false): nothing is on the page to replace. A tenant
        // change: the old scope's question is not left for the new one to read.
        if !self.connected
            || matches!(ending, Ending::Cancel(CancelSource::Workspace))
            || self.attr("settled").as_deref() == Some("remove")
        {
            return None;
        }
        let locale = view.locale;
        let host = match &held.request.mode {
            Mode::Url(url) => browser_url_parts(&url.url).map(|parts| parts.host),
            Mode::Form(_) => None,
        }
        .unwrap_or_default();
        let server = super::server_or_unknown(&held.server, locale);
        let lines = match &held.answered_by {
            Some(_) => answered_by(locale, SLOT),
            None => summarize(&held.request, ending, locale, SLOT),
        };
        let texts = SummaryTexts {
            server: &server,
            message: &held.request.message,
            host: &host,
            answerer: held.answered_by.as_deref(),
        };
        Some(summary(&document(), locale, &lines, &texts))
    }

    /// Puts a summary where the card was (the card goes when the view is brought in line), and
    /// moves focus onto it when focus was in the card, so it does not fall to the page's start.
    pub(super) fn keep_summary(&mut self, fx: &mut Effects, left: Option<Element>) {
        let Some(left) = left else { return };
        let _ = self.shadow.append_child(&left);
        if self.shadow.active_element().is_some() {
            fx.focus = Some(left.clone());
        }
        self.screen.summaries.push(left);
    }

    /// `focus()` on an inline element: the card's first field, else a control that does not
    /// consent (URL mode), else the last summary.
    pub(super) fn focus_inline(&mut self, fx: &mut Effects) {
        fx.focus = match &self.screen.view {
            Some(view) => Some(match &view.body {
                Body::Form(form) => form
                    .fields
                    .first()
                    .map(field_focus_target)
                    .unwrap_or_else(|| form.accept.clone()),
                Body::Tap(tap) => tap.focus.clone(),
                _ => view.chrome.cancel.clone(),
            }),
            None => self.screen.summaries.last().cloned(),
        };
    }
}
