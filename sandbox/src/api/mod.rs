//! The resource API (`{base_url}`): campaign, donation, event creation and event pages.

mod bearer;
mod campaign;
mod donation;
mod event;
mod guard;
mod pages;
mod reply;
mod staging;

use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, Method};
use axum::routing::{get, post};
use axum::Router;
use tower_http::cors::{AllowHeaders, Any, CorsLayer};

use crate::state::Sandbox;

pub use event::{FIELD_LIMITS, MAX_EVENT_BODY_BYTES};
pub use guard::MAX_URI_BYTES;
pub use reply::{json_response, ApiError};
pub use staging::STAGING_PATH;

/// The resource API's router, with CORS open to any origin (no credentials). Every error
/// answer is in the service's JSON shape; event bodies are limited to
/// [`MAX_EVENT_BODY_BYTES`] and URIs to [`MAX_URI_BYTES`]. With `enable_test_routes` in the
/// configuration it also serves the test-only [`STAGING_PATH`].
pub fn api_app(state: Sandbox) -> Router {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([header::LOCATION])
        .max_age(Duration::from_secs(600));
    let mut router = Router::new();
    if state.config().enable_test_routes {
        router = router.route(
            STAGING_PATH,
            post(staging::stage).layer(DefaultBodyLimit::max(MAX_EVENT_BODY_BYTES)),
        );
    }
    router
        .route(
            "/{app_id}/v1/campaign/byshortname/{short_name}",
            get(campaign::by_short_name),
        )
        .route(
            "/{app_id}/v1/donation/ref/{reference}",
            get(donation::by_reference),
        )
        .route(
            "/{app_id}/v1/event",
            post(event::create).layer(DefaultBodyLimit::max(MAX_EVENT_BODY_BYTES)),
        )
        .route(
            "/{app_id}/v1/event/",
            post(event::create).layer(DefaultBodyLimit::max(MAX_EVENT_BODY_BYTES)),
        )
        .route("/{app_id}/v1/event/{event_id}/pages", get(pages::list))
        .fallback(reply::not_found)
        .method_not_allowed_fallback(reply::method_not_allowed)
        .layer(cors)
        .layer(axum::middleware::from_fn(guard::json_errors))
        .layer(axum::middleware::from_fn(crate::logging::log_request))
        .with_state(state)
}
