//! The handler of [`fundraising_core::operation::CAMPAIGN`]: a campaign by its short name.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use fundraising_core::json::campaign_to_service_json;

use super::bearer::caller;
use super::guard::Segments;
use super::{json_response, ApiError};
use crate::state::Sandbox;

/// The campaign in the service's PascalCase; 404 when unknown.
pub async fn by_short_name(
    State(state): State<Sandbox>,
    Segments((app_id, short_name)): Segments<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller(&state, &app_id, &headers)?;
    let campaign = state.db().campaign(&short_name)?.ok_or_else(|| {
        ApiError::not_found(format!("No campaign has the short name {short_name:?}."))
    })?;
    let mut value = campaign_to_service_json(&campaign);
    if let Some(map) = value.as_object_mut() {
        if map.get("ErrorMessage").is_some_and(|v| v.is_null()) {
            map.remove("ErrorMessage");
        }
    }
    Ok(json_response(StatusCode::OK, &value))
}
