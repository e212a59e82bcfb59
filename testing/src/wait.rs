//! Waiting on a condition with a deadline, never a fixed sleep: the page's state, polled
//! every 20 ms.

use std::future::Future;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Waits until `condition` holds, polling it every 20 ms; panics with `what` (and the time
/// waited) once `timeout_ms` has passed.
pub async fn until(timeout_ms: f64, what: &str, mut condition: impl FnMut() -> bool) {
    let started = js_sys::Date::now();
    while !condition() {
        assert!(
            js_sys::Date::now() - started < timeout_ms,
            "{what} (waited {timeout_ms} ms)"
        );
        pause(20).await;
    }
}

/// Waits until the future `condition` resolves to `true` (a call of the sandbox, say),
/// trying again every 20 ms; panics with `what` once `timeout_ms` has passed.
pub async fn until_async<F: Future<Output = bool>>(
    timeout_ms: f64,
    what: &str,
    mut condition: impl FnMut() -> F,
) {
    let started = js_sys::Date::now();
    while !condition().await {
        assert!(
            js_sys::Date::now() - started < timeout_ms,
            "{what} (waited {timeout_ms} ms)"
        );
        pause(20).await;
    }
}

/// The first element `selector` finds in `root`, once there is one (deadline 15 s).
pub async fn element(root: &web_sys::Element, selector: &str) -> web_sys::Element {
    let mut found = None;
    until(15_000.0, &format!("{selector} never showed"), || {
        found = root.query_selector(selector).ok().flatten();
        found.is_some()
    })
    .await;
    found.unwrap_or_else(|| unreachable!("until returned with the element found"))
}

/// A turn of the event loop after `ms` milliseconds (a timer: the page's tasks run meanwhile).
pub async fn pause(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let global = js_sys::global();
        let set_timeout = js_sys::Reflect::get(&global, &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(set_timeout) = set_timeout {
            let _ = set_timeout.call2(&global, &resolve, &ms.into());
        }
    });
    let _ = JsFuture::from(promise).await;
}
