//! The token endpoint's requests (grants) and successful answer.

use crate::secret::Secret;
use serde::{Deserialize, Deserializer};

/// A grant sent to the token endpoint (form-encoded, client authenticated with Basic).
#[derive(Debug, Clone, Copy)]
pub enum TokenGrant<'a> {
    /// Redeems an authorisation code (with its PKCE verifier).
    AuthorizationCode {
        /// The code from the redirect.
        code: &'a Secret,
        /// The redirect URI the code was issued for.
        redirect_uri: &'a str,
        /// The PKCE verifier.
        code_verifier: &'a Secret,
    },
    /// Trades a refresh token for new tokens.
    RefreshToken {
        /// The newest refresh token.
        refresh_token: &'a Secret,
        /// The redirect URI of the sign-in (the spec lists it on refresh).
        redirect_uri: &'a str,
    },
}

impl TokenGrant<'_> {
    /// The form fields of the request.
    pub fn form(&self) -> Vec<(&'static str, &str)> {
        match self {
            TokenGrant::AuthorizationCode {
                code,
                redirect_uri,
                code_verifier,
            } => vec![
                ("grant_type", "authorization_code"),
                ("code", code.expose()),
                ("redirect_uri", redirect_uri),
                ("code_verifier", code_verifier.expose()),
            ],
            TokenGrant::RefreshToken {
                refresh_token,
                redirect_uri,
            } => vec![
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token.expose()),
                ("redirect_uri", redirect_uri),
            ],
        }
    }

    /// Whether this is a refresh (its refusals mean the session is over).
    pub fn is_refresh(&self) -> bool {
        matches!(self, TokenGrant::RefreshToken { .. })
    }
}

/// A successful token endpoint answer (RFC 6749 §5.1 plus OpenID Connect's `id_token`).
#[derive(Debug, Clone, Deserialize)]
pub struct TokenResponse {
    /// The access token.
    pub access_token: Secret,
    /// Its type (`Bearer`).
    #[serde(default)]
    pub token_type: Option<String>,
    /// Lifetime in seconds (number or numeric string).
    #[serde(default, deserialize_with = "lenient_seconds")]
    pub expires_in: Option<u64>,
    /// A refresh token, when `offline_access` was granted (rotated on refresh).
    #[serde(default)]
    pub refresh_token: Option<Secret>,
    /// The id_token.
    #[serde(default)]
    pub id_token: Option<Secret>,
    /// The granted scope, when the server says.
    #[serde(default)]
    pub scope: Option<String>,
}

fn lenient_seconds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => {
            n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64))
        }
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}

/// An RFC 6749 §5.2 error answer (only the code is read; descriptions are never relayed).
#[derive(Debug, Clone, Deserialize)]
pub struct TokenErrorBody {
    /// The OAuth error code, e.g. `invalid_grant`.
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse_leniently() {
        let t: TokenResponse = serde_json::from_str(
            r#"{"access_token":"at-1","token_type":"Bearer","expires_in":"3600","refresh_token":"r","id_token":"i","x":1}"#,
        )
        .unwrap();
        assert_eq!(t.expires_in, Some(3600));
        assert_eq!(t.refresh_token.as_ref().unwrap().expose(), "r");
        assert!(!format!("{t:?}").contains("at-1"));
        let t: TokenResponse =
            serde_json::from_str(r#"{"access_token":"a","expires_in":60}"#).unwrap();
        assert_eq!(t.expires_in, Some(60));
        assert!(t.refresh_token.is_none());
    }

    #[test]
    fn the_code_grant_form_has_every_field() {
        let (code, verifier) = (Secret::new("c"), Secret::new("v"));
        let grant = TokenGrant::AuthorizationCode {
            code: &code,
            redirect_uri: "http://x/",
            code_verifier: &verifier,
        };
        assert_eq!(
            grant.form(),
            vec![
                ("grant_type", "authorization_code"),
                ("code", "c"),
                ("redirect_uri", "http://x/"),
                ("code_verifier", "v")
            ]
        );
        assert!(!grant.is_refresh());
    }

    /// A refresh sends `redirect_uri` as the spec's example does (RFC 6749 §6 does not need
    /// it, and the sandbox accepts both; a real service following the spec may want it).
    #[test]
    fn the_refresh_grant_form_keeps_the_redirect_uri() {
        let token = Secret::new("rt");
        let grant = TokenGrant::RefreshToken {
            refresh_token: &token,
            redirect_uri: "http://x/",
        };
        assert_eq!(
            grant.form(),
            vec![
                ("grant_type", "refresh_token"),
                ("refresh_token", "rt"),
                ("redirect_uri", "http://x/")
            ]
        );
        assert!(grant.is_refresh());
    }
}
