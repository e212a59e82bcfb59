//! `eventPages`: the walk over every fundraising page summary of an event, as a JS async
//! iterator.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use fundraising_core::model::EventPages;
use js_sys::{Array, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::decode::decode;
use super::promise::spawn;
use crate::convert::to_js;
use crate::http::HttpResponse;
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
struct Walk {
    pages: Pages<JsValue>,
    signal: Option<AbortSignal>,
}

/// The iterator `eventPages` returns: `next()` resolves with `{value, done}`, one
/// FundraisingPageSummary at a time, fetching the next page when the current one is used up.
#[wasm_bindgen]
pub struct EventPagesIterator {
    walk: Rc<RefCell<Walk>>,
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
        let walk = Rc::new(RefCell::new(Walk { pages, signal }));
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
                let Walk { pages, signal } = &mut *walk;
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
