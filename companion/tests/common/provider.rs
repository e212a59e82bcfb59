//! A tiny OpenID provider of the tests' own (discovery, JWKS, token endpoint) that answers
//! whatever id_token the test minted, so the companion's refusals can be provoked: a wrong
//! signature, issuer, audience, an expired token, another nonce, an unknown key id.

use super::{serve, Served, APP_ID, SECRET};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::DecodePrivateKey;
use rsa::signature::{SignatureEncoding, Signer};
use rsa::traits::PublicKeyParts;
use rsa::RsaPrivateKey;
use serde_json::{json, Value};
use sha2::Sha256;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The provider's signing key (also the sandbox's key in these tests).
pub fn provider_key() -> RsaPrivateKey {
    RsaPrivateKey::from_pkcs8_pem(include_str!("../fixtures/provider-key.pem")).expect("key")
}

/// A key nobody publishes.
pub fn other_key() -> RsaPrivateKey {
    RsaPrivateKey::from_pkcs8_pem(include_str!("../fixtures/other-key.pem")).expect("key")
}

/// The public JWK of `key` under `kid`.
pub fn jwk(key: &RsaPrivateKey, kid: &str) -> Value {
    json!({
        "kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid,
        "n": URL_SAFE_NO_PAD.encode(key.n().to_bytes_be()),
        "e": URL_SAFE_NO_PAD.encode(key.e().to_bytes_be()),
    })
}

/// A compact JWT with `header` and `claims`, RS256-signed with `key`.
pub fn mint_with_header(key: &RsaPrivateKey, header: &Value, claims: &Value) -> String {
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = SigningKey::<Sha256>::new(key.clone())
        .sign(input.as_bytes())
        .to_vec();
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature))
}

/// An RS256 JWT with key id `kid`.
pub fn mint(key: &RsaPrivateKey, kid: &str, claims: &Value) -> String {
    mint_with_header(
        key,
        &json!({"alg": "RS256", "typ": "JWT", "kid": kid}),
        claims,
    )
}

pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64
}

#[derive(Default)]
pub struct ProviderState {
    pub issuer: String,
    pub jwks: Mutex<Value>,
    pub id_token: Mutex<String>,
    pub jwks_fetches: AtomicUsize,
    pub token_calls: AtomicUsize,
    /// Every revocation request: its `Authorization` header and its form body.
    pub revocations: Mutex<Vec<(String, String)>>,
}

pub struct TestProvider {
    pub url: String,
    pub state: Arc<ProviderState>,
    pub server: Served,
}

impl TestProvider {
    /// Claims a valid id_token of this provider carries for demo-app and `nonce`.
    pub fn claims(&self, nonce: &str) -> Value {
        json!({
            "iss": self.url, "sub": "user-7", "aud": APP_ID, "iat": now(), "exp": now() + 300,
            "nonce": nonce, "name": "Test Person", "email": "test@example.org",
        })
    }

    /// The id_token the token endpoint will answer next.
    pub fn answer_with(&self, id_token: String) {
        *self.state.id_token.lock().expect("lock") = id_token;
    }

    pub fn publish(&self, keys: Vec<Value>) {
        *self.state.jwks.lock().expect("lock") = json!({ "keys": keys });
    }

    pub fn revocations(&self) -> Vec<(String, String)> {
        self.state.revocations.lock().expect("lock").clone()
    }

    pub fn jwks_fetches(&self) -> usize {
        self.state.jwks_fetches.load(Ordering::SeqCst)
    }
}

async fn discovery(State(state): State<Arc<ProviderState>>) -> Json<Value> {
    let issuer = &state.issuer;
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/keys"),
        "revocation_endpoint": format!("{issuer}/revoke"),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
    }))
}

async fn keys(State(state): State<Arc<ProviderState>>) -> Json<Value> {
    state.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    Json(state.jwks.lock().expect("lock").clone())
}

async fn token(State(state): State<Arc<ProviderState>>, headers: HeaderMap) -> Response {
    let expected = format!("Basic {}", STANDARD.encode(format!("{APP_ID}:{SECRET}")));
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": "invalid_client"})),
        )
            .into_response();
    }
    // Refresh tokens rotate, like the sandbox's.
    let call = state.token_calls.fetch_add(1, Ordering::SeqCst);
    Json(json!({
        "access_token": "provider-access-token",
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": format!("provider-refresh-token-{call}"),
        "id_token": state.id_token.lock().expect("lock").clone(),
    }))
    .into_response()
}

async fn revoke(
    State(state): State<Arc<ProviderState>>,
    headers: HeaderMap,
    body: String,
) -> StatusCode {
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    state
        .revocations
        .lock()
        .expect("lock")
        .push((authorization, body));
    StatusCode::OK
}

/// Starts the provider, publishing the provider key under kid `k1`.
pub async fn start_provider() -> TestProvider {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let state = Arc::new(ProviderState {
        issuer: url.clone(),
        jwks: Mutex::new(json!({ "keys": [jwk(&provider_key(), "k1")] })),
        ..Default::default()
    });
    let router = Router::new()
        .route("/.well-known/openid-configuration", get(discovery))
        .route("/keys", get(keys))
        .route("/token", post(token))
        .route("/revoke", post(revoke))
        .with_state(state.clone());
    let server = serve(router, Some(listener)).await;
    TestProvider { url, state, server }
}
