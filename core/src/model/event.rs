//! The event creation body and its result (endpoint 6).

use serde::{Deserialize, Serialize};

use crate::shape::{Model, Record};

use super::EventType;
use crate::ServiceDate;

/// An event to create (the request body). The name and the type must not be empty, and the
/// dates must be in order: start, completion, expiry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Record, Model)]
#[serde(rename_all = "camelCase")]
#[model(input)]
#[non_exhaustive]
pub struct Event {
    /// Event name; must not be empty.
    #[serde(default)]
    #[model(required)]
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
    /// Event id (Integer, 32 bit); ignored by the service on creation, so never sent.
    #[serde(skip_serializing)]
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
    #[serde(skip_serializing)]
    pub error_message: Option<String>,
}

impl Event {
    /// An event named `name` of the type `event_type`, with no description, location, dates
    /// or charity yet; the setters add them. (New optional members may come in a minor
    /// version, so outside this crate an event is built this way rather than as a literal.)
    ///
    /// ```
    /// use fundraising_core::model::{Event, EventType};
    /// use fundraising_core::ServiceDate;
    /// let event = Event::new("Riverside 10k", EventType::RunningMarathons)
    ///     .location("Riverside Park")
    ///     .start_date(ServiceDate::from_millis(1_893_456_000_000));
    /// assert_eq!(event.location, "Riverside Park");
    /// ```
    pub fn new(name: impl Into<String>, event_type: impl Into<EventType>) -> Self {
        Event {
            name: name.into(),
            event_type: event_type.into(),
            ..Event::default()
        }
    }

    /// Sets [`Event::description`].
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Sets [`Event::location`].
    pub fn location(mut self, location: impl Into<String>) -> Self {
        self.location = location.into();
        self
    }

    /// Sets [`Event::start_date`].
    pub fn start_date(mut self, date: impl Into<ServiceDate>) -> Self {
        self.start_date = Some(date.into());
        self
    }

    /// Sets [`Event::completion_date`].
    pub fn completion_date(mut self, date: impl Into<ServiceDate>) -> Self {
        self.completion_date = Some(date.into());
        self
    }

    /// Sets [`Event::expiry_date`].
    pub fn expiry_date(mut self, date: impl Into<ServiceDate>) -> Self {
        self.expiry_date = Some(date.into());
        self
    }

    /// Sets [`Event::charity_id`].
    pub fn charity_id(mut self, charity_id: i32) -> Self {
        self.charity_id = Some(charity_id);
        self
    }
}

/// The result of creating an event (status 201).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Model)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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
#[non_exhaustive]
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
#[non_exhaustive]
pub struct ErrorDetail {
    /// Error identifier (a JSON number is kept as its text).
    #[model(decimal_text)]
    pub id: Option<String>,
    /// Human-readable description.
    pub desc: Option<String>,
}
