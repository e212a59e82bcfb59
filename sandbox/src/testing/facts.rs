//! What a request is (its listener, endpoint, application and grant type), found once on its
//! way in, for the faults and the request log; and the log entry written on its way out.

use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use tokio::time::Instant;

use crate::basic::Basic;
use crate::faults::{Applied, Endpoint, Listener};
use crate::params::Params;
use crate::request_log::LoggedRequest;
use crate::state::Sandbox;

/// Largest body read to find a form's `grant_type`, `client_id` or `request` (the token
/// endpoint's limit); a larger one is passed on unread.
const MAX_PEEKED_BYTES: u64 = 16 * 1024;

/// What a request is, as far as the faults and the log care.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The listener it came to.
    pub listener: Listener,
    /// The endpoint, when it is one.
    pub endpoint: Option<Endpoint>,
    /// The application it names.
    pub app_id: Option<String>,
    /// `grant_type`, on the token endpoint.
    pub grant_type: Option<String>,
}

/// The state of the [`observe`] middleware: the sandbox and the listener it serves.
#[derive(Clone)]
pub struct Observer {
    /// The sandbox.
    pub state: Sandbox,
    /// The listener.
    pub listener: Listener,
}

/// Middleware: finds the request's [`Facts`] (in its extensions for the faults), and, with
/// test routes on, records it in the request log once answered. The test routes themselves
/// are neither faulted nor logged.
pub async fn observe(State(observer): State<Observer>, request: Request, next: Next) -> Response {
    if request.uri().path().starts_with("/_sandbox/") {
        return next.run(request).await;
    }
    let Observer { state, listener } = observer;
    let (facts, mut request) = facts_of(&state, listener, request).await;
    let logging = state.config().enable_test_routes;
    let mut pending = Unanswered {
        state: state.clone(),
        started: Instant::now(),
        entry: logging.then(|| {
            let mut entry = LoggedRequest::new(
                listener,
                request.method().as_str(),
                request.uri().path(),
                request.uri().query(),
            );
            entry.at_ms = state.clock().now_millis();
            entry.endpoint = facts.endpoint;
            entry.app_id = facts.app_id.clone();
            entry.grant_type = facts.grant_type.clone();
            entry
        }),
    };
    request.extensions_mut().insert(facts);
    let response = next.run(request).await;
    if let Some(mut entry) = pending.entry.take() {
        let applied = response.extensions().get::<Applied>().copied();
        entry.duration_ms = pending.elapsed_ms();
        entry.status = (!applied.is_some_and(|a| a.dropped)).then(|| response.status().as_u16());
        entry.fault = applied.map(|a| a.id);
        state.requests().record(entry);
    }
    response
}

/// A request on its way: logged when answered, or, when the client goes away first (it
/// closed the connection, its time ran out), logged then without a status.
struct Unanswered {
    state: Sandbox,
    started: Instant,
    entry: Option<LoggedRequest>,
}

impl Unanswered {
    fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some(mut entry) = self.entry.take() {
            entry.duration_ms = self.elapsed_ms();
            self.state.requests().record(entry);
        }
    }
}

/// The request's facts; a small form body (token, revocation, login and consent) is read to
/// find them and put back.
async fn facts_of(state: &Sandbox, listener: Listener, request: Request) -> (Facts, Request) {
    let method = request.method().clone();
    let found = Endpoint::of(listener, method.as_str(), request.uri().path());
    let mut facts = Facts {
        listener,
        endpoint: found.as_ref().map(|(e, _)| *e),
        app_id: found.and_then(|(_, app)| app),
        grant_type: None,
    };
    let query = Params::parse(request.uri().query().unwrap_or("")).ok();
    let first = |params: &Option<Params>, name: &str| {
        params
            .as_ref()
            .and_then(|p| p.first(name))
            .map(str::to_owned)
    };
    let now = state.clock().now_millis();
    let pending_app = |id: Option<String>| {
        id.and_then(|id| state.grants().requests().get(&id, now))
            .map(|r| r.client_id)
    };
    match facts.endpoint {
        Some(Endpoint::Authorize) => facts.app_id = first(&query, "client_id"),
        Some(Endpoint::Login | Endpoint::Consent) if method == Method::GET => {
            facts.app_id = pending_app(first(&query, "request"));
        }
        Some(
            e @ (Endpoint::Token | Endpoint::Revocation | Endpoint::Login | Endpoint::Consent),
        ) if method == Method::POST => {
            let (form, request) = peek_form(request).await;
            match e {
                Endpoint::Token | Endpoint::Revocation => {
                    facts.app_id =
                        Basic::client_id(request.headers()).or_else(|| first(&form, "client_id"));
                    if e == Endpoint::Token {
                        facts.grant_type = first(&form, "grant_type");
                    }
                }
                _ => facts.app_id = pending_app(first(&form, "request")),
            }
            return (facts, request);
        }
        _ => {}
    }
    (facts, request)
}

/// The form of a POST whose declared length is small, and the request with its body put
/// back as it was.
async fn peek_form(request: Request) -> (Option<Params>, Request) {
    // The body's declared length (hyper's size hint holds Content-Length); a body of unknown
    // length (chunked) is not read.
    let declared = HttpBody::size_hint(request.body()).upper();
    if declared.is_none_or(|n| n > MAX_PEEKED_BYTES) {
        return (None, request);
    }
    let (parts, body) = request.into_parts();
    match axum::body::to_bytes(body, MAX_PEEKED_BYTES as usize).await {
        Ok(bytes) => {
            let form = std::str::from_utf8(&bytes)
                .ok()
                .and_then(|text| Params::parse(text).ok());
            (form, Request::from_parts(parts, Body::from(bytes)))
        }
        // A body that breaks off: the endpoint gets an empty one and answers it.
        Err(_) => (None, Request::from_parts(parts, Body::empty())),
    }
}
