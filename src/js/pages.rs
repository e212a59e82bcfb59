//! `getEventPages`, and `eventPages`: the walk over every fundraising page summary of an event, as a JS async
//! iterator.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use fundraising_core::model::EventPages;
use js_sys::{Array, Object, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::client::FundraisingClient;
use super::decode::decode;
use super::options::{PageOptions, PagesOptions};
use super::promise::{promise, spawn};
use crate::convert::to_js;
use crate::http::{Browser, HttpResponse};
use crate::pages::{Pages, DEFAULT_PAGE_SIZE};
use crate::{Client, Error};

#[wasm_bindgen(module = "/src/js/iterator.js")]
extern "C" {
    #[wasm_bindgen(js_name = asyncIterable)]
    fn async_iterable(iterator: JsValue) -> JsValue;
}

/// One page of the walk as JS objects: the summaries, and `totalPages`.
fn js_page(
    answer: &HttpResponse,
    buffer: &mut VecDeque<JsValue>,
) -> Result<(usize, Option<f64>), Error> {
    let pages = decode::<EventPages>(answer)?;
    let member = |name: &str| Reflect::get(&pages, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let summaries = Array::from(&member("fundraisingPages"));
    buffer.extend(summaries.iter());
    Ok((summaries.length() as usize, member("totalPages").as_f64()))
}

/// The walk and the caller's signal.
struct PageWalk {
    pages: Pages<Browser, JsValue>,
    signal: Option<AbortSignal>,
}

/// The iterator `eventPages` returns: `next()` resolves with `{value, done}`, one
/// FundraisingPageSummary at a time, fetching the next page when the current one is used up.
#[wasm_bindgen]
pub struct EventPagesIterator {
    walk: Rc<RefCell<PageWalk>>,
}

impl EventPagesIterator {
    /// An iterator from page 1, already made `for await`-able; `invalid_argument` at once for
    /// a bad event id or page size.
    pub(crate) fn start(
        client: Client,
        event_id: i32,
        page_size: Option<u32>,
        signal: Option<AbortSignal>,
    ) -> Result<JsValue, Error> {
        let page_size = page_size.unwrap_or(DEFAULT_PAGE_SIZE);
        let pages = Pages::new(client, event_id, page_size, js_page)?;
        let walk = Rc::new(RefCell::new(PageWalk { pages, signal }));
        Ok(async_iterable(EventPagesIterator { walk }.into()))
    }
}

#[wasm_bindgen]
impl EventPagesIterator {
    /// The next page summary: `{value, done: false}`, or `{value: undefined, done: true}`.
    #[wasm_bindgen(
        unchecked_return_type = "Promise<IteratorResult<FundraisingPageSummary, undefined>>"
    )]
    #[allow(clippy::await_holding_refcell_ref)] // one call at a time, see below
    pub fn next(&self) -> Promise {
        let walk = self.walk.clone();
        spawn(Box::pin(async move {
            // `src/js/iterator.js` queues the calls of `next()`: one runs at a time, so this
            // borrow never meets another.
            let next = {
                let mut walk = walk.borrow_mut();
                let PageWalk { pages, signal } = &mut *walk;
                pages.next(signal.as_ref()).await
            };
            Ok(match next? {
                Some(value) => result(value, false),
                None => result(JsValue::UNDEFINED, true),
            })
        }))
    }
}

/// One result of `next()`: `{value, done}`.
#[derive(Serialize)]
struct Step {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    value: JsValue,
    done: bool,
}

fn result(value: JsValue, done: bool) -> JsValue {
    to_js(&Step { value, done })
}

/// The event id argument, by core's rule for numbers.
fn event_id_argument(value: &JsValue) -> Result<i32, Error> {
    let number = value
        .as_f64()
        .ok_or_else(|| Error::invalid("eventId", "expected a number"))?;
    Ok(fundraising_core::validate::number::event_id(number)?)
}

#[wasm_bindgen]
impl FundraisingClient {
    /// One page of the fundraising pages of an event.
    #[wasm_bindgen(js_name = getEventPages, unchecked_return_type = "Promise<EventPages>")]
    pub fn get_event_pages(
        &self,
        #[wasm_bindgen(js_name = eventId, unchecked_param_type = "number")] event_id: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "PageOptions")] options: Option<Object>,
    ) -> Promise {
        let client = self.client.clone();
        let options = PageOptions::read(options);
        promise(async move {
            let options = options?;
            let event_id = event_id_argument(&event_id)?;
            let answer = client
                .event_pages_response(
                    event_id,
                    options.page,
                    options.page_size,
                    options.signal.as_ref(),
                )
                .await?;
            decode::<fundraising_core::model::EventPages>(&answer)
        })
    }

    /// Every FundraisingPageSummary of the event, page after page, as an async iterator
    /// (`for await (const page of client.eventPages(1001)) ...`). Throws `invalid_argument`
    /// at once for bad arguments.
    #[wasm_bindgen(js_name = eventPages, unchecked_return_type = "AsyncIterableIterator<FundraisingPageSummary>")]
    pub fn event_pages(
        &self,
        #[wasm_bindgen(js_name = eventId, unchecked_param_type = "number")] event_id: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "PagesOptions")] options: Option<Object>,
    ) -> Result<JsValue, JsValue> {
        let (page_size, signal) = PagesOptions::read(options)?;
        let event_id = event_id_argument(&event_id)?;
        Ok(EventPagesIterator::start(
            self.client.clone(),
            event_id,
            page_size,
            signal,
        )?)
    }
}
