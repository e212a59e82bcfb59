//! The two listeners' routers as served: each endpoint's routes inside the faults, the test
//! routes beside them when enabled, and the request log and the log lines around everything.

use axum::middleware::{from_fn, from_fn_with_state};
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
    let routes = identity::routes().layer(from_fn_with_state(state.clone(), inject));
    served(state, Listener::Identity, routes)
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
