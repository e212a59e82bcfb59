//! The identity server's discovery document (`/.well-known/openid-configuration`).

use serde::Deserialize;
use url::Url;

/// The members of the discovery document the companion uses.
#[derive(Debug, Clone, Deserialize)]
pub struct ProviderMetadata {
    /// The issuer; must equal the configured `--auth-url` (trailing slash aside).
    pub issuer: String,
    /// Where codes and refresh tokens are redeemed.
    pub token_endpoint: Url,
    /// Where the signing keys are published.
    pub jwks_uri: Url,
    /// RFC 7009 revocation endpoint, used on sign-out when offered.
    #[serde(default)]
    pub revocation_endpoint: Option<Url>,
    /// Client authentication methods the token endpoint accepts.
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// id_token signature algorithms offered.
    #[serde(default)]
    pub id_token_signing_alg_values_supported: Option<Vec<String>>,
}

/// The discovery document's address for an issuer (OpenID Connect Discovery §4).
pub fn discovery_url(auth_url: &Url) -> Option<Url> {
    let base = auth_url.as_str().trim_end_matches('/');
    Url::parse(&format!("{base}/.well-known/openid-configuration")).ok()
}

/// Whether the document's issuer is the one we were configured with.
pub fn issuer_matches(auth_url: &Url, issuer: &str) -> bool {
    auth_url.as_str().trim_end_matches('/') == issuer.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_sits_below_the_issuer() {
        let a = Url::parse("http://127.0.0.1:8082").unwrap();
        assert_eq!(
            discovery_url(&a).unwrap().as_str(),
            "http://127.0.0.1:8082/.well-known/openid-configuration"
        );
        let b = Url::parse("https://login.example.org/tenant/").unwrap();
        assert_eq!(
            discovery_url(&b).unwrap().as_str(),
            "https://login.example.org/tenant/.well-known/openid-configuration"
        );
        assert!(issuer_matches(&a, "http://127.0.0.1:8082/"));
        assert!(!issuer_matches(&a, "http://localhost:8082"));
    }
}
