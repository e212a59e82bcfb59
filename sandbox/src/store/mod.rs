//! SQLite storage of campaigns, donations, events and fundraising pages.

mod database;
mod pages_cache;
mod seed;
mod staged;

pub use database::{Database, PagesSlice, StoredDonation, DB_FILE};
pub use pages_cache::{PagesKey, PAGES_CACHE_ENTRIES};
pub use seed::{
    DEMO_CAMPAIGN, DEMO_EVENT_ID, DEMO_EVENT_PAGES, DEMO_OWNER_EMAIL, DEMO_REF_OWNED,
    DEMO_REF_SHARED,
};
pub use staged::{StageError, Staged, StagedDonations};
