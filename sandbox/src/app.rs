//! The two listeners' routers as served: each endpoint's routes inside the faults, the test
//! routes beside them when enabled, and the request log and the log lines around everything.

use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::middleware::{from_fn, from_fn_with_state, Next};
use axum::response::Response;
use axum::Router;

use crate::faults::Listener;
use crate::state::Sandbox;
use crate::testing::{inject, observe, Observer};
use crate::{api, identity, logging, testing};

/// The resource API's router (`{base_url}`): the four operations under `/{appId}/v1/` with
/// CORS open to any origin, every error in the service's JSON shape. With `enable_test_routes`
/// in the configuration it also serves the test routes.
pub fn api_app(state: Sandbox) -> Router {
    let routes = api::routes()
        .layer(from_fn_with_state(state.clone(), inject))
        .layer(api::cors());
    served(state, Listener::Api, routes)
}

/// The identity server's router (`{auth_url}`): discovery, JWKS, authorize, login, consent,
/// token and revocation. With `enable_test_routes` in the configuration it also serves the
/// test routes.
pub fn identity_app(state: Sandbox) -> Router {
    let routes = identity::routes()
        .layer(from_fn_with_state(state.clone(), inject))
        .layer(from_fn_with_state(state.clone(), opener_policy));
    served(state, Listener::Identity, routes)
}

/// With `identity_opener_policy` in the configuration, every HTML page of the identity server
/// carries that `Cross-Origin-Opener-Policy`.
async fn opener_policy(State(state): State<Sandbox>, request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let html = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if let (true, Some(policy)) = (html, state.config().identity_opener_policy) {
        response.headers_mut().insert(
            "cross-origin-opener-policy",
            HeaderValue::from_static(policy.value()),
        );
    }
    response
}

fn served(state: Sandbox, listener: Listener, routes: Router<Sandbox>) -> Router {
    let routes = if state.config().enable_test_routes {
        routes.merge(testing::routes())
    } else {
        routes
    };
    let observer = Observer {
        state: state.clone(),
        listener,
    };
    routes
        .layer(from_fn_with_state(observer, observe))
        .layer(from_fn(logging::log_request))
        .with_state(state)
}
