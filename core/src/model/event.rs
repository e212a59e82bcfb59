//! The event creation body and its result (endpoint 6).

use serde::{Deserialize, Serialize};

use crate::shape::{Model, Record};

use super::EventType;
use crate::ServiceDate;

/// An event to create (the request body). `name` and `eventType` must not be empty, and the
/// dates must be in order: start, completion, expiry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Record, Model)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct Event {
    /// Event name; must not be empty.
    #[serde(default)]
    #[model(required)]
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
    /// Event id (Integer, 32 bit); ignored on creation, and never sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<i32>,
    /// Date the event finishes.
    pub completion_date: Option<ServiceDate>,
    /// Date the event expires and becomes unavailable on the site.
    pub expiry_date: Option<ServiceDate>,
    /// Event start date.
    pub start_date: Option<ServiceDate>,
    /// One of the nine listed types (or another value kept as text); must not be empty.
    #[serde(default)]
    #[model(required)]
    pub event_type: EventType,
    /// Location.
    #[serde(default)]
    pub location: String,
    /// Charity the event is associated with (Integer, 32 bit); may be null.
    pub charity_id: Option<i32>,
    /// Present on failure; never sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

/// The result of creating an event (status 201).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
pub struct EventCreated {
    /// Id of the new event (Integer, 32 bit). Required.
    pub id: i32,
    /// Link to the created event.
    pub next: Option<Link>,
    /// Present on failure.
    pub error_message: Option<String>,
    /// `Error.desc` of the spec: an error object `{id, desc}`, present on failure.
    pub error: Option<ErrorDetail>,
}

/// A link: `next` of the creation result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    /// Relation; the service sometimes puts the event's address here too.
    #[serde(default)]
    pub rel: String,
    /// Address of the created event: `{base_url}/<appId>/v1/event/<event_id>`.
    #[serde(default)]
    pub uri: String,
    /// Media type.
    #[serde(default)]
    pub r#type: String,
}

/// An error object `{id, desc}` as the service embeds it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    /// Error identifier (a JSON number is kept as its text).
    #[model(decimal_text)]
    pub id: Option<String>,
    /// Human-readable description.
    pub desc: Option<String>,
}
