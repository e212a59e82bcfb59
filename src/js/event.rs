//! `createEvent`, and its argument as core's [`Event`], read by serde-wasm-bindgen. Dates may be
//! JS `Date`s (the natural form in JS) or the service's own strings (`"/Date(ms+0000)/"`);
//! each `Date` member is first written as that string, so one serde form reads both.

use fundraising_core::model::Event;
use fundraising_core::ServiceDate;
use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

use super::client::FundraisingClient;
use super::convert::from_js;
use super::decode::decode;
use super::options::CallOptions;
use super::promise::promise;
use crate::Error;

/// Reads `{name, description, eventType, location, startDate, completionDate, expiryDate,
/// charityId}` (core never sends `id` or `errorMessage`); wrong types are `invalid_argument`.
pub(crate) fn event_from_js(value: &JsValue) -> Result<Event, Error> {
    if !value.is_object() {
        return Err(Error::invalid("event", "expected an object"));
    }
    let copy = Object::new();
    for key in Object::keys(value.unchecked_ref::<Object>()).iter() {
        let member = Reflect::get(value, &key).unwrap_or(JsValue::UNDEFINED);
        let member = match member.dyn_ref::<js_sys::Date>() {
            Some(date) => {
                let millis = date.get_time();
                if millis.is_nan() {
                    let name = key.as_string().unwrap_or_default();
                    return Err(Error::invalid(&name, "invalid Date"));
                }
                ServiceDate::from_millis(millis as i64)
                    .to_json_string()
                    .into()
            }
            None => member,
        };
        let _ = Reflect::set(&copy, &key, &member);
    }
    from_js(copy.into(), "event")
}

#[wasm_bindgen]
impl FundraisingClient {
    /// Registers an event (never retried).
    #[wasm_bindgen(js_name = createEvent, unchecked_return_type = "Promise<EventCreated>")]
    pub fn create_event(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Event")] event: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<Object>,
    ) -> Promise {
        let client = self.client.clone();
        let options = CallOptions::read(options);
        let event = event_from_js(&event);
        promise(async move {
            let options = options?;
            let answer = client
                .create_event_response(&event?, options.signal.as_ref())
                .await?;
            decode::<fundraising_core::model::EventCreated>(&answer)
        })
    }
}
