//! The signed-in session, the state a page binds to, and what is told when it changes.

use std::fmt;

use fundraising_core::companion::{Profile, SessionStatus, TokenAnswer};
use fundraising_core::ServiceDate;

/// The current sign-in: who signed in and until when, and (in token-mediating mode) the
/// short-lived access token. The refresh token stays in the companion's HttpOnly cookie; in
/// BFF mode the access token stays there too and `access_token` is `None`.
///
/// `Debug` prints the access token as `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Session {
    /// The bearer token for resource calls; `None` in BFF mode.
    pub access_token: Option<String>,
    /// When the access token expires (in BFF mode, the one the companion holds and renews).
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

impl Session {
    /// The session a BFF companion holds, as `GET /auth/session` describes it (no token);
    /// `None` when it holds none.
    pub(crate) fn from_status(status: SessionStatus) -> Option<Self> {
        let profile = status.profile.filter(|_| status.active)?;
        Some(Session {
            access_token: None,
            expires_at: ServiceDate::from_millis(status.expires_at.unwrap_or_default()),
            scope: status.scope,
            profile,
        })
    }
}

/// Where the page stands with the session: the one state a UI binds to.
///
/// A page starts [`Unknown`](SessionState::Unknown) while it asks the companion
/// ([`Client::restore_session`](crate::Client::restore_session)); then it is
/// [`SignedOut`](SessionState::SignedOut) or [`SignedIn`](SessionState::SignedIn), and
/// sign-ins, refreshes, expiry and sign-outs (here or in another tab) move it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionState {
    /// Not known yet: the restore has not finished.
    Unknown,
    /// No session.
    SignedOut,
    /// Signed in, with this session.
    SignedIn(Session),
}

impl SessionState {
    /// The session, when signed in.
    pub fn session(&self) -> Option<&Session> {
        match self {
            SessionState::SignedIn(session) => Some(session),
            _ => None,
        }
    }

    /// True when the state is known (signed in or signed out).
    pub fn is_known(&self) -> bool {
        !matches!(self, SessionState::Unknown)
    }

    /// The state of `session`: signed in with it, or signed out.
    pub(crate) fn of(session: Option<Session>) -> Self {
        match session {
            Some(session) => SessionState::SignedIn(session),
            None => SessionState::SignedOut,
        }
    }
}

/// Calls the macro `$then` with every [`Reason`] as `Variant => "name"` pairs, the names
/// JavaScript sees: the one list the enum and the JS layer's declarations are made from.
macro_rules! with_reasons {
    ($then:ident) => {
        $then! {
            /// A restore finished: the page now knows whether the companion holds a session.
            Restore => "restore",
            /// A sign-in finished here, or a session was picked up from another tab.
            SignIn => "signin",
            /// The access token was renewed.
            Refresh => "refresh",
            /// Signed out, here or in another tab.
            SignOut => "signout",
            /// The companion no longer holds the session (`session_expired`).
            Expired => "expired",
        }
    };
}
#[allow(unused_imports)] // used by the JS layer
pub(crate) use with_reasons;

macro_rules! reason_enum {
    ($($(#[$doc:meta])* $variant:ident => $name:literal),* $(,)?) => {
        /// Why the session changed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Reason {
            $($(#[$doc])* $variant,)*
        }

        impl Reason {
            /// The name JavaScript sees in `sessionchange`'s `detail.reason`.
            pub fn as_str(self) -> &'static str {
                match self { $(Reason::$variant => $name,)* }
            }
        }
    };
}

with_reasons!(reason_enum);

/// A change of the session state, told to every subscriber
/// ([`Client::on_session_change`](crate::Client::on_session_change),
/// [`Client::session_changes`](crate::Client::session_changes)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionChange {
    /// Why it changed.
    pub reason: Reason,
    /// The state now.
    pub state: SessionState,
}

impl SessionChange {
    /// The session now, when signed in.
    pub fn session(&self) -> Option<&Session> {
        self.state.session()
    }
}
