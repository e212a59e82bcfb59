//! The middleware that applies the faults in force: a delay, a status in the endpoint's own
//! error shape (the service's JSON, RFC 6749's JSON, or the identity pages' HTML) with
//! `Retry-After`, an HTML or empty body, the endpoint's own answer cut in half, or a
//! connection closed without an answer.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::facts::Facts;
use crate::api::ApiError;
use crate::faults::{Applied, BodyKind, Endpoint, Listener, Respond, Target};
use crate::identity::{error_page, OAuthError};
use crate::state::Sandbox;

/// Largest answer the `truncated` fault reads to cut (8 MB); a larger one is passed on whole.
const MAX_TRUNCATED_BYTES: usize = 8 * 1024 * 1024;

/// Middleware: the first fault in force that the request meets shapes its answer.
pub async fn inject(State(state): State<Sandbox>, request: Request, next: Next) -> Response {
    let Some(facts) = request.extensions().get::<Facts>().cloned() else {
        return next.run(request).await;
    };
    let Some(endpoint) = facts.endpoint else {
        return next.run(request).await;
    };
    let path = request.uri().path().to_owned();
    let target = Target {
        endpoint: Some(endpoint),
        app_id: facts.app_id.as_deref(),
        path: &path,
        grant_type: facts.grant_type.as_deref(),
    };
    let Some(met) = state.faults().take_answer(&target) else {
        return next.run(request).await;
    };
    if !met.delay.is_zero() {
        tokio::time::sleep(met.delay).await;
    }
    let from_page = request.headers().contains_key(header::ORIGIN);
    let mut response = match met.respond {
        Respond::Endpoint => next.run(request).await,
        Respond::Truncated => truncated(next.run(request).await).await,
        Respond::Drop => dropped(),
        Respond::Status {
            status,
            retry_after,
            body,
        } => {
            let mut response = answer(endpoint, status, body, met.id);
            if let Some(secs) = retry_after {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(secs));
            }
            // The identity server's cross-origin documents keep their CORS header (the
            // resource API's layer adds it around this one).
            if facts.listener == Listener::Identity && endpoint.cross_origin() && from_page {
                response.headers_mut().insert(
                    header::ACCESS_CONTROL_ALLOW_ORIGIN,
                    HeaderValue::from_static("*"),
                );
            }
            response
        }
    };
    response.extensions_mut().insert(Applied {
        id: met.id,
        dropped: met.respond == Respond::Drop,
    });
    response
}

/// A fault's own answer, in the endpoint's error shape (or as HTML, or empty).
fn answer(endpoint: Endpoint, status: StatusCode, body: BodyKind, id: u64) -> Response {
    let reason = status.canonical_reason().unwrap_or("Error");
    let message = format!("{reason} (sandbox fault {id})");
    match body {
        BodyKind::Empty => (status, Body::empty()).into_response(),
        BodyKind::Html => (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            format!(
                "<html>\r\n<head><title>{code} {reason}</title></head>\r\n<body>\r\n<center><h1>{code} {reason}</h1></center>\r\n<hr><center>sandbox fault {id}</center>\r\n</body>\r\n</html>\r\n",
                code = status.as_u16()
            ),
        )
            .into_response(),
        BodyKind::Error => match endpoint {
            Endpoint::Authorize | Endpoint::Login | Endpoint::Consent => {
                error_page(status, &message)
            }
            Endpoint::Token | Endpoint::Revocation | Endpoint::Discovery | Endpoint::Jwks => {
                let error = match status.as_u16() {
                    429 | 503 => "temporarily_unavailable",
                    500..=599 => "server_error",
                    _ => "invalid_request",
                };
                OAuthError::with_status(status, error, message).into_response()
            }
            Endpoint::Resource(_) => {
                ApiError::new(status, message).into_response()
            }
        },
    }
}

/// The endpoint's own answer with its body cut in half (and a `Content-Length` that says so):
/// a well-formed HTTP answer whose JSON breaks off.
async fn truncated(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_TRUNCATED_BYTES).await else {
        return (StatusCode::BAD_GATEWAY, Body::empty()).into_response();
    };
    let cut = bytes.slice(..bytes.len() / 2);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(cut))
}

/// An answer whose body fails before anything is written: the server closes the connection
/// without sending a byte of the answer, as a crashed upstream or a cut network does.
fn dropped() -> Response {
    let failing = futures_util::stream::once(async {
        Err::<axum::body::Bytes, _>(std::io::Error::other(
            "a sandbox fault drops the connection",
        ))
    });
    Response::new(Body::from_stream(failing))
}
