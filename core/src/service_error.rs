//! The error-body parser: every error shape the service uses becomes one [`ServiceError`].

use std::fmt;

use serde::Serialize;
use serde_json::Value;

pub use crate::json::JsonNode;

/// Longest message kept from a body.
const MESSAGE_LIMIT: usize = 1000;

/// An error answered by the service (or its identity server): HTTP status, optional service
/// error id, and a human-readable message.
///
/// It may gain fields in a minor version: read it, build it with [`parse_error_body`].
///
/// ```compile_fail
/// // Outside this crate it cannot be written as a literal.
/// let e = fundraising_core::ServiceError { status: 500, id: None, message: "x".into() };
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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
    parse_error_body_with(status, body, |text| {
        serde_json::from_str::<Value>(text).ok()
    })
}

/// [`parse_error_body`] with the JSON parser of the caller: `parse` gets the trimmed,
/// non-empty body and gives its JSON tree, or `None` when it is not JSON. The browser
/// package passes the platform's `JSON.parse`, so it carries no JSON parser of its own.
///
/// ```
/// use fundraising_core::service_error::parse_error_body_with;
/// let e = parse_error_body_with(503, "busy", |_| None::<serde_json::Value>);
/// assert_eq!((e.status, e.message.as_str()), (503, "busy"));
/// ```
pub fn parse_error_body_with<J: JsonNode>(
    status: u16,
    body: &str,
    parse: impl FnOnce(&str) -> Option<J>,
) -> ServiceError {
    let text = body.trim_start_matches('\u{feff}').trim();
    let (id, message) = if text.is_empty() {
        (None, None)
    } else {
        match parse(text).and_then(|value| from_json(&value)) {
            Some((id, message)) => (id, message),
            None => (None, Some(text.to_owned())),
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

type Found = (Option<String>, Option<String>);

/// An id and a message found in a JSON body; `None` when the body has no known shape.
fn from_json<J: JsonNode>(value: &J) -> Option<Found> {
    if value.is_object() {
        return from_object(value);
    }
    if let Some(items) = value.items() {
        return from_array(&items);
    }
    value
        .string()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .map(|s| (None, Some(s)))
}

fn from_object<J: JsonNode>(map: &J) -> Option<Found> {
    let error_message = map.member("errorMessage").as_ref().and_then(text);
    let (mut id, mut message) = match map.member("error") {
        Some(detail) if detail.is_object() => detail_of(&detail),
        Some(detail) => match detail.items() {
            Some(items) => from_array(&items).unwrap_or((None, None)),
            None => (
                text(&detail),
                map.member("error_description").as_ref().and_then(text),
            ),
        },
        None => detail_of(map),
    };
    if id.is_none() && message.is_none() {
        if let Some(items) = map.member("errors").and_then(|e| e.items()) {
            (id, message) = from_array(&items).unwrap_or((None, None));
        }
    }
    // The OAuth shape's code doubles as the message when there is no description.
    let message = error_message.or(message).or_else(|| id.clone());
    message.as_ref()?;
    Some((id, message))
}

/// `{id, desc}` (also `description` or `message` for the text).
fn detail_of<J: JsonNode>(map: &J) -> Found {
    let id = map.member("id").as_ref().and_then(text);
    let message = ["desc", "description", "message", "errorMessage"]
        .iter()
        .find_map(|name| map.member(name).as_ref().and_then(text));
    (id, message)
}

/// `[{id, desc}, ...]` or `["text", ...]`: the first id, the messages joined by `; `.
fn from_array<J: JsonNode>(items: &[J]) -> Option<Found> {
    let mut id = None;
    let mut messages = Vec::new();
    for item in items {
        let (item_id, item_message) = if item.is_object() {
            detail_of(item)
        } else {
            (None, text(item))
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

/// Non-empty text of a string or number.
fn text<J: JsonNode>(value: &J) -> Option<String> {
    match value.string() {
        Some(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        None => value.number_text(),
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
        _ => return ["HTTP status ", &crate::encoding::decimal(u64::from(status))].concat(),
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

    /// The rules read any JSON tree: here a minimal one, as the browser package's would be.
    #[derive(Clone)]
    enum Tree {
        Text(&'static str),
        Number(&'static str),
        Null,
        List(Vec<Tree>),
        Map(Vec<(&'static str, Tree)>),
    }

    impl JsonNode for Tree {
        type Names = Vec<String>;

        fn string(&self) -> Option<String> {
            match self {
                Tree::Text(s) => Some((*s).to_owned()),
                _ => None,
            }
        }
        fn number_text(&self) -> Option<String> {
            match self {
                Tree::Number(s) => Some((*s).to_owned()),
                _ => None,
            }
        }
        fn is_object(&self) -> bool {
            matches!(self, Tree::Map(_))
        }
        fn number(&self) -> Option<f64> {
            self.number_text()?.parse().ok()
        }
        fn boolean(&self) -> Option<bool> {
            None
        }
        fn is_null(&self) -> bool {
            matches!(self, Tree::Null)
        }
        fn items(&self) -> Option<Vec<Self>> {
            match self {
                Tree::List(items) => Some(items.clone()),
                _ => None,
            }
        }
        fn get(&self, name: &'static str) -> Option<Self> {
            match self {
                Tree::Map(members) => members
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.clone()),
                _ => None,
            }
        }
        fn names(&self) -> Option<Vec<String>> {
            match self {
                Tree::Map(members) => Some(members.iter().map(|(k, _)| (*k).to_owned()).collect()),
                _ => None,
            }
        }
        fn value_at(&self, _: &Vec<String>, index: usize) -> Option<Self> {
            match self {
                Tree::Map(members) => members.get(index).map(|(_, v)| v.clone()),
                _ => None,
            }
        }
    }

    #[test]
    fn any_json_tree_through_parse_error_body_with() {
        let with = |tree: Option<Tree>| {
            let e = parse_error_body_with(400, "\u{feff} body \n", |text| {
                assert_eq!(text, "body");
                tree
            });
            (e.id, e.message)
        };
        assert_eq!(with(None), (None, "body".into()));
        let detail = Tree::Map(vec![
            ("ID", Tree::Number("17")),
            ("Desc", Tree::Text(" y ")),
        ]);
        assert_eq!(
            with(Some(Tree::Map(vec![
                ("errorMessage", Tree::Null),
                ("Error", detail.clone()),
            ]))),
            (s("17"), "y".into())
        );
        assert_eq!(
            with(Some(Tree::List(vec![detail, Tree::Text("z")]))),
            (s("17"), "y; z".into())
        );
        assert_eq!(
            with(Some(Tree::Map(vec![(
                "error",
                Tree::Text("invalid_grant")
            )]))),
            (s("invalid_grant"), "invalid_grant".into())
        );
        assert_eq!(with(Some(Tree::Number("3"))), (None, "body".into()));
        let empty = parse_error_body_with(404, "  ", |_| -> Option<Tree> {
            panic!("an empty body is not parsed")
        });
        assert_eq!(empty.message, "Not Found");
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
