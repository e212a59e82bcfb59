//! The fundraising pages of an event (endpoint 7).

use serde::{Deserialize, Serialize};

use crate::shape::Model;
use serde_json::Value;

use super::PageStatus;
use crate::ServiceDate;

/// One page of the fundraising pages assigned to an event.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EventPages {
    /// The event (Integer, 32 bit). Required.
    pub event_id: i32,
    /// The page summaries of this page of results.
    #[serde(default)]
    pub fundraising_pages: Vec<FundraisingPageSummary>,
    /// Number of fundraising pages in all (Integer, 32 bit).
    #[serde(default)]
    pub total_fundraising_pages: i32,
    /// Number of result pages (Integer, 32 bit).
    #[serde(default)]
    pub total_pages: i32,
    /// Total raised (Decimal).
    #[serde(default)]
    pub total_raised: f64,
    /// Present on failure.
    pub error_message: Option<String>,
}

/// Summary of one fundraising page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FundraisingPageSummary {
    /// Guid of the page's campaign; nullable.
    pub campaign_guid: Option<String>,
    /// Company appeal id (number).
    #[serde(default)]
    pub company_appeal_id: i64,
    /// Creation date; nullable.
    pub created_date: Option<ServiceDate>,
    /// Currency code; nullable.
    pub currency_code: Option<String>,
    /// Currency symbol; nullable.
    pub currency_symbol: Option<String>,
    /// Design id (number).
    #[serde(default)]
    pub design_id: i64,
    /// Domain of the page.
    #[serde(default)]
    pub domain: String,
    /// Event id (number; event ids are 32 bit).
    #[serde(default)]
    pub event_id: i32,
    /// Event name.
    #[serde(default)]
    pub event_name: String,
    /// Gift Aid plus supplement (number).
    #[serde(default)]
    pub gift_aid_plus_supplement: f64,
    /// Array whose entries' fields the spec does not show.
    pub images: Option<Value>,
    /// The person remembered, for in-memory pages.
    pub in_memory_person: Option<InMemoryPerson>,
    /// Nullable, shape not shown.
    pub legacy_id: Option<Value>,
    /// Offline donations (number).
    #[serde(default)]
    pub offline_donations: f64,
    /// Page guid; nullable.
    pub page_guid: Option<String>,
    /// Page id (number). Required.
    pub page_id: i64,
    /// Image paths.
    #[serde(default)]
    pub page_images: Vec<String>,
    /// Nullable, shape not shown.
    pub page_owner: Option<Value>,
    /// Nullable, shape not shown.
    pub page_owner_guid: Option<Value>,
    /// Short name of the page.
    #[serde(default)]
    pub page_short_name: String,
    /// Page status (`Active`, or any other value kept as text).
    #[serde(default)]
    pub page_status: PageStatus,
    /// Page title.
    #[serde(default)]
    pub page_title: String,
    /// Raised amount (number).
    #[serde(default)]
    pub raised_amount: f64,
    /// Target amount (number).
    #[serde(default)]
    pub target_amount: f64,
    /// Total raised online (number).
    #[serde(default)]
    pub total_raised_online: f64,
    /// Last update; nullable.
    pub updated_date: Option<ServiceDate>,
    /// SMS code.
    #[serde(default)]
    pub sms_code: String,
    /// Charity id (number).
    #[serde(default)]
    pub charity_id: i64,
}

/// The person an in-memory page remembers. On the wire the members are PascalCase
/// (`FirstName`, `LastName`, `PersonId`, `RelationShip`) except `dateOfBirth`/`dateOfDeath`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InMemoryPerson {
    /// First name.
    #[serde(default)]
    pub first_name: String,
    /// Last name.
    #[serde(default)]
    pub last_name: String,
    /// Person id (number).
    #[serde(default)]
    pub person_id: i64,
    /// Relationship; nullable, shape not shown.
    pub relation_ship: Option<Value>,
    /// Date of birth (may well be negative milliseconds).
    #[serde(default)]
    pub date_of_birth: ServiceDate,
    /// Date of death.
    #[serde(default)]
    pub date_of_death: ServiceDate,
}
