//! `GET /{appId}/v1/event/{eventId}/pages`.

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use fundraising_core::json::event_pages_to_service_json;
use fundraising_core::model::EventPages;
use fundraising_core::validate;

use super::bearer::{known_app, viewer};
use super::{json_response, ApiError};
use crate::params::Params;
use crate::state::Sandbox;

/// `pagesize` when none is given.
pub const DEFAULT_PAGE_SIZE: u32 = 20;

fn invalid(e: fundraising_core::Error) -> ApiError {
    ApiError::bad_request(e.code(), e.to_string())
}

/// `page` and `pagesize` from the query (names case-insensitive), checked with the core's
/// rules (page >= 1, 1 <= pageSize <= 100); the error is the 400 answer.
pub fn paging(query: &str) -> Result<(u32, u32), ApiError> {
    let params = Params::parse(query).map_err(|e| ApiError::bad_request("invalid_argument", e))?;
    let value = |name: &str| {
        params
            .get_ignore_case(name)
            .map(|v| v.filter(|v| !v.is_empty()))
            .map_err(|e| ApiError::bad_request("invalid_argument", e))
    };
    let page = match value("page")? {
        None => 1,
        Some(text) => validate::parse_number("page", text)
            .and_then(validate::page)
            .map_err(invalid)?,
    };
    let page_size = match value("pagesize")? {
        None => DEFAULT_PAGE_SIZE,
        Some(text) => validate::parse_number("pageSize", text)
            .and_then(validate::page_size)
            .map_err(invalid)?,
    };
    Ok((page, page_size))
}

/// The event's fundraising pages, `pagesize` at a time, with totals over all of them.
pub async fn list(
    State(state): State<Sandbox>,
    Path((app_id, event_id)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    known_app(&state, &app_id)?;
    viewer(&state, &headers)?;
    let event_id = validate::parse_number("eventId", &event_id)
        .and_then(validate::event_id)
        .map_err(invalid)?;
    let (page, page_size) = paging(query.as_deref().unwrap_or(""))?;
    if state.db().event(i64::from(event_id))?.is_none() {
        return Err(ApiError::not_found(format!(
            "No event has the id {event_id}."
        )));
    }
    let (page, page_size) = (i64::from(page), i64::from(page_size));
    let offset = (page - 1).saturating_mul(page_size);
    let slice = state
        .db()
        .event_pages(i64::from(event_id), offset, page_size)?;
    let total_pages = (slice.total + page_size - 1) / page_size;
    let result = EventPages {
        event_id,
        fundraising_pages: slice.pages,
        total_fundraising_pages: i32::try_from(slice.total).unwrap_or(i32::MAX),
        total_pages: i32::try_from(total_pages).unwrap_or(i32::MAX),
        total_raised: slice.total_raised,
        error_message: None,
    };
    let mut value = event_pages_to_service_json(&result);
    if let Some(map) = value.as_object_mut() {
        map.remove("errorMessage");
    }
    Ok(json_response(StatusCode::OK, &value))
}
