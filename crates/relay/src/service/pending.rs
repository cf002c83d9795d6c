//! The pending elicitations this replica last heard of, kept in memory so that a change (an
//! answer, a withdraw, a completion) and a long-poll's first look need no read. Every change
//! is conditional on the row being pending, so a stale entry (another replica ended it and the
//! link has not told us yet) only costs the read the change then makes to say how it ended.
//! Bounded by entries and by the size of their requests; the oldest go first.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use crate::record::{Record, Status};

/// How many pending elicitations are kept at most.
pub const MAX_ENTRIES: usize = 8_192;
/// How many bytes of requests (as JSON) are kept at most.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;
/// A request larger than this is never kept: it would push out many small ones.
const MAX_ONE_REQUEST_BYTES: usize = 64 * 1024;

/// The cache; see the module's doc.
#[derive(Debug, Default)]
pub struct PendingCache {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// By id: the record, its request's size and its place in `order`.
    entries: HashMap<String, Entry>,
    /// Ids oldest first, each with the place it was kept at; a place no entry holds any more
    /// is skipped (forgotten or kept again since).
    order: VecDeque<(u64, String)>,
    next_place: u64,
    bytes: usize,
}

#[derive(Debug)]
struct Entry {
    record: Arc<Record>,
    bytes: usize,
    place: u64,
}

impl PendingCache {
    /// The pending record kept for `id`, if any.
    pub fn get(&self, id: &str) -> Option<Arc<Record>> {
        let inner = self.lock();
        inner.entries.get(id).map(|entry| Arc::clone(&entry.record))
    }

    /// Keeps `record` while it is pending; forgets it once it is not.
    pub fn note(&self, record: &Arc<Record>) {
        // Measured before the lock is taken, and only when it may be kept.
        let bytes = (record.status == Status::Pending)
            .then(|| json_size(&record.request))
            .filter(|bytes| *bytes <= MAX_ONE_REQUEST_BYTES);
        let mut inner = self.lock();
        inner.forget(&record.id);
        let Some(bytes) = bytes else {
            return;
        };
        while inner.entries.len() >= MAX_ENTRIES || inner.bytes + bytes > MAX_REQUEST_BYTES {
            if !inner.forget_oldest() {
                break;
            }
        }
        let place = inner.next_place;
        inner.next_place += 1;
        inner.order.push_back((place, record.id.clone()));
        inner.bytes += bytes;
        let entry = Entry {
            record: Arc::clone(record),
            bytes,
            place,
        };
        inner.entries.insert(record.id.clone(), entry);
        inner.compact();
    }

    /// Forgets everything (changes may have been missed).
    pub fn clear(&self) {
        *self.lock() = Inner::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Nothing here panics while holding it; a poisoned map is still a consistent one.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The size of `value` as JSON, counted without writing it out; too large to keep if it cannot
/// be written.
fn json_size(value: &serde_json::Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

impl Inner {
    fn forget(&mut self, id: &str) {
        if let Some(entry) = self.entries.remove(id) {
            self.bytes -= entry.bytes;
        }
    }

    /// Forgets the oldest kept record; false when none is kept.
    fn forget_oldest(&mut self) -> bool {
        while let Some((place, id)) = self.order.pop_front() {
            if self
                .entries
                .get(&id)
                .is_some_and(|entry| entry.place == place)
            {
                self.forget(&id);
                return true;
            }
        }
        false
    }

    /// Drops the places of forgotten records once they outnumber the kept ones.
    fn compact(&mut self) {
        if self.order.len() > 2 * self.entries.len() + 64 {
            let entries = &self.entries;
            self.order
                .retain(|(place, id)| entries.get(id).is_some_and(|entry| entry.place == *place));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(id: &str, status: Status, request: serde_json::Value) -> Arc<Record> {
        Arc::new(Record::example(id, status, request))
    }

    #[test]
    fn keeps_a_pending_record_until_it_ends() {
        let cache = PendingCache::default();
        cache.note(&record("a", Status::Pending, json!({})));
        assert_eq!(
            cache.get("a").map(|kept| kept.status),
            Some(Status::Pending)
        );
        cache.note(&record("a", Status::Settled, json!({})));
        assert!(cache.get("a").is_none());
        assert!(cache.lock().entries.is_empty());
    }

    #[test]
    fn the_oldest_go_first_when_full_and_forgotten_places_do_not_pile_up() {
        let cache = PendingCache::default();
        for n in 0..MAX_ENTRIES + 10 {
            cache.note(&record(&n.to_string(), Status::Pending, json!({})));
        }
        assert_eq!(cache.lock().entries.len(), MAX_ENTRIES);
        assert!(cache.get("9").is_none());
        assert!(cache.get("10").is_some());
        for n in 0..100_000 {
            let id = format!("x{n}");
            cache.note(&record(&id, Status::Pending, json!({})));
            cache.note(&record(&id, Status::Expired, json!({})));
        }
        let inner = cache.lock();
        assert!(inner.order.len() <= 2 * inner.entries.len() + 65);
    }

    #[test]
    fn requests_are_bounded_by_their_size() {
        let cache = PendingCache::default();
        let big = json!({"message": "m".repeat(MAX_ONE_REQUEST_BYTES)});
        cache.note(&record("big", Status::Pending, big));
        assert!(cache.get("big").is_none());
        let large = json!({"message": "m".repeat(MAX_ONE_REQUEST_BYTES - 64)});
        assert_eq!(json_size(&large), serde_json::to_vec(&large).unwrap().len());
        let fit = MAX_REQUEST_BYTES / (MAX_ONE_REQUEST_BYTES - 40);
        for n in 0..fit + 5 {
            cache.note(&record(&n.to_string(), Status::Pending, large.clone()));
        }
        assert!(cache.lock().bytes <= MAX_REQUEST_BYTES);
        assert!(cache.get("0").is_none());
        assert!(cache.get(&(fit + 4).to_string()).is_some());
    }

    #[test]
    fn clear_forgets_everything() {
        let cache = PendingCache::default();
        cache.note(&record("a", Status::Pending, json!({})));
        cache.clear();
        assert!(cache.get("a").is_none());
    }
}
