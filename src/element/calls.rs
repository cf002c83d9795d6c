//! Every call into an element runs here: under one borrow of its state, then its effects without
//! the borrow. A call that arrives while the state is borrowed (page code we ran reacting to a
//! focus move, an event or an option getter) is never dropped: it waits in a queue and runs right
//! after, in the order it came.

use std::cell::{Ref, RefCell};
use std::rc::Weak;

use super::effects::Effects;
use super::Inner;

/// A call waiting for its turn.
type Call = Box<dyn FnOnce(&mut Inner, &mut Effects)>;

/// What the public getters (`open`, `pending`, `complete`'s answer) read, so they answer even
/// while a call is running.
#[derive(Default)]
pub(super) struct Snapshot {
    pub open: bool,
    pub pending: u32,
    /// `(server, elicitationId)` of each elicitation waiting for its completion.
    pub waiting: Vec<(String, String)>,
}

/// One element's state, the calls waiting for it, and what the getters read.
pub(super) struct Shared {
    state: RefCell<Inner>,
    waiting: RefCell<Vec<Call>>,
    snapshot: RefCell<Snapshot>,
}

impl Shared {
    pub fn new(inner: Inner) -> Shared {
        Shared {
            state: RefCell::new(inner),
            waiting: RefCell::new(Vec::new()),
            snapshot: RefCell::new(Snapshot::default()),
        }
    }

    pub fn snapshot(&self) -> Ref<'_, Snapshot> {
        self.snapshot.borrow()
    }

    /// Runs `call` now, or after the call in progress if the state is borrowed; then runs every
    /// call that arrived meanwhile.
    pub fn run(&self, call: impl FnOnce(&mut Inner, &mut Effects) + 'static) {
        self.run_boxed(Box::new(call));
    }

    fn run_boxed(&self, call: Call) {
        if !self.run_now(call) {
            return;
        }
        loop {
            // The queue's borrow ends with this statement, before the call runs.
            // A Vec used as a queue (front removal): it is short, and VecDeque costs the wasm more.
            let next = {
                let mut waiting = self.waiting.borrow_mut();
                (!waiting.is_empty()).then(|| waiting.remove(0))
            };
            let Some(next) = next else { break };
            if !self.run_now(next) {
                // Borrowed again by an outer call: it drains the queue when it ends.
                break;
            }
        }
    }

    /// Runs one call if the state is free (true), or queues it (false).
    fn run_now(&self, call: Call) -> bool {
        let mut effects = Effects::default();
        let host = match self.state.try_borrow_mut() {
            Ok(mut inner) => {
                call(&mut inner, &mut effects);
                *self.snapshot.borrow_mut() = inner.snapshot();
                inner.host.clone()
            }
            Err(_) => {
                self.waiting.borrow_mut().push(call);
                return false;
            }
        };
        effects.run(&host);
        true
    }
}

/// Runs a call on an element that may already be gone (listeners, timers, polls hold it weakly).
pub(super) fn run_weak(
    shared: &Weak<Shared>,
    call: impl FnOnce(&mut Inner, &mut Effects) + 'static,
) {
    if let Some(shared) = shared.upgrade() {
        shared.run(call);
    }
}
