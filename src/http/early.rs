//! Early answers: a request a page started before the package was loaded (an element of the
//! widgets starts its first one beside the package's download and compile), handed over with
//! `adoptResponse(url, promise)` (early.js) and taken by the package's next request to that
//! address in place of its own fetch. Only a GET without a bearer token or cookies takes one:
//! what the page sent is then what the package would send. The answer is read by the call's own
//! decoder and rules; a failed one (a network error, a status that is not 2xx) counts for
//! nothing, and the package fetches itself, as the first attempt of its call (retried as its
//! calls are), under the same timeout and signal.

use gloo_net::http::{Request, RequestBuilder, Response};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/http/early.js")]
extern "C" {
    #[wasm_bindgen(js_name = takeResponse)]
    fn take_response(request: &web_sys::Request) -> Option<js_sys::Promise>;
}

/// The declaration of early.js's export, which the package's entry module re-exports.
#[cfg(feature = "js")]
#[wasm_bindgen(typescript_custom_section)]
const ADOPT_RESPONSE_TS: &str = r#"
/**
 * Hands the package the answer of a request the page started before the package was loaded:
 * `response`, the `fetch` of `url` (absolute; a GET without credentials or an `Authorization`
 * header). The package's next request to exactly `url` takes it in place of its own, once, and
 * reads it as it reads its own; when it failed (a network error, a status that is not 2xx) the
 * package fetches itself, with its retries.
 */
export function adoptResponse(url: string | URL, response: Promise<Response>): void;
"#;

/// Sends the request of `builder`: the early answer for it when there is a good one, else the
/// request itself.
pub(super) async fn send(builder: RequestBuilder) -> Result<Response, gloo_net::Error> {
    let request = web_sys::Request::from(builder.build()?);
    if let Some(answer) = take_response(&request) {
        if let Ok(answer) = JsFuture::from(answer).await {
            if !answer.is_null() {
                return Ok(answer.unchecked_into::<web_sys::Response>().into());
            }
        }
    }
    Request::from(request).send().await
}
