//! The donation resource (endpoint 5).

use serde::{Deserialize, Serialize};

use crate::shape::Model;

use super::{DonationSource, DonationStatus};
use crate::ServiceDate;

/// A donation, as read by its third-party reference.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Donation {
    /// The donation id (Integer, 32 bit). Required.
    pub id: i32,
    /// Reference shown on the donor's receipt; may be null.
    pub donation_ref: Option<String>,
    /// Image the donor selected; present only if the donor left a shareable message.
    pub image: Option<String>,
    /// Whether there is an image; same availability rule as `image`.
    pub has_image: Option<bool>,
    /// When the donation was made.
    #[serde(default)]
    pub donation_date: ServiceDate,
    /// Name the donor left with the message.
    #[serde(default)]
    pub donor_display_name: String,
    /// Present only for the page owner or when the preferences allow sharing on the web.
    pub message: Option<String>,
    /// Estimated tax reclaim (Decimal).
    #[serde(default)]
    pub estimated_tax_reclaim: f64,
    /// Decimal amount as text, e.g. `"10.00"`.
    #[serde(default)]
    #[model(decimal_text)]
    pub amount: String,
    /// Present only if the authenticated user is the page owner.
    pub donor_real_name: Option<String>,
    /// Reference attached via the simple donation integration.
    #[serde(default)]
    pub third_party_reference: String,
    /// Accepted, Rejected, Cancelled, Refunded, Pending (or another value kept as text).
    #[serde(default)]
    pub status: DonationStatus,
    /// DirectDonations, SponsorshipDonations, Ipdd, Sms (or another value kept as text).
    #[serde(default)]
    pub source: DonationSource,
    /// Currency code of `amount`.
    #[serde(default)]
    pub currency_code: String,
    /// Decimal amount as text, in the donor's currency.
    #[serde(default)]
    #[model(decimal_text)]
    pub donor_local_amount: String,
    /// The donor's currency code.
    #[serde(default)]
    pub donor_local_currency_code: String,
    /// Present on failure.
    pub error_message: Option<String>,
}
