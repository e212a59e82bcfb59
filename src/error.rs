//! The crate's one error type, with the stable codes both faces of the client report.

use fundraising_core::encoding::decimal;

macro_rules! error_codes {
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
        #[allow(dead_code)] // read by tests
        pub(crate) const CODES: &[&str] = &[$($code),*];

        /// The TypeScript declarations of `FundraisingErrorCode` (from the same codes) and
        /// `FundraisingError`, for the JS layer.
        #[allow(dead_code)] // read by the JS layer's `typescript_custom_section`
        pub(crate) const ERROR_TS: &str = concat!(
            "/** Stable machine-readable error codes; the companion may add codes of its own. */\n",
            "export type FundraisingErrorCode = ", $("\"", $code, "\" | ",)* "(string & {});\n\n",
            "/** The error every failing call rejects with. */\n",
            "export class FundraisingError extends Error {\n",
            "  private constructor();\n",
            "  /** Stable machine-readable code to branch on. */\n",
            "  readonly code: FundraisingErrorCode;\n",
            "  /** The HTTP status behind the error, or null. */\n",
            "  readonly status: number | null;\n",
            "}\n"
        );
    };
}

error_codes! {
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

/// Every failure of the client. [`Error::code`] is the stable code to branch on,
/// [`Error::status`] the HTTP status behind it, and `Display` (or [`Error::message`]) the
/// message, with the service's own words where it gave some.
///
/// ```
/// use fundraising_client::{code, Error};
/// let e = Error::NotFound("No campaign with that short name".into());
/// assert_eq!((e.code(), e.status()), (code::NOT_FOUND, Some(404)));
/// assert_eq!(e.to_string(), "not found (404): No campaign with that short name");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An argument or option breaks a rule; nothing was sent. The message names it.
    #[error("{0}")]
    InvalidArgument(String),
    /// The service answered 404, with its message.
    #[error("not found (404): {0}")]
    NotFound(String),
    /// The service answered another error status.
    #[error("HTTP {status}: {message}")]
    Http {
        /// The HTTP status.
        status: u16,
        /// The service's own message.
        message: String,
    },
    /// The request could not be sent or its answer not read.
    #[error("network error: {0}")]
    Network(String),
    /// The request or the sign-in took longer than allowed.
    #[error("{0}")]
    Timeout(&'static str),
    /// The operation was cancelled (in JavaScript, by its `AbortSignal`).
    #[error("the operation was aborted")]
    Aborted,
    /// An answer that does not have the expected shape.
    #[error("cannot decode the answer: {0}")]
    Decode(String),
    /// The browser gave no pop-up window (it was not opened from a user's click, or pop-ups
    /// are blocked); sign in with a redirect instead.
    #[error("the sign-in pop-up was blocked by the browser")]
    PopupBlocked,
    /// The pop-up was closed before sign-in finished.
    #[error("the sign-in pop-up was closed before sign-in finished")]
    PopupClosed,
    /// The identity server sent back an OAuth error (`access_denied` when the user said no).
    #[error("{message}")]
    OAuth {
        /// The OAuth `error` value, e.g. `access_denied`.
        error: String,
        /// The server's error and description.
        message: String,
    },
    /// A sign-in callback that cannot be understood (missing, empty or repeated parameter).
    #[error("{0}")]
    InvalidCallback(String),
    /// A callback whose state is unknown, already used or expired.
    #[error("{0}")]
    StateMismatch(String),
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
            Error::Http { .. } => code::HTTP_ERROR,
            Error::Network(_) => code::NETWORK_ERROR,
            Error::Timeout(_) => code::TIMEOUT,
            Error::Aborted => code::ABORTED,
            Error::Decode(_) => code::DECODE_ERROR,
            Error::PopupBlocked => code::POPUP_BLOCKED,
            Error::PopupClosed => code::POPUP_CLOSED,
            Error::OAuth { error, .. } if error == "access_denied" => code::ACCESS_DENIED,
            Error::OAuth { .. } => code::SIGN_IN_FAILED,
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
            Error::NotFound(_) => Some(404),
            Error::Http { status, .. } | Error::Companion { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// An [`Error::InvalidArgument`] naming the argument.
    pub(crate) fn invalid(field: &str, why: &str) -> Self {
        Error::InvalidArgument(["invalid ", field, ": ", why].concat())
    }

    /// The text of `Display`, put together without the formatting machinery (which would be a
    /// sizeable part of the npm package's wasm).
    pub fn message(&self) -> String {
        match self {
            Error::InvalidArgument(m) | Error::InvalidCallback(m) | Error::StateMismatch(m) => {
                m.clone()
            }
            Error::NotFound(m) => ["not found (404): ", m].concat(),
            Error::Http { status, message } => {
                ["HTTP ", &decimal(u64::from(*status)), ": ", message].concat()
            }
            Error::Network(m) => ["network error: ", m].concat(),
            Error::Timeout(m) | Error::Unsupported(m) => (*m).to_owned(),
            Error::Aborted => "the operation was aborted".to_owned(),
            Error::Decode(m) => ["cannot decode the answer: ", m].concat(),
            Error::PopupBlocked => "the sign-in pop-up was blocked by the browser".to_owned(),
            Error::PopupClosed => {
                "the sign-in pop-up was closed before sign-in finished".to_owned()
            }
            Error::OAuth { message, .. } | Error::Companion { message, .. } => message.clone(),
            Error::TokenNotAvailable => {
                "the companion runs in BFF mode: the access token stays on the server".to_owned()
            }
        }
    }
}

/// The text of a core error's `Display`, put together without the formatting machinery
/// (quoted values in plain double quotes).
pub(crate) fn core_message(e: &fundraising_core::Error) -> String {
    use fundraising_core::Error as Core;
    match e {
        Core::InvalidDate { input } => [
            "invalid date \"",
            input,
            "\": expected \\/Date(<milliseconds>[+-hhmm])\\/",
        ]
        .concat(),
        Core::Decode { message } => ["cannot decode the response: ", message].concat(),
        Core::InvalidArgument { field, message } => ["invalid ", field, ": ", message].concat(),
        Core::UnknownScope { scope } => [
            "unknown scope \"",
            scope,
            "\"; known scopes are openid, profile, email, account, fundraise, offline_access",
        ]
        .concat(),
        Core::ScopeUnavailable { scope } => [
            "scope \"",
            scope,
            "\" is announced by the service but not available yet",
        ]
        .concat(),
        Core::InvalidCallback { message } => ["invalid sign-in callback: ", message].concat(),
        Core::OAuth {
            error, description, ..
        } => match description {
            Some(d) => ["sign-in failed: ", error, " (", d, ")"].concat(),
            None => ["sign-in failed: ", error].concat(),
        },
        Core::Service(s) => {
            let text = ["HTTP ", &decimal(u64::from(s.status)), ": ", &s.message].concat();
            match &s.id {
                Some(id) => [text.as_str(), " [", id, "]"].concat(),
                None => text,
            }
        }
    }
}

impl From<fundraising_core::Error> for Error {
    fn from(e: fundraising_core::Error) -> Self {
        use fundraising_core::Error as Core;
        match e {
            Core::Service(s) if s.status == 404 => Error::NotFound(s.message),
            Core::Service(s) => Error::Http {
                status: s.status,
                message: s.message,
            },
            Core::Decode { .. } | Core::InvalidDate { .. } => Error::Decode(core_message(&e)),
            Core::OAuth { ref error, .. } => Error::OAuth {
                error: error.clone(),
                message: core_message(&e),
            },
            Core::InvalidCallback { .. } => Error::InvalidCallback(core_message(&e)),
            _ => Error::InvalidArgument(core_message(&e)),
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

    #[test]
    fn message_is_the_display_text_and_every_code_is_listed() {
        let all = [
            Error::InvalidArgument("invalid page: x".into()),
            Error::NotFound("No campaign".into()),
            Error::Http {
                status: 503,
                message: "busy".into(),
            },
            Error::Network("offline".into()),
            Error::Timeout("the request timed out"),
            Error::Aborted,
            Error::Decode("bad".into()),
            Error::PopupBlocked,
            Error::PopupClosed,
            Error::OAuth {
                error: "access_denied".into(),
                message: "sign-in failed: access_denied".into(),
            },
            Error::OAuth {
                error: "server_error".into(),
                message: "sign-in failed: server_error".into(),
            },
            Error::InvalidCallback("invalid sign-in callback: empty".into()),
            Error::StateMismatch("no sign-in is pending".into()),
            Error::Companion {
                code: "invalid_grant".into(),
                status: 400,
                message: "Code expired".into(),
            },
            Error::Unsupported("sign-in needs a browser window"),
            Error::TokenNotAvailable,
        ];
        let mut seen = Vec::new();
        for e in all {
            assert_eq!(e.message(), e.to_string());
            if !matches!(e, Error::Companion { .. }) {
                assert!(CODES.contains(&e.code()), "{}", e.code());
                seen.push(e.code().to_owned());
            }
        }
        for code in CODES {
            assert!(seen.iter().any(|s| s == code), "no variant has {code}");
        }
    }

    #[test]
    fn core_message_is_cores_display_text() {
        let all = [
            Core::InvalidDate {
                input: "soon".into(),
            },
            Core::Decode {
                message: "missing field".into(),
            },
            Core::invalid_argument("pageSize", "must be between 1 and 100, got 101"),
            Core::UnknownScope {
                scope: "admin".into(),
            },
            Core::ScopeUnavailable {
                scope: "social".into(),
            },
            Core::InvalidCallback {
                message: "parameter `code` is empty".into(),
            },
            Core::OAuth {
                error: "access_denied".into(),
                description: Some("The user said no".into()),
                uri: None,
                state: None,
            },
            Core::OAuth {
                error: "server_error".into(),
                description: None,
                uri: None,
                state: Some("s".into()),
            },
            Core::Service(parse_error_body(
                404,
                r#"{"error": {"id": "NF", "desc": "No"}}"#,
            )),
            Core::Service(parse_error_body(500, "")),
        ];
        for e in all {
            assert_eq!(core_message(&e), e.to_string());
        }
    }
}
