//! The error-body parser: every error shape the service uses becomes one [`ServiceError`].

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// Longest message kept from a body.
const MESSAGE_LIMIT: usize = 1000;

/// An error answered by the service (or its identity server): HTTP status, optional service
/// error id, and a human-readable message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
pub struct ServiceError {
    /// HTTP status of the response.
    pub status: u16,
    /// The service's error id (`error.id`, `[{id}]`, or the OAuth `error` code), when sent.
    pub id: Option<String>,
    /// What went wrong, from the body, or the status's reason phrase when the body says nothing.
    pub message: String,
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {}: {}", self.status, self.message)?;
        if let Some(id) = &self.id {
            write!(f, " [{id}]")?;
        }
        Ok(())
    }
}

/// Turns an error response into a [`ServiceError`]. Understands
/// `{"errorMessage": "..."}`, `{"error": {"id": "...", "desc": "..."}}`,
/// `[{"id": "...", "desc": "..."}, ...]`, the OAuth `{"error": "...", "error_description": "..."}`,
/// `{"message": "..."}`, a JSON string, plain text, and an empty body (member names match
/// case-insensitively). Never fails: an unknown shape keeps the body text as the message.
///
/// ```
/// use fundraising_core::service_error::parse_error_body;
/// let e = parse_error_body(400, r#"{"error": {"id": "E1", "desc": "Bad name"}}"#);
/// assert_eq!((e.id.as_deref(), e.message.as_str()), (Some("E1"), "Bad name"));
/// assert_eq!(parse_error_body(404, "").message, "Not Found");
/// ```
pub fn parse_error_body(status: u16, body: &str) -> ServiceError {
    let text = body.trim_start_matches('\u{feff}').trim();
    let (id, message) = if text.is_empty() {
        (None, None)
    } else {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => match from_json(&value) {
                Some((id, message)) => (id, message),
                None => (None, Some(text.to_owned())),
            },
            Err(_) => (None, Some(text.to_owned())),
        }
    };
    ServiceError {
        status,
        id: id.map(|i| cut(&i)),
        message: message
            .map(|m| cut(&m))
            .unwrap_or_else(|| reason_phrase(status)),
    }
}

/// An id and a message found in a JSON body; `None` when the body has no known shape.
fn from_json(value: &Value) -> Option<(Option<String>, Option<String>)> {
    match value {
        Value::Object(map) => from_object(map),
        Value::Array(items) => from_array(items),
        Value::String(s) if !s.trim().is_empty() => Some((None, Some(s.trim().to_owned()))),
        _ => None,
    }
}

fn from_object(map: &Map<String, Value>) -> Option<(Option<String>, Option<String>)> {
    let error_message = member(map, "errorMessage").and_then(text);
    let (mut id, mut message) = match member(map, "error") {
        Some(Value::Object(detail)) => detail_of(detail),
        Some(Value::Array(items)) => from_array(items).unwrap_or((None, None)),
        Some(other) => (text(other), member(map, "error_description").and_then(text)),
        None => detail_of(map),
    };
    if id.is_none() && message.is_none() {
        if let Some(Value::Array(items)) = member(map, "errors") {
            (id, message) = from_array(items).unwrap_or((None, None));
        }
    }
    // The OAuth shape's code doubles as the message when there is no description.
    let message = error_message.or(message).or_else(|| id.clone());
    message.as_ref()?;
    Some((id, message))
}

/// `{id, desc}` (also `description` or `message` for the text).
fn detail_of(map: &Map<String, Value>) -> (Option<String>, Option<String>) {
    let id = member(map, "id").and_then(text);
    let message = ["desc", "description", "message", "errorMessage"]
        .iter()
        .find_map(|name| member(map, name).and_then(text));
    (id, message)
}

/// `[{id, desc}, ...]` or `["text", ...]`: the first id, the messages joined by `; `.
fn from_array(items: &[Value]) -> Option<(Option<String>, Option<String>)> {
    let mut id = None;
    let mut messages = Vec::new();
    for item in items {
        let (item_id, item_message) = match item {
            Value::Object(map) => detail_of(map),
            other => (None, text(other)),
        };
        if id.is_none() {
            id = item_id;
        }
        messages.extend(item_message);
    }
    if messages.is_empty() {
        return id.map(|i| (Some(i.clone()), Some(i)));
    }
    Some((id, Some(messages.join("; "))))
}

/// A member by ASCII case-insensitive name, ignoring nulls.
fn member<'a>(map: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    map.iter()
        .find(|(k, v)| k.eq_ignore_ascii_case(name) && !v.is_null())
        .map(|(_, v)| v)
}

/// Non-empty text of a string or number.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn cut(s: &str) -> String {
    if s.chars().count() <= MESSAGE_LIMIT {
        s.to_owned()
    } else {
        s.chars().take(MESSAGE_LIMIT).chain("…".chars()).collect()
    }
}

/// The reason phrase of a status, for bodies that say nothing.
fn reason_phrase(status: u16) -> String {
    let phrase = match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        410 => "Gone",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return format!("HTTP status {status}"),
    };
    phrase.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(status: u16, body: &str) -> (u16, Option<String>, String) {
        let e = parse_error_body(status, body);
        (e.status, e.id, e.message)
    }

    fn s(v: &str) -> Option<String> {
        Some(v.to_owned())
    }

    #[test]
    fn every_documented_shape() {
        assert_eq!(
            parsed(400, r#"{"errorMessage": "Name is required"}"#),
            (400, None, "Name is required".into())
        );
        assert_eq!(
            parsed(
                400,
                r#"{"error": {"id": "InvalidEvent", "desc": "Bad dates"}}"#
            ),
            (400, s("InvalidEvent"), "Bad dates".into())
        );
        assert_eq!(
            parsed(
                400,
                r#"[{"id": "A", "desc": "first"}, {"id": "B", "desc": "second"}]"#
            ),
            (400, s("A"), "first; second".into())
        );
        assert_eq!(
            parsed(500, "  Something broke\n"),
            (500, None, "Something broke".into())
        );
        assert_eq!(parsed(404, ""), (404, None, "Not Found".into()));
        assert_eq!(parsed(404, " \n\t"), (404, None, "Not Found".into()));
        assert_eq!(parsed(599, ""), (599, None, "HTTP status 599".into()));
    }

    #[test]
    fn casing_numbers_and_other_shapes() {
        assert_eq!(
            parsed(
                400,
                r#"{"ErrorMessage": "x", "Error": {"ID": 17, "Desc": "y"}}"#
            ),
            (400, s("17"), "x".into())
        );
        assert_eq!(
            parsed(
                400,
                r#"{"error": "invalid_grant", "error_description": "Code expired"}"#
            ),
            (400, s("invalid_grant"), "Code expired".into())
        );
        assert_eq!(
            parsed(401, r#"{"error": "invalid_client"}"#),
            (401, s("invalid_client"), "invalid_client".into())
        );
        assert_eq!(
            parsed(500, r#"{"Message": "An error has occurred."}"#),
            (500, None, "An error has occurred.".into())
        );
        assert_eq!(
            parsed(400, r#""just text""#),
            (400, None, "just text".into())
        );
        assert_eq!(
            parsed(400, r#"{"errorMessage": null, "error": {"desc": "d"}}"#),
            (400, None, "d".into())
        );
        assert_eq!(parsed(400, r#"["a", "b"]"#), (400, None, "a; b".into()));
        assert_eq!(parsed(400, r#"[{"id": "X"}]"#), (400, s("X"), "X".into()));
    }

    #[test]
    fn unknown_json_keeps_the_text_and_empty_json_the_reason() {
        assert_eq!(
            parsed(418, r#"{"foo": 1}"#),
            (418, None, r#"{"foo": 1}"#.into())
        );
        assert_eq!(parsed(403, "{}"), (403, None, "{}".into()));
        assert_eq!(parsed(400, "[]"), (400, None, "[]".into()));
        assert_eq!(parsed(400, "null"), (400, None, "null".into()));
    }

    #[test]
    fn long_bodies_are_cut() {
        let e = parse_error_body(500, &"x".repeat(5000));
        assert_eq!(e.message.chars().count(), MESSAGE_LIMIT + 1);
        assert!(e.message.ends_with('…'));
    }

    #[test]
    fn display_and_crate_error() {
        let e = parse_error_body(404, r#"{"error": {"id": "NF", "desc": "No donation"}}"#);
        assert_eq!(e.to_string(), "HTTP 404: No donation [NF]");
        let err: crate::Error = e.clone().into();
        assert_eq!(err.code(), "service_error");
        assert_eq!(err.status(), Some(404));
        assert_eq!(err.to_string(), e.to_string());
    }
}
