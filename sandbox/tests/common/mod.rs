//! Helpers shared by the sandbox's integration tests.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::Router;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use fundraising_sandbox::{Config, Sandbox, SigningKey};
use rsa::pkcs1v15::{Signature, VerifyingKey};
use rsa::signature::Verifier;
use rsa::{BigUint, RsaPublicKey};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tower::ServiceExt;

/// The registered home page of demo-app.
pub const HOME: &str = "http://127.0.0.1:8080/";
/// A PKCE verifier used by the tests.
pub const VERIFIER: &str = "test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz";

/// One RSA key per test binary (generating keys is slow).
pub fn test_key() -> SigningKey {
    static KEY: OnceLock<SigningKey> = OnceLock::new();
    KEY.get_or_init(|| {
        SigningKey::from_pem(include_str!("../fixtures/signing-key.pem")).expect("fixture key")
    })
    .clone()
}

/// A sandbox in its own temporary data dir.
pub struct TestSandbox {
    pub sandbox: Sandbox,
    pub dir: tempfile::TempDir,
}

impl TestSandbox {
    pub fn identity(&self) -> Router {
        fundraising_sandbox::identity_app(self.sandbox.clone())
    }
    pub fn api(&self) -> Router {
        fundraising_sandbox::api_app(self.sandbox.clone())
    }
}

pub fn open(config: Config) -> TestSandbox {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = Sandbox::open_with_key(config, dir.path(), test_key()).expect("open sandbox");
    TestSandbox { sandbox, dir }
}

pub fn open_default() -> TestSandbox {
    open(Config::default())
}

/// The config with a second application and a second user.
pub fn two_app_config() -> Config {
    Config::from_toml(
        r#"
[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "http://127.0.0.1:8080/"

[[applications]]
app_id = "other-app"
secret = "other-secret"
home_page = "http://127.0.0.1:9999/callback"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"

[[users]]
email = "other@example.org"
password = "other-password"
name = "Other Person"
"#,
    )
    .expect("config")
}

/// An answer, fully read.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("header text").to_owned())
    }
    pub fn location(&self) -> String {
        self.header("location")
            .unwrap_or_else(|| panic!("no Location in {:?}: {}", self.status, self.body))
    }
}

pub async fn call(app: &Router, request: Request<Body>) -> Reply {
    let response = app.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("body");
    Reply {
        status,
        headers,
        body: String::from_utf8(bytes.to_vec()).expect("UTF-8 body"),
    }
}

pub fn get(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).expect("request")
}

pub fn get_with_cookie(uri: &str, cookie: &str) -> Request<Body> {
    Request::get(uri)
        .header(header::COOKIE, cookie)
        .body(Body::empty())
        .expect("request")
}

pub fn post_form(uri: &str, pairs: &[(&str, &str)], cookie: Option<&str>) -> Request<Body> {
    let mut builder =
        Request::post(uri).header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(cookie) = cookie {
        builder = builder.header(header::COOKIE, cookie);
    }
    builder
        .body(Body::from(
            serde_urlencoded::to_string(pairs).expect("form"),
        ))
        .expect("request")
}

pub fn basic(id: &str, secret: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{id}:{secret}")))
}

pub fn token_request(auth: Option<&str>, pairs: &[(&str, &str)]) -> Request<Body> {
    let mut builder = Request::post("/connect/token")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(auth) = auth {
        builder = builder.header(header::AUTHORIZATION, auth);
    }
    builder
        .body(Body::from(
            serde_urlencoded::to_string(pairs).expect("form"),
        ))
        .expect("request")
}

pub fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The authorize query of demo-app with `overrides` applied (`None` removes a parameter).
pub fn authorize_uri(overrides: &[(&str, Option<&str>)]) -> String {
    let challenge = challenge(VERIFIER);
    let mut pairs: Vec<(String, String)> = [
        ("client_id", "demo-app"),
        ("response_type", "code"),
        ("scope", "openid profile email offline_access"),
        ("redirect_uri", HOME),
        ("state", "state-123"),
        ("nonce", "nonce-456"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .collect();
    for (name, value) in overrides {
        pairs.retain(|(n, _)| n != name);
        if let Some(v) = value {
            pairs.push((name.to_string(), v.to_string()));
        }
    }
    format!(
        "/connect/authorize?{}",
        serde_urlencoded::to_string(&pairs).expect("query")
    )
}

/// The decoded query of a URL.
pub fn query_of(url: &str) -> HashMap<String, String> {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    serde_urlencoded::from_str(query).expect("query")
}

/// The `name=value` part of a Set-Cookie header.
pub fn cookie_of(reply: &Reply) -> String {
    let set = reply.header("set-cookie").expect("Set-Cookie");
    set.split(';').next().expect("cookie").to_owned()
}

/// Logs in as the demo user on the login page reached from `authorize`; returns the
/// session cookie and the consent page path.
pub async fn login(app: &Router, authorize: &str) -> (String, String) {
    let reply = call(app, get(authorize)).await;
    assert!(
        reply.status.is_redirection(),
        "{:?} {}",
        reply.status,
        reply.body
    );
    let login = reply.location();
    assert!(login.starts_with("/connect/login?"), "{login}");
    let request = query_of(&login)["request"].clone();
    let reply = call(
        app,
        post_form(
            "/connect/login",
            &[
                ("request", &request),
                ("username", "demo@example.org"),
                ("password", "demo-password"),
            ],
            None,
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{}", reply.body);
    (cookie_of(&reply), reply.location())
}

/// Runs authorize, login and consent (allow); returns the redirect to the application.
pub async fn authorize_and_allow(app: &Router, authorize: &str) -> String {
    let (cookie, consent) = login(app, authorize).await;
    let request = query_of(&consent)["request"].clone();
    let reply = call(
        app,
        post_form(
            "/connect/consent",
            &[("request", &request), ("allow", "1")],
            Some(&cookie),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{}", reply.body);
    reply.location()
}

/// A code for demo-app with the default authorize request (PKCE with [`VERIFIER`]).
pub async fn code(app: &Router, authorize: &str) -> String {
    let location = authorize_and_allow(app, authorize).await;
    query_of(&location)
        .get("code")
        .cloned()
        .unwrap_or_else(|| panic!("no code in {location}"))
}

/// Exchanges a code of demo-app.
pub async fn exchange(app: &Router, code: &str, verifier: Option<&str>) -> Reply {
    let mut pairs = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", HOME),
    ];
    if let Some(v) = verifier {
        pairs.push(("code_verifier", v));
    }
    call(
        app,
        token_request(Some(&basic("demo-app", "demo-secret")), &pairs),
    )
    .await
}

/// Refreshes with demo-app's credentials.
pub async fn refresh(app: &Router, refresh_token: &str) -> Reply {
    call(
        app,
        token_request(
            Some(&basic("demo-app", "demo-secret")),
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token),
                ("redirect_uri", HOME),
            ],
        ),
    )
    .await
}

/// Checks an RS256 JWT against a JWKS and returns its claims; panics when the signature is wrong.
pub fn verify_jwt(jwks: &Value, token: &str) -> Value {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "compact JWT");
    let header: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).expect("b64")).expect("header");
    assert_eq!(header["alg"], "RS256");
    let jwk = jwks["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .find(|k| k["kid"] == header["kid"])
        .expect("key with the token's kid");
    let n = URL_SAFE_NO_PAD
        .decode(jwk["n"].as_str().expect("n"))
        .expect("n b64");
    let e = URL_SAFE_NO_PAD
        .decode(jwk["e"].as_str().expect("e"))
        .expect("e b64");
    let key = RsaPublicKey::new(BigUint::from_bytes_be(&n), BigUint::from_bytes_be(&e))
        .expect("public key");
    let signature = Signature::try_from(
        URL_SAFE_NO_PAD
            .decode(parts[2])
            .expect("signature b64")
            .as_slice(),
    )
    .expect("signature");
    VerifyingKey::<Sha256>::new(key)
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
        .expect("valid RS256 signature");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).expect("b64")).expect("claims")
}

/// A login form for the pending request `request`.
pub fn login_form(request: &str, username: &str, password: &str) -> Request<Body> {
    post_form(
        "/connect/login",
        &[
            ("request", request),
            ("username", username),
            ("password", password),
        ],
        None,
    )
}

/// A login form sent from `peer` (the TCP peer the serving loop records).
pub fn login_from(request: &str, username: &str, password: &str, peer: &str) -> Request<Body> {
    let mut r = login_form(request, username, password);
    let peer: std::net::SocketAddr = peer.parse().expect("peer address");
    r.extensions_mut().insert(axum::extract::ConnectInfo(peer));
    r
}

/// A fresh pending authorization request of demo-app; its id.
pub async fn new_request(app: &Router) -> String {
    let reply = call(app, get(&authorize_uri(&[]))).await;
    query_of(&reply.location())["request"].clone()
}

/// [`two_app_config`] with the test routes on.
pub fn with_test_routes() -> Config {
    let mut config = two_app_config();
    config.enable_test_routes = true;
    config
}

/// A POST of JSON.
pub fn post_json(uri: &str, body: &Value) -> Request<Body> {
    Request::post(uri)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .expect("request")
}
