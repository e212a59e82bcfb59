//! The crate's one error type and its conversion into the JS `FundraisingError`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/js/error.js")]
extern "C" {
    #[wasm_bindgen(js_name = newFundraisingError)]
    fn new_fundraising_error(code: &str, message: &str, status: Option<u16>) -> JsValue;
}

/// Every failure of the client; [`Error::code`] is the `code` JS sees.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// An argument or option breaks a rule; nothing was sent.
    #[error("{0}")]
    InvalidArgument(String),
    /// The service answered 404.
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
    /// The caller's `AbortSignal` fired.
    #[error("the operation was aborted")]
    Aborted,
    /// An answer that does not have the expected shape.
    #[error("cannot decode the answer: {0}")]
    Decode(String),
    /// `window.open` gave no window.
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
    /// The operation needs a browser window (sign-in), and there is none.
    #[error("{0}")]
    Unsupported(&'static str),
}

impl Error {
    /// The stable code JS branches on.
    pub fn code(&self) -> &str {
        match self {
            Error::InvalidArgument(_) => "invalid_argument",
            Error::NotFound(_) => "not_found",
            Error::Http { .. } => "http_error",
            Error::Network(_) => "network_error",
            Error::Timeout(_) => "timeout",
            Error::Aborted => "aborted",
            Error::Decode(_) => "decode_error",
            Error::PopupBlocked => "popup_blocked",
            Error::PopupClosed => "popup_closed",
            Error::OAuth { error, .. } if error == "access_denied" => "access_denied",
            Error::OAuth { .. } => "sign_in_failed",
            Error::InvalidCallback(_) => "invalid_callback",
            Error::StateMismatch(_) => "state_mismatch",
            Error::Companion { code, .. } => code,
            Error::Unsupported(_) => "unsupported",
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
            Core::Decode { .. } | Core::InvalidDate { .. } => Error::Decode(e.to_string()),
            Core::OAuth { ref error, .. } => Error::OAuth {
                error: error.clone(),
                message: e.to_string(),
            },
            Core::InvalidCallback { .. } => Error::InvalidCallback(e.to_string()),
            _ => Error::InvalidArgument(e.to_string()),
        }
    }
}

impl From<Error> for JsValue {
    fn from(e: Error) -> Self {
        new_fundraising_error(e.code(), &e.to_string(), e.status())
    }
}

/// The message of a JS exception, for [`Error::Network`] and friends.
pub(crate) fn js_message(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| "unknown JavaScript error".to_owned())
}
