//! The companion's contract: what the browser package sends to the backend companion and what
//! it answers. The companion serves these types and the package reads them, so both sides
//! share one definition.
//!
//! Every name is camelCase on the wire. `expiresAt` is milliseconds since the Unix epoch.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::shape::Record;

use crate::pkce::CodeVerifier;
use crate::Error;

/// Longest authorisation code accepted.
pub const MAX_CODE_LEN: usize = 4096;
/// Longest nonce accepted.
pub const MAX_NONCE_LEN: usize = 512;
/// Longest redirect URI accepted.
pub const MAX_REDIRECT_URI_LEN: usize = 2048;

/// The body of `POST /auth/token`: the code from the redirect and the secrets of the sign-in
/// that asked for it. `Debug` redacts the code and the verifier.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenRequest {
    /// The authorisation code from the redirect.
    pub code: String,
    /// The PKCE verifier (43 to 128 characters of `A-Z a-z 0-9 - . _ ~`).
    pub code_verifier: String,
    /// The nonce sent with the authorisation request; the id_token must carry it.
    pub nonce: String,
    /// The redirect URI the code was issued for.
    pub redirect_uri: String,
}

impl fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRequest")
            .field("code", &"[redacted]")
            .field("code_verifier", &"[redacted]")
            .field("nonce", &self.nonce)
            .field("redirect_uri", &self.redirect_uri)
            .finish()
    }
}

fn bounded_text(value: &str, max: usize) -> bool {
    !value.is_empty() && value.len() <= max && !value.chars().any(char::is_control)
}

/// Whether `uri` is an absolute `http` or `https` address with a host.
pub fn is_absolute_http_url(uri: &str) -> bool {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"));
    let Some(rest) = rest else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    !host.is_empty()
        && !host.starts_with(':')
        && !uri
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
}

impl TokenRequest {
    /// Checks the fields' form (the identity server checks their meaning): a non-empty code
    /// of at most 4096 characters, a PKCE verifier by RFC 7636, a non-empty nonce of at most
    /// 512 characters, and an absolute http(s) redirect URI of at most 2048 characters.
    ///
    /// ```
    /// use fundraising_core::companion::TokenRequest;
    /// let mut r = TokenRequest {
    ///     code: "c".into(),
    ///     code_verifier: "a".repeat(43),
    ///     nonce: "n".into(),
    ///     redirect_uri: "http://127.0.0.1:8080/".into(),
    /// };
    /// assert!(r.validate().is_ok());
    /// r.code_verifier.push('!');
    /// assert_eq!(r.validate().unwrap_err().code(), "invalid_argument");
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        if !bounded_text(&self.code, MAX_CODE_LEN) {
            return Err(Error::invalid_argument(
                "code",
                "must be a non-empty string of at most 4096 characters",
            ));
        }
        CodeVerifier::new(self.code_verifier.as_str())?;
        if !bounded_text(&self.nonce, MAX_NONCE_LEN) {
            return Err(Error::invalid_argument(
                "nonce",
                "must be a non-empty string of at most 512 characters",
            ));
        }
        if self.redirect_uri.len() > MAX_REDIRECT_URI_LEN
            || !is_absolute_http_url(&self.redirect_uri)
        {
            return Err(Error::invalid_argument(
                "redirect_uri",
                "must be an absolute http or https address",
            ));
        }
        Ok(())
    }
}

/// Who signed in, from the validated id_token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Record, crate::shape::TypeScript)]
#[non_exhaustive]
pub struct Profile {
    /// The user's stable identifier (`sub`).
    pub sub: String,
    /// Display name, when the `profile` scope was granted.
    pub name: Option<String>,
    /// E-mail address, when the `email` scope was granted.
    pub email: Option<String>,
}

impl Profile {
    /// The profile of the user `sub`, with neither name nor e-mail address.
    pub fn new(sub: impl Into<String>) -> Self {
        Profile {
            sub: sub.into(),
            name: None,
            email: None,
        }
    }

    /// Sets [`Profile::name`].
    pub fn name(mut self, name: Option<String>) -> Self {
        self.name = name;
        self
    }

    /// Sets [`Profile::email`].
    pub fn email(mut self, email: Option<String>) -> Self {
        self.email = email;
        self
    }
}

/// The answer of `POST /auth/token` and `POST /auth/refresh`.
///
/// In token-mediating mode it carries the short-lived access token; in BFF mode the token
/// stays on the server and `accessToken` is absent. The refresh token is never in it.
#[derive(Clone, PartialEq, Eq, Serialize, Record)]
#[serde(rename_all = "camelCase")]
pub struct TokenAnswer {
    /// The access token (Bearer); absent in BFF mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    /// Always `Bearer`.
    pub token_type: String,
    /// Lifetime in seconds.
    pub expires_in: u64,
    /// Expiry instant, milliseconds since the Unix epoch.
    pub expires_at: i64,
    /// Granted scope (space-separated) when known.
    pub scope: Option<String>,
    /// Who signed in.
    pub profile: Profile,
}

impl fmt::Debug for TokenAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenAnswer")
            .field(
                "access_token",
                &self.access_token.as_ref().map(|_| "[redacted]"),
            )
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("profile", &self.profile)
            .finish()
    }
}

/// The answer of `GET /auth/session`: whether the companion holds a session for this browser,
/// and whose. Never a token. In BFF mode it also carries what a page shows of the session
/// (the access token's expiry and the scope); in token-mediating mode the page gets those
/// with a fresh access token from `POST /auth/refresh`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Record)]
#[serde(rename_all = "camelCase")]
pub struct SessionStatus {
    /// True when the companion holds a session for this browser.
    pub active: bool,
    /// Who is signed in, when active.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// BFF mode: when the access token the companion holds expires, milliseconds since the
    /// Unix epoch (the companion refreshes it before use).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// BFF mode: the scope granted, space-separated, when the identity server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl SessionStatus {
    /// No session.
    pub fn inactive() -> Self {
        SessionStatus {
            active: false,
            profile: None,
            expires_at: None,
            scope: None,
        }
    }
}

/// The companion's error answer: a stable machine-readable `error` code and a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Record)]
pub struct ErrorBody {
    /// Stable code, e.g. `session_expired`.
    pub error: String,
    /// Human-readable message.
    pub message: String,
}

/// The header every browser call of the companion carries (the CSRF defence), and its value.
pub const CSRF_HEADER: (&str, &str) = ("X-Fundraising-Client", "1");

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> TokenRequest {
        TokenRequest {
            code: "code".into(),
            code_verifier: "a".repeat(43),
            nonce: "n".into(),
            redirect_uri: "http://127.0.0.1:8080/".into(),
        }
    }

    #[test]
    fn token_request_rules() {
        assert!(request().validate().is_ok());
        type Change = fn(&mut TokenRequest);
        let cases: Vec<(Change, &str)> = vec![
            (|r| r.code.clear(), "code"),
            (|r| r.code = "x".repeat(4097), "code"),
            (|r| r.code = "a\nb".into(), "code"),
            (|r| r.code_verifier = "a".repeat(42), "code_verifier"),
            (|r| r.code_verifier = "a".repeat(129), "code_verifier"),
            (
                |r| r.code_verifier = format!("{}!", "a".repeat(43)),
                "code_verifier",
            ),
            (|r| r.nonce.clear(), "nonce"),
            (|r| r.nonce = "n".repeat(513), "nonce"),
            (|r| r.redirect_uri = "/relative".into(), "redirect_uri"),
            (|r| r.redirect_uri = "ftp://host/".into(), "redirect_uri"),
            (|r| r.redirect_uri = "http:///path".into(), "redirect_uri"),
            (|r| r.redirect_uri = "http://a b/".into(), "redirect_uri"),
            (
                |r| r.redirect_uri = format!("http://h/{}", "p".repeat(2048)),
                "redirect_uri",
            ),
        ];
        for (change, field) in cases {
            let mut r = request();
            change(&mut r);
            match r.validate() {
                Err(Error::InvalidArgument { field: f, .. }) => assert_eq!(f, field, "{r:?}"),
                other => panic!("{r:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn secrets_are_redacted() {
        let text = format!("{:?}", request());
        assert!(!text.contains(&"a".repeat(43)), "{text}");
        assert!(!text.contains("\"code\""), "{text}");
        let answer = TokenAnswer {
            access_token: Some("tok-123".into()),
            token_type: "Bearer".into(),
            expires_in: 3600,
            expires_at: 1,
            scope: None,
            profile: Profile {
                sub: "s".into(),
                name: None,
                email: None,
            },
        };
        assert!(!format!("{answer:?}").contains("tok-123"));
    }

    #[test]
    fn wire_shapes() {
        let answer = TokenAnswer {
            access_token: None,
            token_type: "Bearer".into(),
            expires_in: 3600,
            expires_at: 1_700_000_000_000,
            scope: Some("openid profile".into()),
            profile: Profile {
                sub: "u1".into(),
                name: Some("Ann".into()),
                email: None,
            },
        };
        let json = serde_json::to_value(&answer).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "tokenType": "Bearer", "expiresIn": 3600, "expiresAt": 1_700_000_000_000i64,
                "scope": "openid profile", "profile": {"sub": "u1", "name": "Ann", "email": null}
            })
        );
        let back: TokenAnswer = serde_json::from_value(json).unwrap();
        assert_eq!(back, answer);
        let inactive = serde_json::to_string(&SessionStatus::inactive()).unwrap();
        assert_eq!(inactive, r#"{"active":false}"#);
        let bff = SessionStatus {
            active: true,
            profile: Some(Profile::new("u1")),
            expires_at: Some(1_700_000_000_000),
            scope: Some("openid profile".into()),
        };
        let json = serde_json::to_value(&bff).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "active": true, "profile": {"sub": "u1", "name": null, "email": null},
                "expiresAt": 1_700_000_000_000i64, "scope": "openid profile"
            })
        );
        assert_eq!(serde_json::from_value::<SessionStatus>(json).unwrap(), bff);
        let request: TokenRequest = serde_json::from_str(
            r#"{"code":"c","codeVerifier":"v","nonce":"n","redirectUri":"http://h/"}"#,
        )
        .unwrap();
        assert_eq!(request.code_verifier, "v");
    }
}
