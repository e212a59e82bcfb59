//! The crate's one error type, with the stable codes both faces of the client report.

use fundraising_core::ServiceError;

/// Calls the macro `$then` with every stable code, as `NAME = "code"` pairs: the one list
/// [`code`], [`Error::code`]'s tests and the JS layer's TypeScript declarations are made from.
macro_rules! with_error_codes {
    ($then:ident) => {
        $then! {
            INVALID_ARGUMENT = "invalid_argument",
            NOT_FOUND = "not_found",
            HTTP_ERROR = "http_error",
            NETWORK_ERROR = "network_error",
            TIMEOUT = "timeout",
            ABORTED = "aborted",
            DECODE_ERROR = "decode_error",
            POPUP_BLOCKED = "popup_blocked",
            POPUP_CLOSED = "popup_closed",
            ACCESS_DENIED = "access_denied",
            SIGN_IN_FAILED = "sign_in_failed",
            INVALID_CALLBACK = "invalid_callback",
            STATE_MISMATCH = "state_mismatch",
            UNSUPPORTED = "unsupported",
            TOKEN_NOT_AVAILABLE = "token_not_available",
        }
    };
}
#[allow(unused_imports)] // used by the JS layer
pub(crate) use with_error_codes;

macro_rules! code_module {
    ($($name:ident = $code:literal),* $(,)?) => {
        /// The stable codes [`Error::code`] returns (JavaScript sees the same in
        /// `FundraisingError.code`). The companion may answer codes of its own
        /// ([`Error::Companion`]), e.g. `invalid_grant` or `session_expired`.
        pub mod code {
            $(
                #[doc = concat!("`", $code, "`")]
                pub const $name: &str = $code;
            )*
        }

        /// Every code of [`code`], in order.
        #[cfg(test)]
        pub(crate) const CODES: &[&str] = &[$($code),*];
    };
}

with_error_codes!(code_module);

/// Every failure of the client. [`Error::code`] is the stable code to branch on,
/// [`Error::status`] the HTTP status behind it, and `Display` the message, with the service's
/// own words where it gave some. Where a failure comes from one of `fundraising-core`'s rules
/// (a bad argument, the identity server's refusal), the variant holds core's error, which says
/// what went wrong; the service's error keeps its `id`; an answer that does not decode keeps
/// core's reason as its [`source`](std::error::Error::source). The npm package's
/// `FundraisingError.message` is the message and its sources, joined by `": "`.
///
/// New variants may come in a minor version: a `match` needs a `_` arm; branch on
/// [`Error::code`] where that is simpler.
///
/// ```
/// use fundraising_client::{code, Error};
/// use fundraising_core::service_error::parse_error_body;
/// let e = Error::from(fundraising_core::Error::Service(parse_error_body(
///     404,
///     r#"{"error": {"id": "NF1", "desc": "No campaign with that short name"}}"#,
/// )));
/// assert_eq!((e.code(), e.status()), (code::NOT_FOUND, Some(404)));
/// assert_eq!(e.to_string(), "HTTP 404: No campaign with that short name [NF1]");
/// assert_eq!(e.service_error().and_then(|s| s.id.as_deref()), Some("NF1"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument or option breaks a rule; nothing was sent. Core's error names it (by its
    /// Rust name: `base_url`, `page_size`; the npm package names JavaScript's: `baseUrl`).
    #[error(transparent)]
    InvalidArgument(fundraising_core::Error),
    /// The service answered 404, with its message.
    #[error(transparent)]
    NotFound(ServiceError),
    /// The service answered another error status, with its message.
    #[error(transparent)]
    Http(ServiceError),
    /// The request could not be sent or its answer not read.
    #[error("network error: {0}")]
    Network(String),
    /// The request or the sign-in took longer than allowed.
    #[error("{0}")]
    Timeout(&'static str),
    /// The operation was cancelled (in JavaScript, by its `AbortSignal`).
    #[error("the operation was aborted")]
    Aborted,
    /// An answer that does not have the expected shape; the source, core's error, says where.
    #[error("cannot decode the answer")]
    Decode(#[source] fundraising_core::Error),
    /// The browser gave no pop-up window (it was not opened from a user's click, or pop-ups
    /// are blocked); sign in with a redirect instead.
    #[error("the sign-in pop-up was blocked by the browser")]
    PopupBlocked,
    /// The pop-up was closed before sign-in finished.
    #[error("the sign-in pop-up was closed before sign-in finished")]
    PopupClosed,
    /// The identity server sent back an OAuth error (`access_denied` when the user said no).
    #[error(transparent)]
    OAuth(fundraising_core::Error),
    /// A sign-in callback that cannot be understood (missing, empty or repeated parameter).
    #[error(transparent)]
    InvalidCallback(fundraising_core::Error),
    /// A callback whose state is unknown, already used or expired.
    #[error("{0}")]
    StateMismatch(&'static str),
    /// The companion refused, with its own stable code (e.g. `invalid_grant`, `session_expired`).
    #[error("{message}")]
    Companion {
        /// The companion's code.
        code: String,
        /// The HTTP status.
        status: u16,
        /// The companion's message.
        message: String,
    },
    /// The operation needs something this platform lacks (a window for sign-in, storage).
    #[error("{0}")]
    Unsupported(&'static str),
    /// In BFF mode the access token stays on the companion; the page never gets it.
    #[error("the companion runs in BFF mode: the access token stays on the server")]
    TokenNotAvailable,
}

impl Error {
    /// The stable code (one of [`code`], or the companion's own).
    pub fn code(&self) -> &str {
        match self {
            Error::InvalidArgument(_) => code::INVALID_ARGUMENT,
            Error::NotFound(_) => code::NOT_FOUND,
            Error::Http(_) => code::HTTP_ERROR,
            Error::Network(_) => code::NETWORK_ERROR,
            Error::Timeout(_) => code::TIMEOUT,
            Error::Aborted => code::ABORTED,
            Error::Decode(_) => code::DECODE_ERROR,
            Error::PopupBlocked => code::POPUP_BLOCKED,
            Error::PopupClosed => code::POPUP_CLOSED,
            Error::OAuth(fundraising_core::Error::OAuth { error, .. })
                if error == "access_denied" =>
            {
                code::ACCESS_DENIED
            }
            Error::OAuth(_) => code::SIGN_IN_FAILED,
            Error::InvalidCallback(_) => code::INVALID_CALLBACK,
            Error::StateMismatch(_) => code::STATE_MISMATCH,
            Error::Companion { code, .. } => code,
            Error::Unsupported(_) => code::UNSUPPORTED,
            Error::TokenNotAvailable => code::TOKEN_NOT_AVAILABLE,
        }
    }

    /// The HTTP status behind the error, if any.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::NotFound(e) | Error::Http(e) => Some(e.status),
            Error::Companion { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The service's error answer (status, its error `id` when it sent one, and its message),
    /// for [`Error::NotFound`] and [`Error::Http`].
    pub fn service_error(&self) -> Option<&ServiceError> {
        match self {
            Error::NotFound(e) | Error::Http(e) => Some(e),
            _ => None,
        }
    }

    /// An [`Error::InvalidArgument`] naming the argument by its Rust name.
    pub(crate) fn invalid(argument: &str, reason: &str) -> Self {
        Error::InvalidArgument(fundraising_core::Error::invalid_argument(argument, reason))
    }

    /// An [`Error::Decode`] saying why.
    pub(crate) fn decode(message: impl Into<String>) -> Self {
        Error::Decode(fundraising_core::Error::Decode {
            message: message.into(),
        })
    }
}

impl From<fundraising_core::Error> for Error {
    fn from(e: fundraising_core::Error) -> Self {
        use fundraising_core::Error as Core;
        match e {
            Core::Service(s) if s.status == 404 => Error::NotFound(s),
            Core::Service(s) => Error::Http(s),
            Core::Decode { .. } | Core::InvalidDate { .. } => Error::Decode(e),
            Core::OAuth { .. } => Error::OAuth(e),
            Core::InvalidCallback { .. } => Error::InvalidCallback(e),
            _ => Error::InvalidArgument(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fundraising_core::service_error::parse_error_body;
    use fundraising_core::Error as Core;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    fn every_kind() -> Vec<Error> {
        vec![
            Error::invalid("page_size", "must be between 1 and 100, got 101"),
            Core::Service(parse_error_body(404, r#"{"errorMessage": "No campaign"}"#)).into(),
            Core::Service(parse_error_body(503, "busy")).into(),
            Error::Network("offline".into()),
            Error::Timeout("the request timed out"),
            Error::Aborted,
            Error::decode("Donation.id: missing"),
            Error::PopupBlocked,
            Error::PopupClosed,
            Core::OAuth {
                error: "access_denied".into(),
                description: Some("The user said no".into()),
                uri: None,
                state: None,
            }
            .into(),
            Core::OAuth {
                error: "server_error".into(),
                description: None,
                uri: None,
                state: None,
            }
            .into(),
            Core::InvalidCallback {
                message: "parameter `code` is empty".into(),
            }
            .into(),
            Error::StateMismatch("no sign-in is pending"),
            Error::Companion {
                code: "invalid_grant".into(),
                status: 400,
                message: "Code expired".into(),
            },
            Error::Unsupported("sign-in needs a browser window"),
            Error::TokenNotAvailable,
        ]
    }

    #[test]
    fn every_code_has_a_variant() {
        let seen: Vec<String> = every_kind()
            .iter()
            .filter(|e| !matches!(e, Error::Companion { .. }))
            .map(|e| e.code().to_owned())
            .collect();
        for code in &seen {
            assert!(CODES.contains(&code.as_str()), "{code} is not listed");
        }
        for code in CODES {
            assert!(seen.iter().any(|s| s == code), "no variant has {code}");
        }
    }

    #[test]
    fn messages_say_each_thing_once_and_keep_the_service_id() {
        let messages: Vec<String> = every_kind().iter().map(ToString::to_string).collect();
        assert_eq!(
            messages[0],
            "invalid page_size: must be between 1 and 100, got 101"
        );
        assert_eq!(messages[1], "HTTP 404: No campaign");
        assert_eq!(messages[6], "cannot decode the answer");
        let source = std::error::Error::source(&every_kind()[6]).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("Donation.id: missing"));
        assert_eq!(
            messages[9],
            "sign-in failed: access_denied (The user said no)"
        );
        for message in &messages {
            assert!(!message.is_empty());
            for prefix in ["cannot decode", "HTTP ", "sign-in failed", "invalid "] {
                assert!(
                    message.matches(prefix).count() <= 1,
                    "{prefix:?} twice in {message:?}"
                );
            }
        }
        let e = Error::from(Core::Service(parse_error_body(
            400,
            r#"{"error": {"id": "E7", "desc": "Bad name"}}"#,
        )));
        assert_eq!(e.to_string(), "HTTP 400: Bad name [E7]");
        assert_eq!(e.service_error().unwrap().id.as_deref(), Some("E7"));
        assert_eq!(e.status(), Some(400));
    }
}
