//! `POST /{appId}/v1/event/`: registers an event.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use fundraising_core::model::{Event, EventCreated, Link};

use super::bearer::{known_app, viewer};
use super::reply::without_nulls;
use super::{json_response, ApiError};
use crate::error::SandboxError;
use crate::state::Sandbox;

/// Decodes and checks an event body; the error is the 400 answer.
pub fn parse_event(body: &[u8]) -> Result<Event, ApiError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| ApiError::bad_request("decode_error", "The body is not UTF-8 text."))?;
    let event: Event = fundraising_core::json::decode(text).map_err(|e| {
        ApiError::bad_request(e.code(), format!("The event body is not valid: {e}"))
    })?;
    fundraising_core::validate::event(&event).map_err(|e| {
        ApiError::bad_request(e.code(), format!("The event body is not valid: {e}"))
    })?;
    Ok(event)
}

/// Stores the event; 201 with `id`, `next` and a `Location` header.
pub async fn create(
    State(state): State<Sandbox>,
    Path(app_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    known_app(&state, &app_id)?;
    viewer(&state, &headers)?;
    let event = parse_event(&body)?;
    let id = state
        .db()
        .create_event(&app_id, &event, state.clock().now_millis())?;
    let uri = format!("{}/{app_id}/v1/event/{id}", state.public_base_url());
    let created = EventCreated {
        id,
        next: Some(Link {
            rel: uri.clone(),
            uri: uri.clone(),
            r#type: "application/json".into(),
        }),
        error_message: None,
        error: None,
    };
    let value = serde_json::to_value(&created).map_err(SandboxError::from)?;
    let mut response = json_response(StatusCode::CREATED, &without_nulls(value));
    if let Ok(location) = HeaderValue::from_str(&uri) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}
