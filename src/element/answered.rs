//! A question someone else answered (a team's, through the relay): the host aborts `elicit`'s
//! signal with the reason `{ answeredBy: "<name>" }`. It closes as any server withdrawal does;
//! the `cancel` event names the answerer, an inline card leaves "Answered by {name}", and a modal
//! says the same words in a live region that outlives the dialog.

use super::effects::Effects;
use super::view::announce_soon;
use super::Inner;
use crate::dom::frame::Presentation;
use crate::dom::{create, document, set_attr};
use crate::reply::{CancelSource, Ending};
use crate::session::Ticket;
use crate::summary::answered_by;

impl Inner {
    /// The signal aborted: withdrawn by the server, or answered by `name` when the reason says so.
    pub(super) fn aborted(&mut self, fx: &mut Effects, ticket: Ticket, name: Option<String>) {
        if let Some(name) = name {
            let modal = self.screen.view.as_ref().is_some_and(|view| {
                view.ticket == ticket && view.presentation == Presentation::Modal
            });
            if modal {
                self.announce_answered(&name);
            }
            if let Some(entry) = self.session.get_mut(ticket) {
                entry.data.answered_by = Some(name);
            }
        }
        self.close(fx, ticket, Ending::Cancel(CancelSource::Server));
    }

    /// "Answered by {name}" in the element's own polite live region: the dialog's goes with it.
    /// Filled a moment later, as a region filled in the step it appears is often not spoken.
    fn announce_answered(&mut self, name: &str) {
        let locale = self.locale();
        let region = self.screen.answered_live.get_or_insert_with(|| {
            let region = create(&document(), "div");
            set_attr(&region, "class", "visually-hidden");
            set_attr(&region, "role", "status");
            set_attr(&region, "aria-live", "polite");
            region
        });
        let _ = self.shadow.append_child(region);
        region.set_text_content(None);
        let words = answered_by(locale, name).outcome;
        self.screen.answered_announce = Some(announce_soon(region.clone(), words));
    }
}
