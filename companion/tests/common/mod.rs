//! Helpers shared by the companion's integration tests: the real sandbox identity server
//! served on a loopback port, a test browser that signs in through its real login and consent
//! forms, the companion called in process (served on a loopback port only where a test needs its
//! address), and a tiny provider of our own that mints
//! id_tokens the sandbox would never issue (wrong signature, issuer, audience, ...).
#![allow(dead_code)]

pub mod browser;
pub mod logs;
pub mod process;
pub mod provider;
pub mod redis;

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use fundraising_companion::{app, AppState, Secret, Settings};
use fundraising_sandbox::{identity_app, Config, Sandbox, SigningKey};
use reqwest::header::HeaderMap;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tower::ServiceExt;

/// The app id and secret of the demo application.
pub const APP_ID: &str = "demo-app";
pub const SECRET: &str = "demo-secret";
/// The registered home page (redirect URI) and the origin of the demo page.
pub const HOME: &str = "http://127.0.0.1:8080/";
pub const ORIGIN: &str = "http://127.0.0.1:8080";

/// A router served on a loopback port until stopped (graceful: idle connections close).
pub struct Served {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    handle: Option<JoinHandle<()>>,
}

impl Served {
    /// Stops serving and waits until the listener and connections are closed.
    pub async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(handle) = self.handle.take() {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), handle).await;
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Serves `router` on 127.0.0.1 at a free port (or on `listener`).
pub async fn serve(router: Router, listener: Option<TcpListener>) -> Served {
    let listener = match listener {
        Some(l) => l,
        None => TcpListener::bind("127.0.0.1:0").await.expect("bind"),
    };
    serve_now(router, listener)
}

/// Serves `router` on `listener` (inside the test's runtime).
fn serve_now(router: Router, listener: TcpListener) -> Served {
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let handle = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
            .expect("serve");
    });
    Served {
        addr,
        stop: Some(stop),
        handle: Some(handle),
    }
}

/// The real sandbox identity server, in process, on a loopback port, with a counter of the
/// calls reaching its token endpoint (a counting layer around the real router, not a mock).
pub struct Identity {
    pub url: String,
    pub sandbox: Sandbox,
    pub token_calls: Arc<AtomicUsize>,
    /// Every refresh token and id_token the token endpoint answered.
    pub issued: Arc<Mutex<Vec<String>>>,
    /// Every request that reached the identity server, with the ids it carried.
    pub seen: Arc<Mutex<Vec<Seen>>>,
    pub server: Served,
    _dir: tempfile::TempDir,
}

/// A request that reached the identity server: its path and the `X-Request-Id` and
/// `traceparent` it carried.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub request_id: Option<String>,
    pub traceparent: Option<String>,
}

impl Identity {
    /// The requests that reached the identity server so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("lock").clone()
    }

    pub fn token_calls(&self) -> usize {
        self.token_calls.load(Ordering::SeqCst)
    }

    /// The tokens the token endpoint answered so far.
    pub fn issued_tokens(&self) -> Vec<String> {
        self.issued.lock().expect("lock").clone()
    }
}

fn sandbox_key() -> SigningKey {
    SigningKey::from_pem(include_str!("../fixtures/provider-key.pem")).expect("fixture key")
}

fn header_of(request: &Request, name: &str) -> Option<String> {
    request
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Starts the sandbox identity server with the default configuration (demo-app, demo user).
pub async fn start_identity() -> Identity {
    start_identity_with(|s| s, None).await
}

/// Starts the sandbox identity server, letting the caller adjust the sandbox and choose the
/// listener (to restart on a known port).
pub async fn start_identity_with(
    adjust: impl FnOnce(Sandbox) -> Sandbox,
    listener: Option<TcpListener>,
) -> Identity {
    let listener = match listener {
        Some(l) => l,
        None => TcpListener::bind("127.0.0.1:0").await.expect("bind"),
    };
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox =
        Sandbox::open_with_key(Config::default(), dir.path(), sandbox_key()).expect("sandbox");
    let sandbox = adjust(sandbox.with_issuer(&url));
    let token_calls = Arc::new(AtomicUsize::new(0));
    let issued = Arc::new(Mutex::new(Vec::new()));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let (counter, seen, log) = (token_calls.clone(), issued.clone(), requests.clone());
    let router = identity_app(sandbox.clone()).layer(middleware::from_fn(
        move |req: Request, next: Next| {
            let (counter, seen, log) = (counter.clone(), seen.clone(), log.clone());
            async move {
                let entry = Seen {
                    path: req.uri().path().to_owned(),
                    request_id: header_of(&req, "x-request-id"),
                    traceparent: header_of(&req, "traceparent"),
                };
                log.lock().expect("lock").push(entry);
                if req.uri().path() != "/connect/token" {
                    return next.run(req).await;
                }
                counter.fetch_add(1, Ordering::SeqCst);
                let (parts, body) = next.run(req).await.into_parts();
                let bytes = axum::body::to_bytes(body, usize::MAX)
                    .await
                    .expect("token answer");
                if let Ok(json) = serde_json::from_slice::<Value>(&bytes) {
                    for field in ["refresh_token", "id_token", "access_token"] {
                        if let Some(token) = json[field].as_str() {
                            seen.lock().expect("lock").push(token.to_owned());
                        }
                    }
                }
                Response::from_parts(parts, axum::body::Body::from(bytes))
            }
        },
    ));
    let server = serve(router, Some(listener)).await;
    Identity {
        url,
        sandbox,
        token_calls,
        issued,
        seen: requests,
        server,
        _dir: dir,
    }
}

/// A companion in the test: called in process through its router ([`get`], [`post`] send
/// each request with `oneshot`, no socket), and served on a loopback port only when a test asks
/// for its address ([`Companion::url`]: a browser, a client of its own, a slow client).
pub struct Companion {
    pub state: AppState,
    pub router: Router,
    served: OnceLock<Served>,
}

impl Companion {
    /// The URL the companion is served at, serving it on a loopback port the first time.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr())
    }

    /// The socket address the companion is served at (see [`Companion::url`]).
    pub fn addr(&self) -> SocketAddr {
        self.served
            .get_or_init(|| {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
                listener.set_nonblocking(true).expect("non-blocking");
                let listener = TcpListener::from_std(listener).expect("a tokio listener");
                serve_now(self.router.clone(), listener)
            })
            .addr
    }

    /// Stops serving it (when it was served), waiting until its connections are closed.
    pub async fn stop(&mut self) {
        if let Some(served) = self.served.get_mut() {
            served.stop().await;
        }
    }
}

/// The settings of a companion for demo-app against `auth_url`, public at [`ORIGIN`].
pub fn settings(auth_url: &str) -> Settings {
    Settings::new(
        APP_ID,
        Secret::new(SECRET),
        auth_url.parse().expect("auth url"),
        ORIGIN,
    )
    .expect("settings")
}

/// Starts a companion with `settings`, and its metrics address (`metrics_app` served on a
/// port of its own) when `settings.metrics` is on.
pub async fn start_companion_with_metrics(settings: Settings) -> (Companion, Option<Served>) {
    let companion = start_companion(settings).await;
    let metrics = match companion.state.metrics() {
        Some(_) => Some(
            serve(
                fundraising_companion::metrics_app(companion.state.clone()),
                None,
            )
            .await,
        ),
        None => None,
    };
    (companion, metrics)
}

/// Starts a companion with `settings` (in process; see [`Companion`]).
pub async fn start_companion(settings: Settings) -> Companion {
    let state = AppState::new(settings).expect("state");
    Companion {
        router: app(state.clone()),
        state,
        served: OnceLock::new(),
    }
}

/// An answer of the companion. Building one asserts that the secret appears neither in its
/// headers nor in its body: every test checks this on every answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

impl Reply {
    pub async fn from(response: reqwest::Response) -> Reply {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.text().await.expect("body");
        Reply::checked(status, headers, body)
    }

    /// The answer of the companion's router to a request sent in process.
    pub async fn of(response: Response) -> Reply {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("body");
        let body = String::from_utf8(bytes.to_vec()).expect("a UTF-8 body");
        Reply::checked(status, headers, body)
    }

    fn checked(status: u16, headers: HeaderMap, body: String) -> Reply {
        for (name, value) in &headers {
            let value = String::from_utf8_lossy(value.as_bytes());
            assert!(
                !value.contains(SECRET),
                "the secret leaked in header {name}"
            );
        }
        assert!(!body.contains(SECRET), "the secret leaked in a body");
        Reply {
            status,
            headers,
            body,
        }
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The `error` code of a JSON error answer, after checking its shape.
    pub fn error(&self) -> String {
        let json = self.json();
        assert!(
            json["message"].as_str().is_some_and(|m| !m.is_empty()),
            "no message: {json}"
        );
        assert_eq!(json.as_object().map(|o| o.len()), Some(2), "{json}");
        json["error"].as_str().expect("error code").to_owned()
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("ascii header").to_owned())
    }

    /// The session cookie set by this answer (`Set-Cookie` value), if any.
    pub fn set_cookie(&self) -> Option<String> {
        self.headers
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().expect("ascii").to_owned())
            .find(|v| {
                v.starts_with("fundraising_session=")
                    || v.starts_with("__Host-fundraising_session=")
            })
    }

    /// `name=value` of the session cookie set by this answer, for a `Cookie` header.
    pub fn cookie(&self) -> String {
        let set = self.set_cookie().expect("a session cookie");
        set.split(';').next().expect("pair").to_owned()
    }
}

/// A plain HTTP client (no cookie jar: the tests pass cookies by hand).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// Sends `request` to the companion in process (`oneshot` on its router, no socket).
pub async fn call(companion: &Companion, request: axum::http::Request<Body>) -> Reply {
    let response = companion
        .router
        .clone()
        .oneshot(request)
        .await
        .expect("infallible");
    Reply::of(response).await
}

/// POSTs to the companion as the demo page would (allowed Origin, CSRF header), in process.
pub async fn post(
    companion: &Companion,
    path: &str,
    body: Option<&Value>,
    cookie: Option<&str>,
) -> Reply {
    let mut request = axum::http::Request::post(path)
        .header("host", "127.0.0.1")
        .header("origin", ORIGIN)
        .header("x-fundraising-client", "1");
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    call(companion, request.body(body).expect("a request")).await
}

/// [`post`] to a companion at `url` (a binary's address), over HTTP.
pub async fn post_to(url: &str, path: &str, body: Option<&Value>, cookie: Option<&str>) -> Reply {
    let mut request = client()
        .post(format!("{url}{path}"))
        .header("origin", ORIGIN)
        .header("x-fundraising-client", "1");
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    Reply::from(request.send().await.expect("send")).await
}

/// GETs from the companion, in process.
pub async fn get(companion: &Companion, path: &str, cookie: Option<&str>) -> Reply {
    let mut request = axum::http::Request::get(path).header("host", "127.0.0.1");
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    call(companion, request.body(Body::empty()).expect("a request")).await
}

/// The `POST /auth/token` body for a signed-in browser.
pub fn token_body(signed: &browser::SignedIn) -> Value {
    serde_json::json!({
        "code": signed.code,
        "codeVerifier": signed.verifier,
        "nonce": signed.nonce,
        "redirectUri": HOME,
    })
}

/// Checks that a `/auth/token` or `/auth/refresh` answer has exactly the documented members
/// (no refresh token, no id_token, no secret).
pub fn assert_token_answer_members(json: &Value) {
    let mut keys: Vec<_> = json
        .as_object()
        .expect("a JSON object")
        .keys()
        .cloned()
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "accessToken",
            "expiresAt",
            "expiresIn",
            "profile",
            "scope",
            "tokenType"
        ]
    );
}
