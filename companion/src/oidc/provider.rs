//! The identity server as the companion sees it: discovery (loaded once, one attempt at a
//! time, with backoff after a failure), the JWKS (cached, refetched once on an unknown `kid`), the token endpoint and
//! revocation. Nothing here is specific to the sandbox: any OpenID provider with discovery,
//! `client_secret_basic` and RS256 works.

use super::discovery::{discovery_url, issuer_matches, ProviderMetadata};
use super::id_token::{decode_header, validate_id_token, Expectations, IdTokenClaims};
use super::jwks::{JwkSet, VerificationKeys};
use super::loader::Loader;
use super::token_endpoint::{TokenErrorBody, TokenGrant, TokenResponse};
use crate::config::{redacted, Settings};
use crate::error::Error;
use crate::metrics::Metrics;
use crate::secret::Secret;
use crate::upstream::{self, Answer, Upstream, UpstreamRequest};
use axum::body::Bytes;
use axum::http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use axum::http::{HeaderValue, Method, Request};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use http_body_util::Full;
use jsonwebtoken::DecodingKey;
use serde::de::DeserializeOwned;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::Mutex;
use url::Url;

/// Largest upstream answer read (discovery, JWKS, token answers are far smaller).
const MAX_UPSTREAM_BODY: usize = 1024 * 1024;

const FORM: &str = "application/x-www-form-urlencoded";

/// Client of one identity server.
pub struct Provider {
    http: Upstream,
    auth_url: Url,
    app_id: String,
    /// The `Authorization` header of client authentication, computed once.
    authorization: HeaderValue,
    /// The discovery document, loaded once (single flight, with backoff).
    discovery: Loader,
    /// The JWKS's verification keys, parsed once per fetch.
    keys: Mutex<Option<Arc<VerificationKeys>>>,
}

/// Seconds since the epoch.
pub fn now_seconds() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Sends `request` to the identity server (`what` names the call in the log).
async fn send(
    http: &Upstream,
    what: &'static str,
    request: UpstreamRequest,
) -> Result<Answer, Error> {
    http.send(what, request, MAX_UPSTREAM_BODY)
        .await
        .map_err(|failure| failure.into_error(what, "identity server"))
}

/// A request to `url` (`None` if it cannot be one).
fn request(method: Method, url: &Url) -> Option<axum::http::request::Builder> {
    Some(Request::builder().method(method).uri(upstream::uri(url)?))
}

/// A form-encoded body (`application/x-www-form-urlencoded`).
fn form(fields: &[(&str, &str)]) -> Full<Bytes> {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    Full::new(body.into())
}

/// `Basic base64(urlencode(id) ":" urlencode(secret))`: RFC 6749 §2.3.1 has the client id
/// and secret encoded with `application/x-www-form-urlencoded` before they are joined and
/// base64-encoded, so a `:` in either cannot move the split.
pub fn client_secret_basic(client_id: &str, secret: &str) -> String {
    let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let pair = format!("{}:{}", encode(client_id), encode(secret));
    format!("Basic {}", STANDARD.encode(pair))
}

/// The `Authorization` header of client authentication (RFC 6749 §2.3.1), marked sensitive
/// so that it is never printed.
fn client_authorization(app_id: &str, secret: &Secret) -> HeaderValue {
    let basic = client_secret_basic(app_id, secret.expose());
    let mut value =
        HeaderValue::from_str(&basic).unwrap_or_else(|_| HeaderValue::from_static("Basic"));
    value.set_sensitive(true);
    value
}

impl Provider {
    /// A client for the identity server of `settings` (nothing is fetched yet).
    pub fn new(settings: &Settings, metrics: Option<Arc<Metrics>>) -> Result<Self, Error> {
        super::ring_provider::install();
        Ok(Self {
            http: Upstream::new(
                "identity",
                settings.upstream_timeout,
                settings.upstream_proxy_from_env,
                metrics,
            )?,
            auth_url: settings.auth_url.clone(),
            app_id: settings.app_id.clone(),
            authorization: client_authorization(&settings.app_id, &settings.client_secret),
            discovery: Loader::default(),
            keys: Mutex::new(None),
        })
    }

    async fn get_json<T: DeserializeOwned>(
        &self,
        what: &'static str,
        url: &Url,
    ) -> Result<T, Error> {
        let get = request(Method::GET, url)
            .and_then(|r| {
                r.header(ACCEPT, "application/json")
                    .body(Full::default())
                    .ok()
            })
            .ok_or(Error::UpstreamUnavailable)?;
        let answer = send(&self.http, what, get).await?;
        if !answer.status.is_success() {
            tracing::warn!(
                call = what,
                status = answer.status.as_u16(),
                "identity server answered an error"
            );
            return Err(Error::UpstreamUnavailable);
        }
        serde_json::from_slice(&answer.body).map_err(|_| {
            tracing::warn!(call = what, "identity server answered malformed JSON");
            Error::UpstreamUnavailable
        })
    }

    /// The discovery document: fetched on first use and kept; one fetch at a time, and after
    /// a failure none until a backoff has passed (see [`Loader`]).
    pub async fn metadata(&self) -> Result<Arc<ProviderMetadata>, Error> {
        self.discovery.get(|| self.fetch_metadata()).await
    }

    /// Whether the discovery document has been loaded (calls no one).
    pub fn discovery_loaded(&self) -> bool {
        self.discovery.loaded().is_some()
    }

    /// When discovery may be tried next: `None` once it is loaded or when it may be now.
    pub async fn next_discovery_attempt(&self) -> Option<tokio::time::Instant> {
        self.discovery.next_attempt().await
    }

    async fn fetch_metadata(&self) -> Result<ProviderMetadata, Error> {
        let url = discovery_url(&self.auth_url).ok_or(Error::UpstreamUnavailable)?;
        let metadata: ProviderMetadata = self.get_json("discovery", &url).await?;
        if !issuer_matches(&self.auth_url, &metadata.issuer) {
            tracing::error!(
                issuer = %metadata.issuer,
                auth_url = %redacted(&self.auth_url),
                "discovery issuer differs from --auth-url"
            );
            return Err(Error::UpstreamUnavailable);
        }
        if let Some(methods) = &metadata.token_endpoint_auth_methods_supported {
            if !methods.iter().any(|m| m == "client_secret_basic") {
                tracing::warn!(
                    "the identity server does not list client_secret_basic; trying it anyway"
                );
            }
        }
        Ok(metadata)
    }

    async fn fetch_keys(
        &self,
        metadata: &ProviderMetadata,
    ) -> Result<Arc<VerificationKeys>, Error> {
        let set: JwkSet = self.get_json("jwks", &metadata.jwks_uri).await?;
        Ok(Arc::new(VerificationKeys::from_set(&set)))
    }

    /// The verification key for `kid`: from the cached JWKS, or after fetching it again once
    /// when the key is unknown (the identity server may have rotated its keys).
    pub async fn key_for(&self, kid: Option<&str>) -> Result<DecodingKey, Error> {
        let metadata = self.metadata().await?;
        let mut cached = self.keys.lock().await;
        if let Some(key) = cached.as_ref().and_then(|keys| keys.find(kid)) {
            return Ok(key);
        }
        let fresh = self.fetch_keys(&metadata).await?;
        *cached = Some(fresh.clone());
        fresh.find(kid).ok_or_else(|| {
            tracing::warn!(check = "kid", "id_token refused");
            Error::IdTokenInvalid("kid")
        })
    }

    /// Validates an id_token of this provider for this app (`nonce`: the one sent at sign-in,
    /// `None` on refresh; `subject`: the signed-in user on refresh, who must stay the same).
    pub async fn check_id_token(
        &self,
        token: &Secret,
        nonce: Option<&str>,
        subject: Option<&str>,
    ) -> Result<IdTokenClaims, Error> {
        let metadata = self.metadata().await?;
        let header = decode_header(token.expose())?;
        let key = self.key_for(header.kid.as_deref()).await?;
        let expect = Expectations {
            issuer: &metadata.issuer,
            audience: &self.app_id,
            nonce,
            subject,
        };
        validate_id_token(token.expose(), &key, &expect)
    }

    /// Calls the token endpoint with HTTP Basic client authentication. Refusals map to
    /// `InvalidGrant` (code grant), `SessionExpired` (refresh), `InvalidRequest`, or
    /// `UpstreamUnavailable`; upstream bodies are never relayed.
    pub async fn token(&self, grant: TokenGrant<'_>) -> Result<TokenResponse, Error> {
        let metadata = self.metadata().await?;
        let post = request(Method::POST, &metadata.token_endpoint)
            .and_then(|r| {
                r.header(AUTHORIZATION, self.authorization.clone())
                    .header(ACCEPT, "application/json")
                    .header(CONTENT_TYPE, FORM)
                    .body(form(&grant.form()))
                    .ok()
            })
            .ok_or(Error::UpstreamUnavailable)?;
        let answer = send(&self.http, "token", post).await?;
        let (status, body) = (answer.status, answer.body);
        if status.is_success() {
            return serde_json::from_slice(&body).map_err(|_| {
                tracing::warn!(call = "token", "token endpoint answered malformed JSON");
                Error::UpstreamUnavailable
            });
        }
        let code = serde_json::from_slice::<TokenErrorBody>(&body)
            .map(|b| b.error)
            .unwrap_or_default();
        tracing::warn!(call = "token", status = status.as_u16(), oauth_error = %code, refresh = grant.is_refresh(), "token endpoint refused");
        Err(match (code.as_str(), grant.is_refresh()) {
            ("invalid_grant", false) => Error::InvalidGrant,
            ("invalid_grant", true) => Error::SessionExpired,
            ("invalid_request", false) => Error::InvalidRequest(
                "the identity server refused the code exchange as malformed".into(),
            ),
            _ => Error::UpstreamUnavailable,
        })
    }

    /// Revokes a refresh token (RFC 7009) when discovery offers a revocation endpoint;
    /// best effort: failures are logged and ignored.
    pub async fn revoke(&self, refresh_token: &Secret) {
        let Ok(metadata) = self.metadata().await else {
            return;
        };
        let Some(post) = metadata.revocation_endpoint.as_ref().and_then(|endpoint| {
            request(Method::POST, endpoint)?
                .header(AUTHORIZATION, self.authorization.clone())
                .header(CONTENT_TYPE, FORM)
                .body(form(&[
                    ("token", refresh_token.expose()),
                    ("token_type_hint", "refresh_token"),
                ]))
                .ok()
        }) else {
            return;
        };
        match self.http.send("revocation", post, MAX_UPSTREAM_BODY).await {
            Ok(answer) if answer.status.is_success() => {}
            Ok(answer) => tracing::warn!(status = answer.status.as_u16(), "revocation refused"),
            Err(failure) => tracing::warn!(?failure, "revocation failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::client_secret_basic;

    #[test]
    fn client_id_and_secret_are_form_urlencoded_before_base64() {
        // RFC 6749 §2.3.1 and Appendix B: `:` `%` `+` are escaped, a space becomes `+`,
        // non-ASCII is UTF-8 then escaped. The pair here is
        // `my%3Aapp%25%2B+%C3%A9:s%3Ae%25c%2Br+et+%C3%BC`.
        assert_eq!(
            client_secret_basic("my:app%+ é", "s:e%c+r et ü"),
            "Basic bXklM0FhcHAlMjUlMkIrJUMzJUE5OnMlM0FlJTI1YyUyQnIrZXQrJUMzJUJD"
        );
        // Characters that need no encoding are sent as they are.
        assert_eq!(
            client_secret_basic("demo-app", "demo-secret"),
            "Basic ZGVtby1hcHA6ZGVtby1zZWNyZXQ="
        );
    }
}
