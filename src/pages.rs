//! `eventPages`: an async iterator over every fundraising page summary of an event.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{Array, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use crate::client::Inner;
use crate::convert::to_js;
use crate::Error;

#[wasm_bindgen(module = "/src/js/iterator.js")]
extern "C" {
    #[wasm_bindgen(js_name = asyncIterable)]
    fn async_iterable(iterator: JsValue) -> JsValue;
}

/// Where the iteration stands.
struct Cursor {
    client: Rc<Inner>,
    event_id: i32,
    page_size: u32,
    signal: Option<AbortSignal>,
    next_page: u32,
    buffer: VecDeque<JsValue>,
    finished: bool,
}

/// The iterator `eventPages` returns: `next()` resolves with `{value, done}`, one
/// FundraisingPageSummary at a time, fetching the next page when the current one is used up.
#[wasm_bindgen]
pub struct EventPagesIterator {
    cursor: Rc<RefCell<Cursor>>,
}

impl EventPagesIterator {
    /// An iterator from page 1, already made `for await`-able.
    pub(crate) fn start(
        client: Rc<Inner>,
        event_id: i32,
        page_size: u32,
        signal: Option<AbortSignal>,
    ) -> JsValue {
        let cursor = Cursor {
            client,
            event_id,
            page_size,
            signal,
            next_page: 1,
            buffer: VecDeque::new(),
            finished: false,
        };
        async_iterable(
            EventPagesIterator {
                cursor: Rc::new(RefCell::new(cursor)),
            }
            .into(),
        )
    }
}

#[wasm_bindgen]
impl EventPagesIterator {
    /// The next page summary: `{value, done: false}`, or `{value: undefined, done: true}`.
    #[wasm_bindgen(
        unchecked_return_type = "Promise<IteratorResult<FundraisingPageSummary, undefined>>"
    )]
    pub fn next(&self) -> Promise {
        let cursor = self.cursor.clone();
        crate::client::spawn(Box::pin(async move { step(&cursor).await }))
    }
}

async fn step(cursor: &RefCell<Cursor>) -> Result<JsValue, Error> {
    loop {
        let (client, event_id, page, size, signal) = {
            let mut c = cursor.borrow_mut();
            if let Some(value) = c.buffer.pop_front() {
                return Ok(result(value, false));
            }
            if c.finished {
                return Ok(result(JsValue::UNDEFINED, true));
            }
            (
                c.client.clone(),
                c.event_id,
                c.next_page,
                c.page_size,
                c.signal.clone(),
            )
        };
        let pages = client
            .event_pages(
                f64::from(event_id),
                Some(f64::from(page)),
                Some(f64::from(size)),
                signal,
            )
            .await?;
        let member = |name: &str| Reflect::get(&pages, &name.into()).unwrap_or(JsValue::UNDEFINED);
        let summaries = Array::from(&member("fundraisingPages"));
        let total_pages = member("totalPages").as_f64().unwrap_or(0.0);
        let mut c = cursor.borrow_mut();
        c.next_page = page + 1;
        // Without a page count, a short page is the last one.
        c.finished = summaries.length() == 0
            || if total_pages > 0.0 {
                f64::from(page) >= total_pages
            } else {
                summaries.length() < size
            };
        c.buffer.extend(summaries.iter());
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
