//! The crate's one error type, with the stable codes both faces of the client report.

use std::fmt;

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
/// core's reason as its [`source`](std::error::Error::source) (and core keeps serde_json's
/// error as its own); a request that fails keeps the browser's error as a [`ScriptError`].
/// The npm package's `FundraisingError.message` is the message and its sources, joined by
/// `": "`.
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
    /// The request could not be sent or its answer not read; the source is what the platform's
    /// `fetch` rejected with (a `TypeError` in every browser).
    #[error("network error")]
    Network(#[source] ScriptError),
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
    /// A failure of one of `fundraising-core`'s rules of a kind newer than this version of the
    /// client (core's error is `#[non_exhaustive]`); [`Error::code`] is core's own code.
    #[error(transparent)]
    Core(fundraising_core::Error),
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
            Error::Core(e) => e.code(),
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
    #[cfg(any(test, feature = "signin", all(feature = "js", feature = "__operation")))]
    pub(crate) fn decode(message: impl Into<String>) -> Self {
        Error::Decode(fundraising_core::Error::Decode {
            message: message.into(),
        })
    }
}

/// Each of core's errors as the client reports it: the service's refusal by its status, a
/// document that does not decode (its shape, its JSON, a date in it), a rule an argument
/// breaks (scopes among them), the identity server's OAuth error, a callback that cannot be
/// read. Core's error stays inside, so the message and the sources are core's.
impl From<fundraising_core::Error> for Error {
    fn from(e: fundraising_core::Error) -> Self {
        use fundraising_core::Error as Core;
        match e {
            Core::Service(s) if s.status == 404 => Error::NotFound(s),
            Core::Service(s) => Error::Http(s),
            Core::Decode { .. } | Core::Json(_) | Core::InvalidDate { .. } => Error::Decode(e),
            Core::InvalidArgument { .. }
            | Core::UnknownScope { .. }
            | Core::ScopeUnavailable { .. } => Error::InvalidArgument(e),
            Core::OAuth { .. } => Error::OAuth(e),
            Core::InvalidCallback { .. } => Error::InvalidCallback(e),
            // Only a later version of core has other kinds; each keeps its own code.
            _ => Error::Core(e),
        }
    }
}

/// What JavaScript threw or rejected with, as a plain Rust value (it is `Send` and `Sync`, unlike
/// the JS value): an `Error`'s `name` and `message`, e.g. `TypeError` and `Failed to fetch`.
/// The source of [`Error::Network`].
///
/// ```
/// use fundraising_client::{Error, ScriptError};
/// let e = Error::Network(ScriptError::new("TypeError", "Failed to fetch"));
/// let cause = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<ScriptError>());
/// assert_eq!(cause.map(ScriptError::name), Some("TypeError"));
/// assert_eq!(cause.map(ToString::to_string).as_deref(), Some("TypeError: Failed to fetch"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    name: String,
    message: String,
}

impl ScriptError {
    /// The error of `name` (`TypeError`, `AbortError`, ...) saying `message`.
    pub fn new(name: impl Into<String>, message: impl Into<String>) -> Self {
        ScriptError {
            name: name.into(),
            message: message.into(),
        }
    }

    /// What JavaScript threw: an `Error`'s name and message; anything else (a string, say)
    /// as its text, with no name.
    pub(crate) fn from_js(thrown: &wasm_bindgen::JsValue) -> Self {
        use wasm_bindgen::JsCast;
        match thrown.dyn_ref::<js_sys::Error>() {
            Some(error) => ScriptError::new(error.name(), error.message()),
            None => ScriptError::new("", thrown.as_string().unwrap_or_default()),
        }
    }

    /// The error's `name` (empty when JavaScript threw something other than an `Error`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The error's `message`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// As JavaScript's `Error.prototype.toString`: `name: message`.
impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.name.is_empty(), self.message.is_empty()) {
            (true, _) => f.write_str(&self.message),
            (false, true) => f.write_str(&self.name),
            (false, false) => write!(f, "{}: {}", self.name, self.message),
        }
    }
}

impl std::error::Error for ScriptError {}

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
            Error::Network(ScriptError::new("TypeError", "offline")),
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
            .filter(|e| !matches!(e, Error::Companion { .. } | Error::Core(_)))
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

    /// The causes of `e`, from its source down.
    fn causes(e: &Error) -> Vec<&(dyn std::error::Error + 'static)> {
        std::iter::successors(std::error::Error::source(e), |cause| cause.source()).collect()
    }

    #[test]
    fn each_of_cores_errors_has_its_own_place_and_keeps_core_inside() {
        let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let scope = |s: &str| Core::UnknownScope { scope: s.into() };
        /// Core's error, the client's code for it, and whether a client error is its variant.
        type Case = (Core, &'static str, fn(&Error) -> bool);
        let cases: Vec<Case> = vec![
            (
                Core::Service(parse_error_body(404, "")),
                code::NOT_FOUND,
                |e| matches!(e, Error::NotFound(_)),
            ),
            (
                Core::Service(parse_error_body(500, "")),
                code::HTTP_ERROR,
                |e| matches!(e, Error::Http(_)),
            ),
            (
                Core::Decode {
                    message: "Donation.id: missing".into(),
                },
                code::DECODE_ERROR,
                |e| matches!(e, Error::Decode(Core::Decode { .. })),
            ),
            (Core::from(json), code::DECODE_ERROR, |e| {
                matches!(e, Error::Decode(Core::Json(_)))
            }),
            (
                Core::InvalidDate {
                    input: "yesterday".into(),
                },
                code::DECODE_ERROR,
                |e| matches!(e, Error::Decode(Core::InvalidDate { .. })),
            ),
            (
                Core::invalid_argument("page_size", "too big"),
                code::INVALID_ARGUMENT,
                |e| matches!(e, Error::InvalidArgument(Core::InvalidArgument { .. })),
            ),
            (scope("social2"), code::INVALID_ARGUMENT, |e| {
                matches!(e, Error::InvalidArgument(Core::UnknownScope { .. }))
            }),
            (
                Core::ScopeUnavailable {
                    scope: "social".into(),
                },
                code::INVALID_ARGUMENT,
                |e| matches!(e, Error::InvalidArgument(Core::ScopeUnavailable { .. })),
            ),
            (
                Core::OAuth {
                    error: "access_denied".into(),
                    description: None,
                    uri: None,
                    state: None,
                },
                code::ACCESS_DENIED,
                |e| matches!(e, Error::OAuth(_)),
            ),
            (
                Core::InvalidCallback {
                    message: "no code".into(),
                },
                code::INVALID_CALLBACK,
                |e| matches!(e, Error::InvalidCallback(_)),
            ),
        ];
        for (core, code, is_its_place) in cases {
            let message = core.to_string();
            let e = Error::from(core.clone());
            assert!(is_its_place(&e), "{core} went elsewhere: {e}");
            assert_eq!(e.code(), code, "{core}");
            assert!(!matches!(e, Error::Core(_)), "{core}");
            // Core's error is inside: as the message itself, or as the first source.
            let shown = std::iter::once(e.to_string())
                .chain(causes(&e).iter().map(ToString::to_string))
                .any(|text| text == message);
            assert!(shown, "{core}: {e}");
        }
        // A kind only a later core has keeps core's own code.
        assert_eq!(Error::Core(scope("x")).code(), "unknown_scope");
    }

    #[test]
    fn serde_json_is_the_last_cause_of_a_document_it_could_not_read() {
        let e = Error::from(Core::from(
            serde_json::from_str::<serde_json::Value>("[1,").unwrap_err(),
        ));
        assert_eq!(e.code(), code::DECODE_ERROR);
        let chain = causes(&e);
        assert_eq!(chain.len(), 2, "core's error, then serde_json's");
        assert!(chain[0].downcast_ref::<Core>().is_some());
        let serde = chain[1]
            .downcast_ref::<serde_json::Error>()
            .expect("serde_json's own error");
        assert!(serde.is_eof());
        assert_eq!(
            [e.to_string(), chain[0].to_string()],
            ["cannot decode the answer", "the JSON ends too soon"]
        );
    }

    #[test]
    fn a_network_error_keeps_what_the_platform_threw_and_crosses_threads() {
        fn send_and_sync<T: Send + Sync + 'static>() {}
        send_and_sync::<Error>();
        send_and_sync::<ScriptError>();

        let e = Error::Network(ScriptError::new("TypeError", "Failed to fetch"));
        assert_eq!(
            (e.code(), e.to_string().as_str()),
            (code::NETWORK_ERROR, "network error")
        );
        let chain = causes(&e);
        let thrown = chain[0]
            .downcast_ref::<ScriptError>()
            .expect("a ScriptError");
        assert_eq!(
            (thrown.name(), thrown.message()),
            ("TypeError", "Failed to fetch")
        );
        assert_eq!(chain[0].to_string(), "TypeError: Failed to fetch");
        assert_eq!(ScriptError::new("", "down").to_string(), "down");
    }
}
