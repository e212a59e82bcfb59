//! `GET /{appId}/v1/event/{eventId}/pages`.

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use fundraising_core::json::event_pages_to_service_json;
use fundraising_core::model::EventPages;

use super::bearer::{known_app, viewer};
use super::{json_response, ApiError};
use crate::params::Params;
use crate::state::Sandbox;

/// `pagesize` when none is given.
pub const DEFAULT_PAGE_SIZE: i64 = 20;
/// Largest `pagesize` accepted.
pub const MAX_PAGE_SIZE: i64 = 100;

/// `page` and `pagesize` from the query (names case-insensitive); the error is the 400 answer.
pub fn paging(query: &str) -> Result<(i64, i64), ApiError> {
    let params = Params::parse(query).map_err(|e| ApiError::bad_request("invalid_argument", e))?;
    let number = |name: &str, default: i64| -> Result<i64, ApiError> {
        match params
            .get_ignore_case(name)
            .map_err(|e| ApiError::bad_request("invalid_argument", e))?
        {
            None | Some("") => Ok(default),
            Some(v) => v.trim().parse::<i64>().map_err(|_| {
                ApiError::bad_request(
                    "invalid_argument",
                    format!("{name} must be a whole number, not {v:?}."),
                )
            }),
        }
    };
    let page = number("page", 1)?;
    let page_size = number("pagesize", DEFAULT_PAGE_SIZE)?;
    if page < 1 {
        return Err(ApiError::bad_request(
            "invalid_argument",
            "page must be 1 or more.",
        ));
    }
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(ApiError::bad_request(
            "invalid_argument",
            format!("pageSize must be between 1 and {MAX_PAGE_SIZE}."),
        ));
    }
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
    let event_id: i32 = event_id.trim().parse().map_err(|_| {
        ApiError::bad_request(
            "invalid_argument",
            format!("The event id {event_id:?} is not a 32-bit integer."),
        )
    })?;
    let (page, page_size) = paging(query.as_deref().unwrap_or(""))?;
    if state.db().event(i64::from(event_id))?.is_none() {
        return Err(ApiError::not_found(format!(
            "No event has the id {event_id}."
        )));
    }
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
