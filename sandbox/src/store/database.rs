//! The SQLite database in the data dir.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use axum::body::Bytes;

use fundraising_core::model::{Campaign, Donation, Event, FundraisingPageSummary};
use rusqlite::{params, Connection, OptionalExtension};

use super::pages_cache::{PagesCache, PagesKey};
use super::seed;
use crate::error::{Result, SandboxError};

/// File name of the database inside the data dir.
pub const DB_FILE: &str = "sandbox.sqlite3";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS campaigns (short_name TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS donations (
    reference TEXT PRIMARY KEY,
    owner_email TEXT NOT NULL,
    share_message INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pages (
    event_id INTEGER NOT NULL REFERENCES events(id),
    page_id INTEGER NOT NULL,
    raised REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (event_id, page_id)
);
";

/// A donation with what decides who sees which of its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredDonation {
    /// Every field, including `message`, `donorRealName` and `image`.
    pub donation: Donation,
    /// Email of the user who owns the fundraising page the donation was made on.
    pub owner_email: String,
    /// Whether the donor's preferences allow sharing the message on the web.
    pub share_message: bool,
}

/// One page of an event's fundraising pages, with the totals over all of them.
#[derive(Debug, Clone, PartialEq)]
pub struct PagesSlice {
    /// The fundraising pages in this slice.
    pub pages: Vec<FundraisingPageSummary>,
    /// How many fundraising pages the event has.
    pub total: i64,
    /// Sum of `raisedAmount` over all of them.
    pub total_raised: f64,
}

/// The sandbox's SQLite database (one connection behind a mutex), seeded on first open, with
/// the cache of serialized event pages answers.
#[derive(Debug)]
pub struct Database {
    conn: Mutex<Connection>,
    /// Moves on with every write to the pages table.
    pages_generation: AtomicU64,
    pages_cache: PagesCache,
}

impl Database {
    /// Opens or creates the database in the data dir and seeds it the first time.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let mut conn = Connection::open(data_dir.join(DB_FILE))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;")?;
        conn.execute_batch(SCHEMA)?;
        let seeded: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'seeded'", [], |r| {
                r.get(0)
            })
            .optional()?;
        if seeded.is_none() {
            let tx = conn.transaction()?;
            seed::insert(&tx)?;
            tx.execute("INSERT INTO meta (key, value) VALUES ('seeded', '1')", [])?;
            tx.commit()?;
        }
        Ok(Self {
            conn: Mutex::new(conn),
            pages_generation: AtomicU64::new(0),
            pages_cache: PagesCache::default(),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The campaign with this short name.
    pub fn campaign(&self, short_name: &str) -> Result<Option<Campaign>> {
        let body: Option<String> = self
            .conn()
            .query_row(
                "SELECT body FROM campaigns WHERE short_name = ?1",
                [short_name],
                |r| r.get(0),
            )
            .optional()?;
        body.map(|b| serde_json::from_str(&b).map_err(SandboxError::from))
            .transpose()
    }

    /// The donation with this third-party reference.
    pub fn donation(&self, reference: &str) -> Result<Option<StoredDonation>> {
        let row: Option<(String, bool, String)> = self
            .conn()
            .query_row(
                "SELECT owner_email, share_message, body FROM donations WHERE reference = ?1",
                [reference],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        row.map(|(owner_email, share_message, body)| {
            Ok(StoredDonation {
                donation: serde_json::from_str(&body)?,
                owner_email,
                share_message,
            })
        })
        .transpose()
    }

    /// Stores a new event for the application and returns its id (the body's `id` is ignored).
    pub fn create_event(&self, app_id: &str, event: &Event, now_ms: i64) -> Result<i32> {
        let mut event = event.clone();
        event.id = None;
        event.error_message = None;
        let conn = self.conn();
        conn.execute(
            "INSERT INTO events (app_id, created_ms, body) VALUES (?1, ?2, ?3)",
            params![app_id, now_ms, serde_json::to_string(&event)?],
        )?;
        i32::try_from(conn.last_insert_rowid())
            .map_err(|_| SandboxError::Config("event ids exhausted".into()))
    }

    /// The stored event.
    pub fn event(&self, id: i64) -> Result<Option<Event>> {
        let body: Option<String> = self
            .conn()
            .query_row("SELECT body FROM events WHERE id = ?1", [id], |r| r.get(0))
            .optional()?;
        body.map(|b| serde_json::from_str(&b).map_err(SandboxError::from))
            .transpose()
    }

    /// `limit` fundraising pages of the event from `offset` (ordered by page id), with totals.
    pub fn event_pages(&self, event_id: i64, offset: i64, limit: i64) -> Result<PagesSlice> {
        let conn = self.conn();
        let (total, total_raised): (i64, f64) = conn.query_row(
            "SELECT COUNT(*), COALESCE(SUM(raised), 0) FROM pages WHERE event_id = ?1",
            [event_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let mut stmt = conn.prepare(
            "SELECT body FROM pages WHERE event_id = ?1 ORDER BY page_id LIMIT ?2 OFFSET ?3",
        )?;
        let bodies = stmt
            .query_map(params![event_id, limit, offset], |r| r.get::<_, String>(0))?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let pages = bodies
            .iter()
            .map(|b| serde_json::from_str(b))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(PagesSlice {
            pages,
            total,
            total_raised,
        })
    }

    /// Adds a fundraising page to an event (its `eventId` is set to `event_id`); cached
    /// answers of the pages list stop being served.
    pub fn add_page(&self, event_id: i32, page: &FundraisingPageSummary) -> Result<()> {
        let mut page = page.clone();
        page.event_id = event_id;
        self.conn().execute(
            "INSERT INTO pages (event_id, page_id, raised, body) VALUES (?1, ?2, ?3, ?4)",
            params![
                event_id,
                page.page_id,
                page.raised_amount,
                serde_json::to_string(&page)?
            ],
        )?;
        self.pages_generation.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// The current generation of the pages table, to pass to [`Database::keep_pages_answer`].
    pub fn pages_generation(&self) -> u64 {
        self.pages_generation.load(Ordering::SeqCst)
    }

    /// The serialized pages answer for (event, page, page size), if one was kept and the
    /// pages have not changed since it was built.
    pub fn cached_pages_answer(&self, key: PagesKey) -> Option<Bytes> {
        self.pages_cache.get(key, self.pages_generation())
    }

    /// Keeps a serialized pages answer built from the data of `generation`.
    pub fn keep_pages_answer(&self, key: PagesKey, generation: u64, body: Bytes) {
        self.pages_cache.put(key, generation, body);
    }

    /// How many serialized pages answers are kept (at most [`super::PAGES_CACHE_ENTRIES`]).
    pub fn cached_pages_answers(&self) -> usize {
        self.pages_cache.len()
    }
}
