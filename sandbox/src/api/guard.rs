//! What keeps every failure of the resource API in the service's JSON error shape: the URI
//! length limit (414), path segments that are not UTF-8 (400), and a last net that rewrites
//! any other error answer that is not JSON (an extractor's or a layer's plain text).

use axum::body::Body;
use axum::extract::{FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

use super::ApiError;

/// Longest accepted request target (path and query), in bytes; longer is 414. (hyper itself
/// answers 414 without a body above 65,534 bytes, before the request reaches the API.)
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// Most of an error answer's text kept when it is rewritten into `errorMessage`.
const MAX_REWRITTEN_BYTES: usize = 4 * 1024;

/// The path parameters, with a failure (a segment that is not UTF-8 once percent-decoded)
/// as a 400 in the service's shape.
#[derive(Debug)]
pub struct Segments<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Segments<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(value)) => Ok(Segments(value)),
            Err(rejection) => Err(ApiError::new(
                rejection.status(),
                format!("The request path is not valid: {}", rejection.body_text()),
            )
            .with_id("invalid_path")),
        }
    }
}

/// Middleware: 414 for an over-long URI, and every error answer in the JSON error shape.
pub async fn json_errors(request: Request, next: Next) -> Response {
    let target_len = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target_len > MAX_URI_BYTES {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            format!("The request URI is longer than {MAX_URI_BYTES} bytes."),
        )
        .into_response();
    }
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&response) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, MAX_REWRITTEN_BYTES)
        .await
        .ok()
        .and_then(|b| String::from_utf8(b.to_vec()).ok())
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("Error").to_owned());
    let rewritten = ApiError::new(status, text).into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    let (new_parts, new_body) = rewritten.into_parts();
    parts.headers.extend(new_parts.headers);
    Response::from_parts(parts, Body::new(new_body))
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(is_json_media_type)
}

/// Whether a `Content-Type` value is `application/json` (parameters such as `charset` allowed).
pub fn is_json_media_type(value: &str) -> bool {
    value
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{header, Request, StatusCode};
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    use super::json_errors;

    async fn answer(app: Router, uri: &str) -> (StatusCode, Option<String>, serde_json::Value) {
        let response = app
            .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
            .await
            .expect("infallible");
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().expect("text").to_owned());
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("body");
        let json = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
        (status, content_type, json)
    }

    #[tokio::test]
    async fn plain_text_errors_of_extractors_and_layers_are_rewritten() {
        let app = Router::new()
            .route(
                "/text",
                get(|| async { (StatusCode::BAD_REQUEST, "Bad thing") }),
            )
            .route("/empty", get(|| async { StatusCode::SERVICE_UNAVAILABLE }))
            .route(
                "/query",
                get(
                    |_: axum::extract::Query<std::collections::HashMap<String, u8>>| async {
                        "fine"
                    },
                ),
            )
            .route("/ok", get(|| async { "fine" }))
            .layer(axum::middleware::from_fn(json_errors));
        let (status, content_type, json) = answer(app.clone(), "/text").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            content_type.as_deref(),
            Some(super::super::reply::JSON_UTF8)
        );
        assert_eq!(json["errorMessage"], "Bad thing");
        let (status, _, json) = answer(app.clone(), "/empty").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(json["errorMessage"], "Service Unavailable");
        // axum's own rejection of a query it cannot deserialize.
        let (status, _, json) = answer(app.clone(), "/query?a=300").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(
            json["errorMessage"].as_str().is_some_and(|m| !m.is_empty()),
            "{json}"
        );
        let (status, content_type, _) = answer(app, "/ok").await;
        assert_eq!(status, StatusCode::OK);
        assert_ne!(
            content_type.as_deref(),
            Some(super::super::reply::JSON_UTF8)
        );
    }
}
