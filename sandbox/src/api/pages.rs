//! The handler of [`fundraising_core::operation::PAGES`]: the fundraising pages of an event.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use fundraising_core::json::{event_pages_to_service_json, to_service_text};
use fundraising_core::model::EventPages;
use fundraising_core::validate;

use super::bearer::caller;
use super::guard::Segments;
use super::reply::json_bytes_response;
use super::ApiError;
use crate::params::Params;
use crate::state::Sandbox;

/// `pagesize` when none is given.
pub const DEFAULT_PAGE_SIZE: u32 = 20;

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
            .and_then(validate::number::page)
            .map_err(ApiError::from)?,
    };
    let page_size = match value("pagesize")? {
        None => DEFAULT_PAGE_SIZE,
        Some(text) => validate::parse_number("page_size", text)
            .and_then(validate::number::page_size)
            .map_err(ApiError::from)?,
    };
    Ok((page, page_size))
}

/// The event's fundraising pages, `pagesize` at a time, with totals over all of them. The
/// serialized answer is kept per (event, page, pagesize) until the pages change.
pub async fn list(
    State(state): State<Sandbox>,
    Segments((app_id, event_id)): Segments<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller(&state, &app_id, &headers)?;
    let event_id = validate::parse_number("event_id", &event_id)
        .and_then(validate::number::event_id)
        .map_err(ApiError::from)?;
    let (page, page_size) = paging(query.as_deref().unwrap_or(""))?;
    let key = (event_id, page, page_size);
    let body = match state.db().cached_pages_answer(key) {
        Some(body) => body,
        None => {
            let generation = state.db().pages_generation();
            let body = Bytes::from(answer_text(&state, event_id, page, page_size)?);
            state.db().keep_pages_answer(key, generation, body.clone());
            body
        }
    };
    Ok(json_bytes_response(StatusCode::OK, body))
}

/// The answer's text, built from the database (404 for an unknown event).
pub fn answer_text(
    state: &Sandbox,
    event_id: i32,
    page: u32,
    page_size: u32,
) -> Result<String, ApiError> {
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
    let result = model!(EventPages {
        event_id: event_id,
        fundraising_pages: slice.pages,
        total_fundraising_pages: i32::try_from(slice.total).unwrap_or(i32::MAX),
        total_pages: i32::try_from(total_pages).unwrap_or(i32::MAX),
        total_raised: slice.total_raised,
        error_message: None,
    });
    let mut value = event_pages_to_service_json(&result);
    if let Some(map) = value.as_object_mut() {
        map.remove("errorMessage");
    }
    Ok(to_service_text(&value))
}
