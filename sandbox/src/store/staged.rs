//! The staged donations of the configuration, as the donation lookup sees them over time.

use std::sync::Mutex;

use fundraising_core::model::{Donation, DonationSource, DonationStatus};
use fundraising_core::ServiceDate;

use super::StoredDonation;
use crate::config::{StagedDonation, MAX_STAGED_DONATIONS};

/// Ids of staged donations start here (the seeded ones are 5001 and 5002).
const FIRST_STAGED_ID: i32 = 9001;

/// The staged donations, each timed from when it was staged (the configured ones from the
/// sandbox's start); at most [`MAX_STAGED_DONATIONS`].
#[derive(Debug, Default)]
pub struct StagedDonations {
    entries: Mutex<Vec<(i64, StagedDonation)>>,
}

/// Why a donation could not be staged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StageError {
    /// The entry breaks a rule of [`StagedDonation::check`].
    Invalid(String),
    /// The reference is staged already.
    Duplicate,
    /// [`MAX_STAGED_DONATIONS`] are staged already.
    Full,
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
    /// The configured staged donations (already checked), their times counted from `started_ms`.
    pub fn new(entries: Vec<StagedDonation>, started_ms: i64) -> Self {
        Self {
            entries: Mutex::new(entries.into_iter().map(|e| (started_ms, e)).collect()),
        }
    }

    /// Stages one more donation, its times counted from `now_ms`.
    pub fn stage(&self, entry: StagedDonation, now_ms: i64) -> Result<(), StageError> {
        entry.check().map_err(StageError::Invalid)?;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.iter().any(|(_, e)| e.reference == entry.reference) {
            return Err(StageError::Duplicate);
        }
        if entries.len() >= MAX_STAGED_DONATIONS {
            return Err(StageError::Full);
        }
        entries.push((now_ms, entry));
        Ok(())
    }

    /// What `reference` answers at `now_ms`.
    pub fn lookup(&self, reference: &str, now_ms: i64) -> Staged {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let Some((index, (started_ms, entry))) = entries
            .iter()
            .enumerate()
            .find(|(_, (_, e))| e.reference == reference)
        else {
            return Staged::Unknown;
        };
        let at = |secs: u64| {
            started_ms.saturating_add(i64::try_from(secs).unwrap_or(i64::MAX).saturating_mul(1000))
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
        let donation = model!(Donation {
            id: id,
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
            status: status,
            source: DonationSource::DirectDonations,
            currency_code: entry.currency_code.clone(),
            donor_local_amount: entry.amount.clone(),
            donor_local_currency_code: entry.currency_code.clone(),
            error_message: None,
        });
        Staged::Visible(Box::new(StoredDonation {
            donation,
            owner_email: entry.owner_email.clone(),
            share_message: entry.share_message,
        }))
    }
}
