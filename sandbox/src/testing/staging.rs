//! `POST /_sandbox/staged-donations`: stages a donation for the donation return flow. Test-only,
//! served only with `enable_test_routes = true` in the configuration.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::json;

use crate::api::{json_response, read_body, require_json, ApiError};
use crate::config::{StagedDonation, MAX_STAGED_DONATIONS};
use crate::state::Sandbox;
use crate::store::StageError;

/// The route's path.
pub const STAGING_PATH: &str = "/_sandbox/staged-donations";

/// Stages the donation of the body (a `[[staged_donations]]` entry as JSON), its times counted
/// from now; 201 with the reference. 400 for a bad entry, 409 for a staged reference or when
/// [`MAX_STAGED_DONATIONS`] are staged.
pub async fn stage(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    require_json(&headers)?;
    let body = read_body(body)?;
    let entry: StagedDonation = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request(
            "invalid_argument",
            format!("The request body is not a staged donation: {e}"),
        )
    })?;
    let reference = entry.reference.clone();
    let staged = state
        .staged_donations()
        .stage(entry, state.clock().now_millis());
    match staged {
        Ok(()) => Ok(json_response(
            StatusCode::CREATED,
            &json!({ "thirdPartyReference": reference }),
        )),
        Err(StageError::Invalid(why)) => Err(ApiError::bad_request(
            "invalid_argument",
            format!("The request body is not a valid staged donation: {why}"),
        )),
        Err(StageError::Duplicate) => Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("A donation with the reference {reference:?} is staged already."),
        )
        .with_id("duplicate_reference")),
        Err(StageError::Full) => Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("At most {MAX_STAGED_DONATIONS} donations can be staged."),
        )
        .with_id("too_many_staged_donations")),
    }
}
