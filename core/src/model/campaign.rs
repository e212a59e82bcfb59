//! The campaign resource (endpoint 4).

use serde::{Deserialize, Serialize};

use crate::shape::Model;
use serde_json::Value;

use super::CampaignStatus;
use crate::ServiceDate;

/// A campaign, as read by short name. The service sends it in PascalCase; member names are
/// read ignoring case.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Campaign {
    /// Guid unique to the campaign. Required.
    pub campaign_guid: String,
    /// The short name used in addresses. Required.
    pub short_name: String,
    /// Title; may be null.
    pub title: Option<String>,
    /// Summary text.
    #[serde(default)]
    pub summary: String,
    /// Story text.
    #[serde(default)]
    pub story: String,
    /// Start; may be null.
    pub start_date: Option<ServiceDate>,
    /// End; may be null.
    pub end_date: Option<ServiceDate>,
    /// Branding guid; may be null.
    pub branding_guid: Option<String>,
    /// Amount raised offline (Decimal).
    #[serde(default)]
    pub offline_amount: f64,
    /// Object whose shape the spec does not show; may be null.
    pub offline_amount_updated: Option<Value>,
    /// Currency of the campaign.
    #[serde(default)]
    pub currency: CurrencyDto,
    /// Status (`Active`, or any other value kept as text).
    #[serde(default)]
    pub status: CampaignStatus,
    /// Object whose shape the spec does not show; may be null.
    pub landing_page_url: Option<Value>,
    /// Object whose shape the spec does not show; may be null.
    pub event_registration_link: Option<Value>,
    /// Thank-you message; may be null.
    pub thank_you_message: Option<String>,
    /// Target amount (Decimal).
    #[serde(default)]
    pub target_amount: f64,
    /// Collection of CharityDto, whose fields the spec does not show; may be null.
    pub charities: Option<Value>,
    /// PublicFundraisingDto, whose fields the spec does not show; may be null.
    pub fundraising: Option<Value>,
    /// Donation totals.
    #[serde(default)]
    pub donation_summary: CampaignDonationSummary,
    /// Present on failure.
    pub error_message: Option<String>,
}

/// A currency: `CurrencyCode` and `CurrencySymbol` on the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CurrencyDto {
    /// Currency code, e.g. `GBP`.
    #[serde(default)]
    pub currency_code: String,
    /// Currency symbol, e.g. `£`.
    #[serde(default)]
    pub currency_symbol: String,
}

/// The campaign's donation totals (the spec's `CampaignDonationsummary`); all numeric.
/// On the wire the members are PascalCase except `offlineAmount`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CampaignDonationSummary {
    /// `DirectDonationAmount`.
    #[serde(default)]
    pub direct_donation_amount: f64,
    /// `DirectDonationGiftAid`.
    #[serde(default)]
    pub direct_donation_gift_aid: f64,
    /// `FundraiserRaisedAmount`.
    #[serde(default)]
    pub fundraiser_raised_amount: f64,
    /// `NumberOfDirectDonations` (a count).
    #[serde(default)]
    pub number_of_direct_donations: i64,
    /// `NumberOfFundraiserDonations` (a count).
    #[serde(default)]
    pub number_of_fundraiser_donations: i64,
    /// `OfflineAmountUpdated`; nullable.
    pub offline_amount_updated: Option<f64>,
    /// `TotalAmount`.
    #[serde(default)]
    pub total_amount: f64,
    /// `TotalGiftAid`.
    #[serde(default)]
    pub total_gift_aid: f64,
    /// `TotalNumberOfDonations` (a count).
    #[serde(default)]
    pub total_number_of_donations: i64,
    /// `offlineAmount` (lower-case first on the wire).
    #[serde(default)]
    pub offline_amount: f64,
}
