//! The host element's attributes as `attributeChangedCallback` reports them, so a call reads them
//! without going to the DOM. Updated at once, even while a call is running, so a call that waits
//! its turn reads what the element carries when it runs.

use std::cell::RefCell;

/// The observed attributes the element carries, by name.
#[derive(Default)]
pub(super) struct HostAttributes(RefCell<Vec<(String, String)>>);

impl HostAttributes {
    /// Records an attribute's new value (`None`: removed).
    pub fn set(&self, name: &str, value: Option<String>) {
        let mut carried = self.0.borrow_mut();
        carried.retain(|(known, _)| known != name);
        if let Some(value) = value {
            carried.push((name.to_string(), value));
        }
    }

    /// An attribute's value, as `getAttribute` would answer.
    pub fn get(&self, name: &str) -> Option<String> {
        self.0
            .borrow()
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, value)| value.clone())
    }
}
