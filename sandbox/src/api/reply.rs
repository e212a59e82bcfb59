//! JSON answers of the resource API, in the service's encoding.

use axum::body::Bytes;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use fundraising_core::json::to_service_text;
use serde_json::{json, Value};

use crate::error::SandboxError;

/// `Content-Type` of every JSON answer.
pub const JSON_UTF8: &str = "application/json; charset=utf-8";

/// A JSON answer with `\/Date()\/` dates escaped as the service escapes them.
pub fn json_response(status: StatusCode, value: &Value) -> Response {
    json_bytes_response(status, Bytes::from(to_service_text(value)))
}

/// A JSON answer from its ready text.
pub fn json_bytes_response(status: StatusCode, body: Bytes) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, HeaderValue::from_static(JSON_UTF8))],
        body,
    )
        .into_response()
}

/// An error of the resource API: `{"errorMessage": ...}`, plus `{"error": {id, desc}}` for
/// validation failures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// The `errorMessage`.
    pub message: String,
    /// The `error` object's `id`, when there is one.
    pub id: Option<String>,
    /// Extra headers (`WWW-Authenticate`).
    pub authenticate: Option<&'static str>,
}

impl ApiError {
    /// An error with a message only.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            id: None,
            authenticate: None,
        }
    }

    /// 404 with a message.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// 400 with a message and an error id (also the `error` object).
    pub fn bad_request(id: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message).with_id(id)
    }

    /// 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
    pub fn invalid_token(message: impl Into<String>) -> Self {
        Self {
            authenticate: Some("Bearer error=\"invalid_token\""),
            ..Self::new(StatusCode::UNAUTHORIZED, message)
        }
    }

    /// The same error with an `error {id, desc}` object (the event creation result's `Error`).
    pub fn with_id(mut self, id: &str) -> Self {
        self.id = Some(id.to_owned());
        self
    }
}

impl From<SandboxError> for ApiError {
    fn from(e: SandboxError) -> Self {
        tracing::error!("internal error: {e}");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal error of the sandbox.",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "errorMessage": self.message });
        if let Some(id) = &self.id {
            body["error"] = json!({ "id": id, "desc": self.message });
        }
        let mut response = json_response(self.status, &body);
        if let Some(value) = self.authenticate {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(value));
        }
        response
    }
}

/// Turns a core rule's error (a decode, date or argument failure) into a 400 with its code.
/// Core's rules name values by their Rust names; the service's answers name them as its
/// JSON does (`pageSize`).
impl From<fundraising_core::Error> for ApiError {
    fn from(e: fundraising_core::Error) -> Self {
        let e = e.with_wire_names();
        Self::bad_request(e.code(), e.to_string())
    }
}

/// Fallback for unknown paths.
pub async fn not_found() -> ApiError {
    ApiError::not_found("The requested resource does not exist.")
}

/// Fallback for a known path with a method it does not support.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "The method is not allowed on this resource.",
    )
}

/// Removes `null` members of a JSON object (fields that are "present only if ...").
pub fn without_nulls(mut value: Value) -> Value {
    if let Value::Object(map) = &mut value {
        map.retain(|_, v| !v.is_null());
    }
    value
}
