//! The session as JS sees it, the `sessionState` names, and the client's `sessionchange` event
//! with its TypeScript declarations.

use fundraising_core::companion::Profile;
use fundraising_core::shape::TypeScript;
use fundraising_core::ServiceDate;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::{CustomEvent, CustomEventInit, EventTarget};

use crate::convert::to_js;
use crate::{JsDate, SessionChange, SessionState};

/// Serializes a date as a JS `Date` (`#[serde(serialize_with = "date")]`).
fn date<S: serde::Serializer>(date: &ServiceDate, serializer: S) -> Result<S::Ok, S::Error> {
    serde_wasm_bindgen::preserve::serialize(&date.to_js_date(), serializer)
}

/// The current sign-in: who signed in and until when, and (in token-mediating mode) the
/// short-lived access token. The refresh token stays in the companion's HttpOnly cookie; in
/// BFF mode the access token stays there too and `accessToken` is `null`.
#[derive(Serialize, TypeScript)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Session<'a> {
    /// The bearer token for resource calls; `null` in BFF mode.
    pub access_token: &'a Option<String>,
    /// When the access token expires (in BFF mode, the one the companion holds and renews).
    #[serde(serialize_with = "date")]
    pub expires_at: &'a ServiceDate,
    /// The scopes granted, space-separated, when the server said.
    pub scope: &'a Option<String>,
    /// Who signed in.
    pub profile: &'a Profile,
}

impl<'a> From<&'a crate::Session> for Session<'a> {
    fn from(session: &'a crate::Session) -> Self {
        Session {
            access_token: &session.access_token,
            expires_at: &session.expires_at,
            scope: &session.scope,
            profile: &session.profile,
        }
    }
}

/// A session as the JS object `{accessToken, expiresAt: Date, scope, profile}`, or `null`.
pub(crate) fn session_to_js(session: Option<&crate::Session>) -> JsValue {
    match session {
        Some(session) => to_js(&Session::from(session)),
        None => JsValue::NULL,
    }
}

/// The name JS sees for a session state (`sessionState`, `detail.state`).
pub(crate) fn state_name(state: &SessionState) -> &'static str {
    match state {
        SessionState::SignedIn(_) => "signedIn",
        SessionState::SignedOut => "signedOut",
        _ => "unknown",
    }
}

/// The event's name.
pub(crate) const SESSION_CHANGE: &str = "sessionchange";

/// `detail` of the event.
#[derive(Serialize)]
struct Change<'a> {
    reason: &'static str,
    state: &'static str,
    session: Option<Session<'a>>,
}

/// Fires `sessionchange` on `target` with `{reason, state, session}`.
pub(crate) fn dispatch(target: &EventTarget, change: &SessionChange) {
    let init = CustomEventInit::new();
    init.set_detail(&to_js(&Change {
        reason: change.reason.as_str(),
        state: state_name(&change.state),
        session: change.session().map(Session::from),
    }));
    if let Ok(event) = CustomEvent::new_with_event_init_dict(SESSION_CHANGE, &init) {
        let _ = target.dispatch_event(&event);
    }
}

macro_rules! session_change_ts {
    ($($(#[$doc:meta])* $variant:ident => $name:literal),* $(,)?) => {
        /// The declarations of `sessionState` and of the `sessionchange` event's detail.
        #[wasm_bindgen(typescript_custom_section)]
        const SESSION_CHANGE_TS: &str = concat!(
            "/** Where the page stands with the session (`client.sessionState`). */\n",
            "export type SessionState = \"unknown\" | \"signedOut\" | \"signedIn\";\n",
            "/** Why the session changed. */\n",
            "export type SessionChangeReason = ", $("\"", $name, "\" | ",)* "never;\n",
            "/** `detail` of the client's `sessionchange` event. */\n",
            "export interface SessionChange {\n",
            "  reason: SessionChangeReason;\n",
            "  /** The state now. */\n",
            "  state: SessionState;\n",
            "  /** The session now, or null when not signed in. */\n",
            "  session: Session | null;\n",
            "}\n"
        );
    };
}

crate::auth::with_reasons!(session_change_ts);
