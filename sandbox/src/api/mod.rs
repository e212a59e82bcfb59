//! The resource API (`{base_url}`): campaign, donation, event creation and event pages.

mod bearer;
mod campaign;
mod donation;
mod event;
mod guard;
mod pages;
mod reply;

use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, Method};
use axum::routing::{get, post};
use axum::Router;
use tower_http::cors::{AllowHeaders, Any, CorsLayer};

use crate::state::Sandbox;

pub(crate) use event::{read_body, require_json};
pub use event::{FIELD_LIMITS, MAX_EVENT_BODY_BYTES};
pub use guard::MAX_URI_BYTES;
pub use reply::{json_response, ApiError};

/// The resource API's routes: the four operations under `/{appId}/v1/`. Every error answer
/// is in the service's JSON shape; event bodies are limited to [`MAX_EVENT_BODY_BYTES`] and
/// URIs to [`MAX_URI_BYTES`].
pub fn routes() -> Router<Sandbox> {
    Router::new()
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
        .layer(axum::middleware::from_fn(guard::json_errors))
}

/// The resource API's CORS: open to any origin, without credentials; `Location` and
/// `Retry-After` readable by the page.
pub fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([header::LOCATION, header::RETRY_AFTER])
        .max_age(Duration::from_secs(600))
}
