//! The staged donations of the configuration, as the donation lookup sees them over time.

use fundraising_core::model::{Donation, DonationSource, DonationStatus};
use fundraising_core::ServiceDate;

use super::StoredDonation;
use crate::config::StagedDonation;

/// Ids of staged donations start here (the seeded ones are 5001 and 5002).
const FIRST_STAGED_ID: i32 = 9001;

/// The configured staged donations, timed from `started_ms`.
#[derive(Debug, Clone, Default)]
pub struct StagedDonations {
    started_ms: i64,
    entries: Vec<StagedDonation>,
}

/// What a staged reference answers at a given time.
#[derive(Debug, Clone, PartialEq)]
pub enum Staged {
    /// Not staged: the database decides.
    Unknown,
    /// Staged, but not visible yet (404).
    NotYet,
    /// The donation as it is now.
    Visible(Box<StoredDonation>),
}

impl StagedDonations {
    /// The staged donations, their times counted from `started_ms`.
    pub fn new(entries: Vec<StagedDonation>, started_ms: i64) -> Self {
        Self {
            started_ms,
            entries,
        }
    }

    /// What `reference` answers at `now_ms`.
    pub fn lookup(&self, reference: &str, now_ms: i64) -> Staged {
        let Some((index, entry)) = self
            .entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.reference == reference)
        else {
            return Staged::Unknown;
        };
        let at = |secs: u64| {
            self.started_ms
                .saturating_add(i64::try_from(secs).unwrap_or(i64::MAX).saturating_mul(1000))
        };
        let appears_ms = at(entry.appears_after_secs);
        if now_ms < appears_ms {
            return Staged::NotYet;
        }
        let status = if now_ms < at(entry.final_after_secs) {
            DonationStatus::Pending
        } else {
            DonationStatus::from_wire(&entry.final_status)
        };
        let id = FIRST_STAGED_ID.saturating_add(i32::try_from(index).unwrap_or(i32::MAX));
        let donation = Donation {
            id,
            donation_ref: Some(format!("DR-{id}")),
            image: None,
            has_image: Some(false),
            donation_date: ServiceDate::from_millis(appears_ms),
            donor_display_name: entry.donor_display_name.clone(),
            message: entry.message.clone(),
            estimated_tax_reclaim: 0.0,
            amount: entry.amount.clone(),
            donor_real_name: entry.donor_real_name.clone(),
            third_party_reference: entry.reference.clone(),
            status,
            source: DonationSource::DirectDonations,
            currency_code: entry.currency_code.clone(),
            donor_local_amount: entry.amount.clone(),
            donor_local_currency_code: entry.currency_code.clone(),
            error_message: None,
        };
        Staged::Visible(Box::new(StoredDonation {
            donation,
            owner_email: entry.owner_email.clone(),
            share_message: entry.share_message,
        }))
    }
}
