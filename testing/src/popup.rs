//! [`PopupWatch`]: a sign-in pop-up the app's own code opened, finished headlessly.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::{Error, Sandbox};

#[wasm_bindgen(inline_js = "
export function watch_open(block, seen) {
  const original = window.open;
  window.open = function (url, ...rest) {
    seen(String(url));
    return block ? null : original.call(window, url, ...rest);
  };
  return () => { window.open = original; };
}
export function hand_back(type, url) {
  window.dispatchEvent(new MessageEvent('message', { data: { type, url }, origin: location.origin }));
}
")]
extern "C" {
    fn watch_open(block: bool, seen: &Closure<dyn Fn(String)>) -> js_sys::Function;
    fn hand_back(kind: &str, url: &str);
}

/// The message type the sign-in pop-up hands its callback to its opener with
/// (`fundraising-client`'s pop-up protocol: a `message` from the page's own origin).
const CALLBACK_MESSAGE: &str = "fundraising-client:callback";

/// Watches the pages the app opens with `window.open` (its sign-in pop-up) while it lives, and
/// finishes such a sign-in without the pages: the test clicks the app's sign-in button, then
/// [`PopupWatch::sign_in`] signs the user in for the authorize request the pop-up was opened
/// with, and hands the callback to the app's client as the pop-up would. Dropping it puts
/// `window.open` back.
///
/// The pop-up's own page cannot hand the callback over in a test (the test page's origin is
/// not the registered home page's), so the watch does it from the test page.
pub struct PopupWatch {
    seen: Rc<RefCell<Vec<String>>>,
    restore: js_sys::Function,
    _seen_closure: Closure<dyn Fn(String)>,
}

impl PopupWatch {
    /// Starts watching; pop-ups still open.
    pub fn start() -> PopupWatch {
        PopupWatch::new(false)
    }

    /// Starts watching, and refuses every pop-up as a browser's pop-up blocker does
    /// (`window.open` gives no window): the app's fall-back to a redirect runs.
    pub fn blocking() -> PopupWatch {
        PopupWatch::new(true)
    }

    fn new(block: bool) -> PopupWatch {
        let seen: Rc<RefCell<Vec<String>>> = Rc::default();
        let sink = seen.clone();
        let closure = Closure::<dyn Fn(String)>::new(move |url| sink.borrow_mut().push(url));
        let restore = watch_open(block, &closure);
        PopupWatch {
            seen,
            restore,
            _seen_closure: closure,
        }
    }

    /// Every address `window.open` was called with, oldest first.
    pub fn opened(&self) -> Vec<String> {
        self.seen.borrow().clone()
    }

    /// Signs `user` in for the last pop-up opened and hands the callback to the page's
    /// client, as the pop-up does; the client then redeems the code at the companion (await
    /// the app's own session state for the outcome).
    pub async fn sign_in(&self, sandbox: &Sandbox, user: &str) -> Result<(), Error> {
        let authorize = self
            .seen
            .borrow()
            .last()
            .cloned()
            .ok_or_else(|| Error::NoSession("no pop-up was opened".into()))?;
        let callback = sandbox.callback_for(&authorize, user).await?;
        hand_back(CALLBACK_MESSAGE, &callback);
        Ok(())
    }
}

impl Drop for PopupWatch {
    fn drop(&mut self) {
        let _ = self.restore.call0(&JsValue::NULL);
    }
}
