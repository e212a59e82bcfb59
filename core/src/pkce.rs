//! PKCE (RFC 7636) with the S256 method: a verifier from the caller's random bytes and its
//! challenge.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::encoding::{base64url, decimal};
use crate::Error;

/// The only challenge method we send.
pub const METHOD: &str = "S256";

/// Fewest random bytes accepted (32 bytes give the minimum verifier length, 43).
pub const MIN_RANDOM_BYTES: usize = 32;
/// Most random bytes accepted (96 bytes give the maximum verifier length, 128).
pub const MAX_RANDOM_BYTES: usize = 96;

/// A PKCE code verifier. A secret until the code is redeemed: `Debug` prints `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
pub struct CodeVerifier(String);

impl CodeVerifier {
    /// Accepts a verifier received from elsewhere (e.g. by the companion): 43–128 characters
    /// of `A-Z a-z 0-9 - . _ ~`.
    pub fn new(verifier: impl Into<String>) -> Result<Self, Error> {
        let verifier = verifier.into();
        let ok_len = (43..=128).contains(&verifier.len());
        let ok_chars = verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
        if ok_len && ok_chars {
            Ok(CodeVerifier(verifier))
        } else {
            Err(Error::invalid_argument(
                "code_verifier",
                "must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~",
            ))
        }
    }

    /// The verifier text, to send with the code exchange.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its S256 challenge.
    pub fn challenge(&self) -> String {
        challenge_s256(&self.0)
    }
}

impl fmt::Debug for CodeVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CodeVerifier([redacted])")
    }
}

/// A verifier and its S256 challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    /// Kept by the caller until the code exchange.
    pub verifier: CodeVerifier,
    /// Sent in the authorize URL as `code_challenge`.
    pub challenge: String,
}

impl Pkce {
    /// Builds a verifier as the base64url of 32 to 96 random bytes supplied by the caller
    /// (`crypto.getRandomValues` in the browser), and its challenge.
    pub fn from_random(bytes: &[u8]) -> Result<Self, Error> {
        if !(MIN_RANDOM_BYTES..=MAX_RANDOM_BYTES).contains(&bytes.len()) {
            return Err(Error::invalid_argument(
                "random_bytes",
                [
                    "PKCE needs ",
                    &decimal(MIN_RANDOM_BYTES as u64),
                    " to ",
                    &decimal(MAX_RANDOM_BYTES as u64),
                    " random bytes, got ",
                    &decimal(bytes.len() as u64),
                ]
                .concat(),
            ));
        }
        let verifier = CodeVerifier(base64url(bytes));
        let challenge = verifier.challenge();
        Ok(Pkce {
            verifier,
            challenge,
        })
    }
}

/// `BASE64URL(SHA256(verifier))`, unpadded.
///
/// ```
/// // RFC 7636 appendix B.
/// let c = fundraising_core::pkce::challenge_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
/// assert_eq!(c, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
/// ```
pub fn challenge_s256(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        let bytes = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212,
            37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ];
        let pkce = Pkce::from_random(&bytes).unwrap();
        assert_eq!(
            pkce.verifier.as_str(),
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        );
        assert_eq!(
            pkce.challenge,
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn byte_count_is_checked_and_lengths_follow() {
        assert!(Pkce::from_random(&[0; 31]).is_err());
        assert!(Pkce::from_random(&[0; 97]).is_err());
        assert_eq!(
            Pkce::from_random(&[0; 32]).unwrap().verifier.as_str().len(),
            43
        );
        assert_eq!(
            Pkce::from_random(&[0; 96]).unwrap().verifier.as_str().len(),
            128
        );
        let err = Pkce::from_random(&[]).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
    }

    #[test]
    fn verifier_is_redacted_and_validated() {
        let pkce = Pkce::from_random(&[7; 40]).unwrap();
        let shown = format!("{pkce:?}");
        assert!(shown.contains("[redacted]"), "{shown}");
        assert!(!shown.contains(pkce.verifier.as_str()), "{shown}");
        let again = CodeVerifier::new(pkce.verifier.as_str()).unwrap();
        assert_eq!(again.challenge(), pkce.challenge);
        assert!(CodeVerifier::new("short").is_err());
        assert!(CodeVerifier::new("a".repeat(129)).is_err());
        assert!(CodeVerifier::new(format!("{}!", "a".repeat(50))).is_err());
    }
}
