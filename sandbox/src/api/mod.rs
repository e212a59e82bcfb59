//! The resource API (`{base_url}`): the operations of the table (campaign, donation, event
//! creation and event pages), one handler each.

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
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use fundraising_core::operation::{self, Operation, OperationId, OPERATIONS};
use tower_http::cors::{AllowHeaders, Any, CorsLayer};

use crate::state::Sandbox;

pub(crate) use event::{read_body, require_json};
pub use event::{FIELD_LIMITS, MAX_EVENT_BODY_BYTES};
pub use guard::MAX_URI_BYTES;
pub use reply::{json_response, ApiError};

/// The resource API's routes: each operation of the table
/// ([`fundraising_core::operation::OPERATIONS`]) at its template under `/{appId}/v1/`, for its
/// method, served by its handler ([`handler`]). Every error answer is in the service's JSON
/// shape; event bodies are limited to [`MAX_EVENT_BODY_BYTES`] and URIs to [`MAX_URI_BYTES`].
pub fn routes() -> Router<Sandbox> {
    OPERATIONS
        .into_iter()
        .fold(Router::new(), |router, operation| {
            operation
                .routes("app_id")
                .iter()
                .fold(router, |router, path| {
                    router.route(path, handler(operation))
                })
        })
        .fallback(reply::not_found)
        .method_not_allowed_fallback(reply::method_not_allowed)
        .layer(axum::middleware::from_fn(guard::json_errors))
}

/// The handler of `operation`, for its method: a `match` on its id, so an operation added to
/// the table without a handler here does not compile.
fn handler(operation: &'static Operation) -> MethodRouter<Sandbox> {
    let method = match operation.method {
        operation::Method::Get => MethodFilter::GET,
        operation::Method::Post => MethodFilter::POST,
    };
    match operation.id {
        OperationId::Campaign => on(method, campaign::by_short_name),
        OperationId::Donation => on(method, donation::by_reference),
        OperationId::CreateEvent => {
            on(method, event::create).layer(DefaultBodyLimit::max(MAX_EVENT_BODY_BYTES))
        }
        OperationId::Pages => on(method, pages::list),
    }
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
