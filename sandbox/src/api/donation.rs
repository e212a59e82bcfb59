//! The handler of [`fundraising_core::operation::DONATION`]: a donation by its third-party
//! reference.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use fundraising_core::model::Donation;

use super::bearer::caller;
use super::guard::Segments;
use super::reply::without_nulls;
use super::{json_response, ApiError};
use crate::state::Sandbox;
use crate::store::{Staged, StoredDonation};

/// The fields of a donation the viewer may see: `message` for the page owner or when
/// sharing is allowed, `donorRealName` for the owner only, `image`/`hasImage` only when the
/// donor left a message that may be shared.
pub fn visible(stored: &StoredDonation, viewer_email: Option<&str>) -> Donation {
    let mut donation = stored.donation.clone();
    let owner = viewer_email.is_some_and(|e| e.eq_ignore_ascii_case(&stored.owner_email));
    let shared_message =
        stored.share_message && donation.message.as_deref().is_some_and(|m| !m.is_empty());
    if !(owner || stored.share_message) {
        donation.message = None;
    }
    if !owner {
        donation.donor_real_name = None;
    }
    if !shared_message {
        donation.image = None;
        donation.has_image = None;
    }
    donation
}

/// The donation; 404 when no donation has the reference (or a staged one has not appeared yet).
pub async fn by_reference(
    State(state): State<Sandbox>,
    Segments((app_id, reference)): Segments<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let viewer = caller(&state, &app_id, &headers)?;
    let not_found = || ApiError::not_found(format!("No donation has the reference {reference:?}."));
    let stored = match state
        .staged_donations()
        .lookup(&reference, state.clock().now_millis())
    {
        Staged::Visible(stored) => *stored,
        Staged::NotYet => return Err(not_found()),
        Staged::Unknown => state.db().donation(&reference)?.ok_or_else(not_found)?,
    };
    let donation = visible(&stored, viewer.as_ref().map(|v| v.user_email.as_str()));
    let value = serde_json::to_value(&donation).map_err(crate::error::SandboxError::from)?;
    Ok(json_response(StatusCode::OK, &without_nulls(value)))
}
