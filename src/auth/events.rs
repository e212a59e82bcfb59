//! Session changes: a `sessionchange` event on the client, and the tabs of one origin kept in
//! step through a `BroadcastChannel`: a sign-out in one tab signs the client out in every
//! other tab, and a sign-in is picked up by the others through the companion's session.

use std::rc::Weak;

use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::{BroadcastChannel, CustomEvent, CustomEventInit, EventTarget, MessageEvent};

use super::{Auth, Session};
use crate::convert::to_js;

/// The event's name.
pub(crate) const SESSION_CHANGE: &str = "sessionchange";

/// Why the session changed (`detail.reason` of the event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    /// A sign-in finished here, or a session was picked up from the companion.
    SignIn,
    /// The access token was renewed.
    Refresh,
    /// Signed out, here or in another tab.
    SignOut,
    /// The companion no longer holds the session (`session_expired`).
    Expired,
}

macro_rules! reasons {
    ($($variant:ident => $name:literal),* $(,)?) => {
        impl Reason {
            fn as_str(self) -> &'static str {
                match self { $(Reason::$variant => $name,)* }
            }
        }

        /// The declarations of the event's detail.
        #[allow(dead_code)] // read by the `typescript_custom_section` in typescript.rs
        pub(crate) const SESSION_CHANGE_TS: &str = concat!(
            "/** Why the session changed. */\n",
            "export type SessionChangeReason = ", $("\"", $name, "\" | ",)* "never;\n",
            "/** `detail` of the client's `sessionchange` event. */\n",
            "export interface SessionChange {\n",
            "  reason: SessionChangeReason;\n",
            "  /** The session now, or null when signed out. */\n",
            "  session: Session | null;\n",
            "}\n"
        );
    };
}

reasons! {
    SignIn => "signin",
    Refresh => "refresh",
    SignOut => "signout",
    Expired => "expired",
}

/// `detail` of the event.
#[derive(Serialize)]
struct Change<'a> {
    reason: &'static str,
    session: Option<&'a Session>,
}

/// The client's event target and its channel to the other tabs.
pub(crate) struct SessionEvents {
    target: Option<EventTarget>,
    channel: Option<BroadcastChannel>,
    _listener: Option<Closure<dyn FnMut(MessageEvent)>>,
}

impl SessionEvents {
    /// Events for the client of `app_id`. When it can sign in (`tabs`), a channel (where the
    /// platform has one) tells `auth` what other tabs did; the channel never keeps a Node
    /// process alive (it is `unref`ed where the platform can).
    pub(crate) fn new(app_id: &str, tabs: bool, auth: Weak<Auth>) -> Self {
        let target = EventTarget::new().ok();
        let channel = tabs
            .then(|| BroadcastChannel::new(&["fundraising-client:session:", app_id].concat()).ok())
            .flatten();
        if let Some(channel) = &channel {
            if let Ok(unref) = js_sys::Reflect::get(channel, &"unref".into()) {
                if let Some(unref) = unref.dyn_ref::<js_sys::Function>() {
                    let _ = unref.call0(channel);
                }
            }
        }
        let listener = channel.as_ref().map(|channel| {
            let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let Some(auth) = auth.upgrade() else { return };
                // What one tab tells the others: the reason, as a string.
                if let Some(kind) = event.data().as_string() {
                    auth.on_other_tab(&kind);
                }
            });
            channel.set_onmessage(Some(listener.as_ref().unchecked_ref()));
            listener
        });
        SessionEvents {
            target,
            channel,
            _listener: listener,
        }
    }

    /// The event target listeners are added to.
    pub(crate) fn target(&self) -> Option<&EventTarget> {
        self.target.as_ref()
    }

    /// Fires `sessionchange` with `{reason, session}`.
    pub(crate) fn dispatch(&self, reason: Reason, session: Option<&Session>) {
        let Some(target) = &self.target else { return };
        let init = CustomEventInit::new();
        init.set_detail(&to_js(&Change {
            reason: reason.as_str(),
            session,
        }));
        if let Ok(event) = CustomEvent::new_with_event_init_dict(SESSION_CHANGE, &init) {
            let _ = target.dispatch_event(&event);
        }
    }

    /// Tells the other tabs of this origin: `signin` or `signout`.
    pub(crate) fn tell_other_tabs(&self, reason: Reason) {
        if let Some(channel) = &self.channel {
            let _ = channel.post_message(&JsValue::from_str(reason.as_str()));
        }
    }
}

impl Drop for SessionEvents {
    fn drop(&mut self) {
        if let Some(channel) = &self.channel {
            channel.set_onmessage(None);
            channel.close();
        }
    }
}
