//! The argument of `createEvent` as core's [`Event`]: members read from the JS object by
//! their JS (camelCase) names, dates given as JS `Date`s (or the service's wire strings).

use fundraising_core::model::{Event, EventType};
use fundraising_core::ServiceDate;
use js_sys::Object;
use wasm_bindgen::prelude::*;

use crate::js_object::{member, number, set, string, to_json};
use crate::Error;

/// Reads `{name, description, eventType, location, startDate, completionDate, expiryDate,
/// charityId}` (`id` is ignored by the service and not sent); wrong types are `invalid_argument`.
pub(crate) fn event_from_js(value: &JsValue) -> Result<Event, Error> {
    if !value.is_object() {
        return Err(Error::invalid("event", "expected an object"));
    }
    let charity_id = number(value, "charityId")?
        .map(|id| {
            if id.fract() == 0.0 && id >= f64::from(i32::MIN) && id <= f64::from(i32::MAX) {
                Ok(id as i32)
            } else {
                Err(Error::invalid(
                    "charityId",
                    "expected a 32-bit whole number",
                ))
            }
        })
        .transpose()?;
    Ok(Event {
        name: string(value, "name")?.unwrap_or_default(),
        description: string(value, "description")?.unwrap_or_default(),
        id: None,
        completion_date: date(value, "completionDate")?,
        expiry_date: date(value, "expiryDate")?,
        start_date: date(value, "startDate")?,
        event_type: EventType::from_wire(&string(value, "eventType")?.unwrap_or_default()),
        location: string(value, "location")?.unwrap_or_default(),
        charity_id,
        error_message: None,
    })
}

/// A `Date` (or a `\/Date(..)\/` string) member.
fn date(object: &JsValue, name: &str) -> Result<Option<ServiceDate>, Error> {
    let value = member(object, name);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if let Some(date) = value.dyn_ref::<js_sys::Date>() {
        let millis = date.get_time();
        if millis.is_nan() {
            return Err(Error::invalid(name, "invalid Date"));
        }
        return Ok(Some(ServiceDate::from_millis(millis as i64)));
    }
    match value.as_string() {
        Some(text) => ServiceDate::parse(&text)
            .map(Some)
            .map_err(|e| Error::invalid(name, &crate::error::core_message(&e))),
        None => Err(Error::invalid(name, "expected a Date")),
    }
}

/// The request body of endpoint 6: the event in the service's camelCase shape, dates as
/// `\/Date(ms+0000)\/` (as core's model serialises it; `id` and `errorMessage` left out).
pub(crate) fn event_body(event: &Event) -> String {
    let date = |d: &Option<ServiceDate>| d.map_or(JsValue::NULL, |d| d.to_wire().into());
    let body = Object::new();
    set(&body, "name", &event.name.as_str().into());
    set(&body, "description", &event.description.as_str().into());
    set(&body, "completionDate", &date(&event.completion_date));
    set(&body, "expiryDate", &date(&event.expiry_date));
    set(&body, "startDate", &date(&event.start_date));
    set(&body, "eventType", &event.event_type.as_str().into());
    set(&body, "location", &event.location.as_str().into());
    set(
        &body,
        "charityId",
        &event.charity_id.map_or(JsValue::NULL, JsValue::from),
    );
    to_json(&body)
}
