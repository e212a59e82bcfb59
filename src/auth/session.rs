//! The signed-in session, and what is told when it changes.

use std::fmt;

use fundraising_core::companion::{Profile, TokenAnswer};
use fundraising_core::ServiceDate;
use serde::{Deserialize, Serialize};

/// The current sign-in: who signed in and until when, and (in token-mediating mode) the
/// short-lived access token. The refresh token stays in the companion's HttpOnly cookie; in
/// BFF mode the access token stays there too and `access_token` is `None`.
///
/// `Debug` prints the access token as `[redacted]`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// The bearer token for resource calls; `None` in BFF mode.
    pub access_token: Option<String>,
    /// When the access token expires.
    pub expires_at: ServiceDate,
    /// The scopes granted, space-separated, when the server said.
    pub scope: Option<String>,
    /// Who signed in.
    pub profile: Profile,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field(
                "access_token",
                &self.access_token.as_ref().map(|_| "[redacted]"),
            )
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("profile", &self.profile)
            .finish()
    }
}

impl From<TokenAnswer> for Session {
    fn from(answer: TokenAnswer) -> Self {
        Session {
            access_token: answer.access_token,
            expires_at: ServiceDate::from_millis(answer.expires_at),
            scope: answer.scope,
            profile: answer.profile,
        }
    }
}

macro_rules! reasons {
    ($($(#[$doc:meta])* $variant:ident => $name:literal),* $(,)?) => {
        /// Why the session changed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Reason {
            $($(#[$doc])* $variant,)*
        }

        impl Reason {
            /// The name JavaScript sees in `sessionchange`'s `detail.reason`.
            pub fn as_str(self) -> &'static str {
                match self { $(Reason::$variant => $name,)* }
            }

        }

        /// The declarations of the JS `sessionchange` event's detail, for the JS layer.
        #[allow(dead_code)] // read by the JS layer's `typescript_custom_section`
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
    /// A sign-in finished here, or a session was picked up from the companion.
    SignIn => "signin",
    /// The access token was renewed.
    Refresh => "refresh",
    /// Signed out, here or in another tab.
    SignOut => "signout",
    /// The companion no longer holds the session (`session_expired`).
    Expired => "expired",
}

/// A change of the session, told to every subscriber
/// ([`Client::on_session_change`](crate::Client::on_session_change)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionChange {
    /// Why it changed.
    pub reason: Reason,
    /// The session now; `None` when signed out.
    pub session: Option<Session>,
}
