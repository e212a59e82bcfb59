//! The serialized answers of [`fundraising_core::operation::PAGES`], kept per event, page and page size.
//!
//! Building one answer reads up to 100 page bodies from SQLite, decodes them and writes the
//! service's JSON again; the answer only changes when the event's pages do. Entries carry the
//! pages generation of the [`super::Database`] they were built from, and any write to the
//! pages table moves that generation on, so a stale answer is never served.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use axum::body::Bytes;

/// How many answers are kept at most (the oldest is dropped first). At 100 summaries an
/// answer is about 100 KB, so the cache stays under about 25 MB whatever clients ask.
pub const PAGES_CACHE_ENTRIES: usize = 256;

/// Event id, page number, page size.
pub type PagesKey = (i32, u32, u32);

#[derive(Debug, Default)]
struct Entries {
    answers: HashMap<PagesKey, (u64, Bytes)>,
    order: VecDeque<PagesKey>,
}

/// A bounded map from [`PagesKey`] to the answer's body.
#[derive(Debug, Default)]
pub struct PagesCache {
    entries: Mutex<Entries>,
}

impl PagesCache {
    /// The answer for `key` if it was built at `generation`.
    pub fn get(&self, key: PagesKey, generation: u64) -> Option<Bytes> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match entries.answers.get(&key) {
            Some((built, body)) if *built == generation => Some(body.clone()),
            _ => None,
        }
    }

    /// Keeps the answer for `key`, built at `generation`.
    pub fn put(&self, key: PagesKey, generation: u64, body: Bytes) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.answers.insert(key, (generation, body)).is_none() {
            entries.order.push_back(key);
        }
        while entries.order.len() > PAGES_CACHE_ENTRIES {
            if let Some(oldest) = entries.order.pop_front() {
                entries.answers.remove(&oldest);
            }
        }
    }

    /// How many answers are kept.
    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .answers
            .len()
    }
}
