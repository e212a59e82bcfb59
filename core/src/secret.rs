//! A string that must never be printed: a client secret, a password, a token, a code.

use std::fmt;

use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

/// A sensitive string. `Debug` prints `[redacted]`; there is no `Display`, so the value only
/// leaves through [`Secret::expose`].
///
/// ```
/// use fundraising_core::secret::Secret;
/// let s = Secret::new("demo-secret");
/// assert_eq!(format!("{s:?}"), "[redacted]");
/// assert!(s.matches("demo-secret") && !s.matches("demo-secreT"));
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a sensitive value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The raw value, for the one place that must send or compare it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Compares with a presented value in constant time (`subtle`), so the time taken does not
    /// tell where they differ.
    pub fn matches(&self, presented: &str) -> bool {
        self.0.as_bytes().ct_eq(presented.as_bytes()).into()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_value_and_matches_is_exact() {
        let s = Secret::new("demo-secret");
        assert_eq!(format!("{:?}", Some(s.clone())), "Some([redacted])");
        assert_eq!(s.expose(), "demo-secret");
        for other in ["", "demo", "demo-secret!", "Demo-secret", "demo-secreu"] {
            assert!(!s.matches(other), "{other}");
        }
        assert!(s.matches("demo-secret"));
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Secret>(&json).unwrap(), s);
    }
}
