//! The one error type of the crate, with stable machine-readable codes.

use std::fmt;
use std::sync::Arc;

use crate::service_error::ServiceError;

/// Every failure of the pure rules. [`Error::code`] gives a stable code JS can branch on.
///
/// New variants may come in a minor version: a `match` needs a `_` arm.
///
/// ```compile_fail
/// // Outside this crate no `match` can name every variant and leave out `_`.
/// fn code(e: fundraising_core::Error) -> u8 {
///     use fundraising_core::Error::*;
///     match e {
///         InvalidDate { .. } | Decode { .. } | Json(_) | InvalidArgument { .. } => 0,
///         UnknownScope { .. } | ScopeUnavailable { .. } | InvalidCallback { .. } => 1,
///         OAuth { .. } | Service(_) => 2,
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A date that is not of the form `\/Date(<ms>[±hhmm])\/`; `input` quotes what was given.
    #[error("invalid date {}: expected \\/Date(<milliseconds>[+-hhmm])\\/", Quoted(.input))]
    InvalidDate {
        /// The rejected text (cut to 200 characters).
        input: String,
    },
    /// A JSON document that does not have the expected shape. The message says where and
    /// why (`Donation.id: missing`); the caller says which document.
    #[error("{message}")]
    Decode {
        /// Where and why.
        message: String,
    },
    /// JSON that serde_json could not read, or could not read as the expected type; the
    /// [`source`](std::error::Error::source) is serde_json's own error.
    #[error(transparent)]
    Json(JsonError),
    /// A caller-supplied value breaks a rule (page, page size, event fields, URL parts, ...).
    #[error("invalid {field}: {message}")]
    InvalidArgument {
        /// The name of the offending argument: its Rust name (e.g. `page_size`), or its JSON
        /// name after [`Error::with_wire_names`] (e.g. `pageSize`).
        field: String,
        /// Why it was refused.
        message: String,
    },
    /// A scope the service does not define.
    #[error("unknown scope {}; known scopes are openid, profile, email, account, fundraise, offline_access", Quoted(.scope))]
    UnknownScope {
        /// The scope as given.
        scope: String,
    },
    /// A scope the service announces but does not offer yet (`social`, `crowdfunding`).
    #[error("scope {} is announced by the service but not available yet", Quoted(.scope))]
    ScopeUnavailable {
        /// The scope as given.
        scope: String,
    },
    /// A redirect back from the identity server that cannot be understood.
    #[error("invalid sign-in callback: {message}")]
    InvalidCallback {
        /// What is wrong with it (missing, empty or repeated parameter, bad encoding, ...).
        message: String,
    },
    /// The identity server answered the authorisation request with an OAuth error.
    #[error("sign-in failed: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    OAuth {
        /// The OAuth `error` code, e.g. `access_denied`.
        error: String,
        /// `error_description`, when sent.
        description: Option<String>,
        /// `error_uri`, when sent.
        uri: Option<String>,
        /// `state`, when sent, so the caller can tell which sign-in failed.
        state: Option<String>,
    },
    /// The service answered with an error status or an error body.
    #[error(transparent)]
    Service(#[from] ServiceError),
}

impl Error {
    /// The stable machine-readable code of this error, e.g. `"invalid_argument"`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidDate { .. } => "invalid_date",
            Error::Decode { .. } | Error::Json(_) => "decode_error",
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::UnknownScope { .. } => "unknown_scope",
            Error::ScopeUnavailable { .. } => "scope_unavailable",
            Error::InvalidCallback { .. } => "invalid_callback",
            Error::OAuth { .. } => "oauth_error",
            Error::Service(_) => "service_error",
        }
    }

    /// The HTTP status behind the error, for service errors.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Service(e) => Some(e.status),
            _ => None,
        }
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid_argument(field: &str, message: impl Into<String>) -> Self {
        Error::InvalidArgument {
            field: field.to_owned(),
            message: message.into(),
        }
    }

    /// The error with the argument it names written as the service's JSON and the
    /// JavaScript API write it (`page_size` becomes `pageSize`): for faces that speak JSON.
    ///
    /// ```
    /// use fundraising_core::validate;
    /// let e = validate::page_size(101).unwrap_err();
    /// assert!(e.to_string().starts_with("invalid page_size: "));
    /// assert!(e.with_wire_names().to_string().starts_with("invalid pageSize: "));
    /// ```
    pub fn with_wire_names(self) -> Self {
        match self {
            Error::InvalidArgument { field, message } => Error::InvalidArgument {
                field: crate::encoding::camel_case(&field),
                message,
            },
            other => other,
        }
    }

    /// Shorthand for [`Error::InvalidCallback`].
    pub(crate) fn invalid_callback(message: impl Into<String>) -> Self {
        Error::InvalidCallback {
            message: message.into(),
        }
    }
}

/// Text in double quotes, with `"`, `\` and control characters escaped: how messages quote
/// what they were given. (Not `{:?}`: the browser package is built without `Debug` formatting,
/// which would leave the quotes empty.)
pub struct Quoted<'a>(pub &'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write;
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' | '\\' => {
                    f.write_char('\\')?;
                    f.write_char(c)?;
                }
                '\t' => f.write_str("\\t")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                c if c.is_control() => write!(f, "\\u{{{:x}}}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

/// serde_json's error, kept whole as the [`source`](std::error::Error::source) of
/// [`Error::Json`]. Shared, so that [`Error`] stays `Clone`; two are equal when serde_json
/// reports the same thing at the same place.
///
/// serde_json's error is held as a `dyn Error`, and its category and place are read when it is
/// made: serde_json's formatting of its errors (and its messages) is then linked only into
/// programs that make one, never into the npm builds, which read JSON with the platform's
/// `JSON.parse` (1.5 KB gzip of each build's wasm).
#[derive(Debug, Clone)]
pub struct JsonError {
    category: serde_json::error::Category,
    /// Line and column, as serde_json counts them.
    at: (usize, usize),
    error: Arc<dyn std::error::Error + Send + Sync>,
}

impl JsonError {
    fn new(error: serde_json::Error) -> Self {
        JsonError {
            category: error.classify(),
            at: (error.line(), error.column()),
            error: Arc::new(error),
        }
    }

    /// serde_json's error.
    pub fn get(&self) -> &serde_json::Error {
        match self.error.downcast_ref() {
            Some(error) => error,
            None => unreachable!("a JsonError holds serde_json's error"),
        }
    }
}

/// What went wrong, by serde_json's category; where and how is its error, the source.
impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.category {
            serde_json::error::Category::Io => "the JSON could not be read",
            serde_json::error::Category::Syntax => "not valid JSON",
            serde_json::error::Category::Eof => "the JSON ends too soon",
            serde_json::error::Category::Data => "JSON of another shape",
        })
    }
}

impl std::error::Error for JsonError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.error)
    }
}

impl PartialEq for JsonError {
    fn eq(&self, other: &Self) -> bool {
        (self.category, self.at) == (other.category, other.at)
            && self.error.to_string() == other.error.to_string()
    }
}

impl Eq for JsonError {}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::Json(JsonError::new(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_text_reads_as_debug_does_for_what_messages_quote() {
        for text in [
            "",
            "yesterday",
            r"\/Date(1)\/",
            "say \"hi\"",
            "tab\there",
            "line\r\n",
            "bell\u{7}",
            "naïve",
        ] {
            assert_eq!(Quoted(text).to_string(), format!("{text:?}"));
        }
        let err = Error::InvalidDate {
            input: "a\"b".into(),
        };
        assert!(
            err.to_string().starts_with(r#"invalid date "a\"b": "#),
            "{err}"
        );
    }

    #[test]
    fn serde_json_errors_are_kept_whole_as_the_source() {
        use std::error::Error as _;
        fn read<T: serde::de::DeserializeOwned + std::fmt::Debug>(text: &str) -> Error {
            Error::from(serde_json::from_str::<T>(text).unwrap_err())
        }
        let e = read::<serde_json::Value>("{");
        assert_eq!(e.code(), "decode_error");
        assert_eq!(e.to_string(), "the JSON ends too soon");
        let cause = e.source().expect("a source");
        let serde = cause
            .downcast_ref::<serde_json::Error>()
            .expect("serde_json's own error");
        assert_eq!((serde.line(), serde.column()), (1, 1));
        assert_eq!(cause.to_string(), serde.to_string());
        assert!(cause.source().is_none());
        assert_eq!(read::<u32>("x").to_string(), "not valid JSON");
        assert_eq!(read::<u32>("-1").to_string(), "JSON of another shape");

        // Clone and equality: the same report at the same place.
        assert_eq!(e.clone(), e);
        assert_eq!(read::<serde_json::Value>("{"), e);
        assert_ne!(read::<serde_json::Value>("x"), e);
        assert_ne!(read::<serde_json::Value>(" {"), e);
        let Error::Json(json) = &e else {
            panic!("not Error::Json: {e}")
        };
        assert!(json.get().is_eof());
    }
}
