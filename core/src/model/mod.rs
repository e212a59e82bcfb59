//! Wire models of every resource in the spec.
//!
//! Conventions, the same for every type:
//! - Serialisation uses camelCase field names: the shape JS sees and the shape the service
//!   sends for everything but the campaign (see [`crate::json::campaign_to_service_json`]).
//! - Decode with [`crate::json::decode`]: field names match case-insensitively, unknown
//!   fields are ignored, and an explicit `null` counts as absent.
//! - Fields the spec marks "may be null", "present only if ..." or leaves without a shown
//!   shape are `Option`. Other fields are plain values; since the service sometimes omits
//!   documented fields, an absent one decodes to its default (`""`, `0`, `false`, empty list,
//!   an empty unknown enum value, or [`crate::date::DOTNET_MIN_MILLIS`] for dates) — except the
//!   identifying fields (campaign `campaignGuid`/`shortName`, donation `id`, creation result
//!   `id`, pages result `eventId`, page `pageId`), which are required.
//! - Types: "Decimal" and JSON "number" amounts are `f64`; "Integer (32 bit)" is `i32`;
//!   identifiers and counts given only as JSON "number" are `i64`; "Decimal amount as text"
//!   is `String` (a JSON number is accepted and kept as its text); "DateTime" is
//!   [`ServiceDate`](crate::ServiceDate); objects whose fields the spec does not show are
//!   `Option<serde_json::Value>`, passed through untouched.

mod campaign;
mod donation;
mod enums;
mod event;
mod pages;

pub use campaign::{Campaign, CampaignDonationSummary, CurrencyDto};
pub use donation::Donation;
pub use enums::{CampaignStatus, DonationSource, DonationStatus, EventType, PageStatus};
pub use event::{ErrorDetail, Event, EventCreated, Link};
pub use pages::{EventPages, FundraisingPageSummary, InMemoryPerson};
