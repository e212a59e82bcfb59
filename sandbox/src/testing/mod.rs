//! The test routes (`/_sandbox/...`, with `enable_test_routes` only, on both listeners) and the
//! two middlewares behind faults and the request log: [`observe`] finds what each request is
//! and logs it, [`inject`] applies the faults it meets.

mod facts;
mod inject;
mod routes;
mod staging;

use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, Method};
use axum::routing::{delete, post};
use axum::Router;
use tower_http::cors::{Any, CorsLayer};

use crate::api::MAX_EVENT_BODY_BYTES;
use crate::state::Sandbox;

pub use facts::{observe, Observer};
pub use inject::inject;
pub use staging::STAGING_PATH;

/// Every test route, as (method, path); `{id}` stands for a fault's id. None of them answers
/// without `enable_test_routes`.
pub const TEST_ROUTES: [(&str, &str); 11] = [
    ("POST", "/_sandbox/faults"),
    ("GET", "/_sandbox/faults"),
    ("DELETE", "/_sandbox/faults"),
    ("DELETE", "/_sandbox/faults/{id}"),
    ("GET", "/_sandbox/requests"),
    ("DELETE", "/_sandbox/requests"),
    ("POST", "/_sandbox/sign-in"),
    ("POST", "/_sandbox/keys/rotate"),
    ("POST", "/_sandbox/revocations"),
    ("POST", "/_sandbox/clock"),
    ("POST", STAGING_PATH),
];

/// The test routes, with CORS open to any origin (no credentials), bodies of at most
/// [`MAX_EVENT_BODY_BYTES`].
pub fn routes() -> Router<Sandbox> {
    Router::new()
        .route(
            "/_sandbox/faults",
            post(routes::add_fault)
                .get(routes::list_faults)
                .delete(routes::clear_faults),
        )
        .route("/_sandbox/faults/{id}", delete(routes::remove_fault))
        .route(
            "/_sandbox/requests",
            axum::routing::get(routes::list_requests).delete(routes::clear_requests),
        )
        .route("/_sandbox/sign-in", post(routes::sign_in))
        .route("/_sandbox/keys/rotate", post(routes::rotate_key))
        .route("/_sandbox/revocations", post(routes::revoke))
        .route("/_sandbox/clock", post(routes::advance_clock))
        .route(STAGING_PATH, post(staging::stage))
        .layer(DefaultBodyLimit::max(MAX_EVENT_BODY_BYTES))
        .layer(
            CorsLayer::new()
                .allow_origin(Any)
                .allow_methods([Method::GET, Method::POST, Method::DELETE])
                .allow_headers([header::CONTENT_TYPE])
                .max_age(Duration::from_secs(600)),
        )
}
