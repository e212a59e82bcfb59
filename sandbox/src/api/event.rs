//! The handler of [`fundraising_core::operation::CREATE_EVENT`]: registers an event.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use fundraising_core::model::{Event, EventCreated, Link};
use fundraising_core::operation;
use serde_json::{Map, Value};

use super::bearer::caller;
use super::guard::{is_json_media_type, Segments};
use super::reply::without_nulls;
use super::{json_response, ApiError};
use crate::error::SandboxError;
use crate::state::Sandbox;

/// Largest accepted event body, in bytes; larger is 413.
pub const MAX_EVENT_BODY_BYTES: usize = 64 * 1024;

/// Longest accepted text fields, in characters (Unicode scalar values); longer is 400.
pub const FIELD_LIMITS: [(&str, usize); 4] = [
    ("name", 255),
    ("description", 4000),
    ("location", 255),
    ("eventType", 100),
];

/// Decodes and checks an event body as the service reads it: core's [`Event`] (names
/// case-insensitive, dates only as `"\/Date(ms[±hhmm])\/"`), the field limits, then core's
/// event rules. The error is the 400 answer, naming the offending field.
pub fn parse_event(body: &[u8]) -> Result<Event, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(
            "decode_error",
            format!("The request body is not valid JSON: {e}"),
        )
    })?;
    let event: Event = match fundraising_core::json::decode_request(&value) {
        Ok(event) => event,
        // Decoded again only on failure, to name the member at fault.
        Err(e) => return Err(body_error(serde_json::from_slice(body).ok(), e)),
    };
    let texts = [
        event.name.as_str(),
        event.description.as_str(),
        event.location.as_str(),
        event.event_type.as_str(),
    ];
    for ((field, limit), text) in FIELD_LIMITS.iter().zip(texts) {
        if text.chars().count() > *limit {
            return Err(invalid(fundraising_core::Error::invalid_argument(
                field,
                format!("must be at most {limit} characters"),
            )));
        }
    }
    fundraising_core::validate::event(&event).map_err(invalid)?;
    Ok(event)
}

fn invalid(e: fundraising_core::Error) -> ApiError {
    let e = e.with_wire_names();
    ApiError::bad_request(
        e.code(),
        format!("The request body is not a valid event: {e}"),
    )
}

/// The 400 of a body that core's decoder refused: the first member that fails on its own
/// (for example a date not in the service's form) is named; else the body as a whole.
fn body_error(value: Option<Value>, error: fundraising_core::Error) -> ApiError {
    let reason = |e: fundraising_core::Error| match e {
        fundraising_core::Error::Decode { message } => message,
        other => other.to_string(),
    };
    let Some(Value::Object(members)) = value else {
        return ApiError::bad_request(
            "decode_error",
            format!(
                "The request body is not a JSON object of an event: {}",
                reason(error)
            ),
        );
    };
    for (name, member) in members {
        let single = Value::Object(Map::from_iter([(name.clone(), member)]));
        if let Err(e) = fundraising_core::json::decode_request::<Event>(&single) {
            return invalid(fundraising_core::Error::invalid_argument(&name, reason(e)));
        }
    }
    ApiError::bad_request(
        "decode_error",
        format!("The request body is not a valid event: {}", reason(error)),
    )
}

/// 415 unless the request says `Content-Type: application/json`.
pub(crate) fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(is_json_media_type);
    if json {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "The request body must be sent as Content-Type: application/json.",
        )
        .with_id("unsupported_media_type"))
    }
}

/// The body as read, or the 413 (over [`MAX_EVENT_BODY_BYTES`]) or 400 of a failed read.
pub(crate) fn read_body(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("The request body is larger than {MAX_EVENT_BODY_BYTES} bytes."),
            )
            .with_id("body_too_large")
        } else {
            ApiError::new(
                rejection.status(),
                format!(
                    "The request body could not be read: {}",
                    rejection.body_text()
                ),
            )
            .with_id("body_unreadable")
        }
    })
}

/// Stores the event; 201 with `id`, `next` and a `Location` header.
pub async fn create(
    State(state): State<Sandbox>,
    Segments(app_id): Segments<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    caller(&state, &app_id, &headers)?;
    require_json(&headers)?;
    let event = parse_event(&read_body(body)?)?;
    let id = state
        .db()
        .create_event(&app_id, &event, state.clock().now_millis())?;
    // The new event's address: below the operation's own path (`.../event/` then the id).
    let uri = format!(
        "{}{}{}{id}",
        state.public_base_url(),
        operation::PREFIX.replace("{appId}", &app_id),
        operation::CREATE_EVENT.path
    );
    let created = model!(EventCreated {
        id: id,
        next: Some(model!(Link {
            rel: uri.clone(),
            uri: uri.clone(),
            r#type: "application/json".into(),
        })),
        error_message: None,
        error: None,
    });
    let value = serde_json::to_value(&created).map_err(SandboxError::from)?;
    let mut response = json_response(StatusCode::CREATED, &without_nulls(value));
    if let Ok(location) = HeaderValue::from_str(&uri) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}
