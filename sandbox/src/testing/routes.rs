//! The handlers of the test routes (`/_sandbox/...`): faults, the request log, the headless
//! sign-in, key rotation, revocations and the clock. Bodies are JSON; errors are in the
//! service's error shape (`errorMessage`, `error.id`).

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::json;

use crate::api::{read_body, require_json, ApiError};
use crate::faults::FaultSpec;
use crate::identity::headless_sign_in;
use crate::keys::SigningKey;
use crate::request_log::LogFilter;
use crate::state::Sandbox;

/// A 400 in the service's shape with the id `id`.
fn bad(id: &str, message: impl Into<String>) -> ApiError {
    ApiError::bad_request(id, message)
}

/// The JSON body as `T`: 415 without `Content-Type: application/json`, 413 above the limit,
/// 400 when it is not `T` (unknown members included). An empty body is `T`'s default when
/// `empty` is given.
fn body_of<T: DeserializeOwned>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    what: &str,
    empty: Option<T>,
) -> Result<T, ApiError> {
    let body = read_body(body)?;
    if body.is_empty() {
        if let Some(value) = empty {
            return Ok(value);
        }
    }
    require_json(headers)?;
    serde_json::from_slice(&body).map_err(|e| {
        bad(
            "invalid_argument",
            format!("The request body is not {what}: {e}"),
        )
    })
}

/// `POST /_sandbox/faults`: adds a fault; 201 with it and its id.
pub async fn add_fault(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let spec: FaultSpec = body_of(&headers, body, "a fault", None)?;
    let view = state
        .faults()
        .add(spec, &state.config().application_ids())
        .map_err(|why| bad("invalid_fault", format!("The fault was not added: {why}")))?;
    Ok(answer(StatusCode::CREATED, &json!(view)))
}

/// `GET /_sandbox/faults`: the faults in force.
pub async fn list_faults(State(state): State<Sandbox>) -> Response {
    answer(StatusCode::OK, &json!({ "faults": state.faults().list() }))
}

/// `DELETE /_sandbox/faults`: removes every fault.
pub async fn clear_faults(State(state): State<Sandbox>) -> Response {
    answer(
        StatusCode::OK,
        &json!({ "removed": state.faults().clear() }),
    )
}

/// `DELETE /_sandbox/faults/{id}`: removes one fault; 404 when there is none with that id.
pub async fn remove_fault(
    State(state): State<Sandbox>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id: u64 = id
        .parse()
        .map_err(|_| bad("invalid_argument", format!("{id:?} is not a fault id")))?;
    if !state.faults().remove(id) {
        return Err(ApiError::not_found(format!("There is no fault {id}.")));
    }
    Ok(answer(StatusCode::OK, &json!({ "removed": 1 })))
}

/// `GET /_sandbox/requests?since=&listener=&endpoint=&app_id=&path=&method=`: the logged
/// requests, oldest first, with `last_id` (pass it as `since` to see only what comes next).
pub async fn list_requests(
    State(state): State<Sandbox>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let filter: LogFilter =
        serde_urlencoded::from_str(query.as_deref().unwrap_or("")).map_err(|e| {
            bad(
                "invalid_argument",
                format!("The query is not a filter: {e}"),
            )
        })?;
    let (requests, last_id) = state.requests().read(&filter);
    Ok(answer(
        StatusCode::OK,
        &json!({ "requests": requests, "last_id": last_id }),
    ))
}

/// `DELETE /_sandbox/requests`: empties the request log.
pub async fn clear_requests(State(state): State<Sandbox>) -> Response {
    answer(
        StatusCode::OK,
        &json!({ "removed": state.requests().clear() }),
    )
}

/// The body of `POST /_sandbox/sign-in`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SignIn {
    authorize_url: String,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    consent: Option<String>,
}

/// `POST /_sandbox/sign-in` (`authorize_url`, optional `user` and `consent`): signs a
/// configured user in without pages; 200 with the `callback_url` the browser would come back
/// to.
pub async fn sign_in(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let asked: SignIn = body_of(&headers, body, "a sign-in", None)?;
    let allow = match asked.consent.as_deref() {
        None | Some("allow") => true,
        Some("deny") => false,
        Some(other) => {
            return Err(bad(
                "invalid_argument",
                format!("consent {other:?} must be allow or deny"),
            ))
        }
    };
    let callback = headless_sign_in(&state, &asked.authorize_url, asked.user.as_deref(), allow)
        .map_err(|why| bad("invalid_sign_in", format!("The sign-in was refused: {why}")))?;
    Ok(answer(StatusCode::OK, &json!({ "callback_url": callback })))
}

/// The body of `POST /_sandbox/keys/rotate`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rotate {
    #[serde(default = "yes")]
    keep_old: bool,
}

fn yes() -> bool {
    true
}

/// `POST /_sandbox/keys/rotate` (optional `keep_old`, default true): a fresh signing key;
/// the old one stays in the JWKS with `keep_old`, else leaves it.
pub async fn rotate_key(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let asked: Rotate = body_of(
        &headers,
        body,
        "a rotation",
        Some(Rotate { keep_old: true }),
    )?;
    let key = tokio::task::spawn_blocking(SigningKey::generate)
        .await
        .map_err(|e| crate::error::SandboxError::Key(e.to_string()))??;
    let kid = key.kid().to_owned();
    state.rotate_key(key, asked.keep_old);
    let kids: Vec<serde_json::Value> = state.jwks()["keys"]
        .as_array()
        .map(|keys| keys.iter().map(|k| k["kid"].clone()).collect())
        .unwrap_or_default();
    Ok(answer(
        StatusCode::OK,
        &json!({ "kid": kid, "jwks_kids": kids }),
    ))
}

/// The body of `POST /_sandbox/revocations`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Revocation {
    user: String,
    #[serde(default)]
    app_id: Option<String>,
}

/// `POST /_sandbox/revocations` (`user`, optional `app_id`): revokes every refresh chain of
/// the user (of that application): the next refresh gets `invalid_grant`.
pub async fn revoke(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let asked: Revocation = body_of(&headers, body, "a revocation", None)?;
    let user = state.config().user(asked.user.trim()).ok_or_else(|| {
        bad(
            "invalid_argument",
            format!("{:?} is not a configured user", asked.user),
        )
    })?;
    if let Some(app) = &asked.app_id {
        if state.config().application(app).is_none() {
            return Err(bad(
                "invalid_argument",
                format!("{app:?} is not a registered application"),
            ));
        }
    }
    let now = state.clock().now_millis();
    let revoked = state
        .grants()
        .tokens()
        .revoke_user(&user.email, asked.app_id.as_deref(), now);
    Ok(answer(
        StatusCode::OK,
        &json!({ "revoked_chains": revoked }),
    ))
}

/// Longest step of `POST /_sandbox/clock`: a year.
const MAX_CLOCK_STEP_SECS: u64 = 365 * 86_400;

/// The body of `POST /_sandbox/clock`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    advance_secs: u64,
}

/// `POST /_sandbox/clock` (`advance_secs`): moves the sandbox's clock forward (codes and
/// tokens expire, staged donations move along); 200 with the time now.
pub async fn advance_clock(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let asked: Advance = body_of(&headers, body, "a clock step", None)?;
    if asked.advance_secs > MAX_CLOCK_STEP_SECS {
        return Err(bad(
            "invalid_argument",
            format!("advance_secs must be at most {MAX_CLOCK_STEP_SECS}"),
        ));
    }
    state
        .clock()
        .advance(Duration::from_secs(asked.advance_secs));
    Ok(answer(
        StatusCode::OK,
        &json!({ "now_ms": state.clock().now_millis() }),
    ))
}

/// A JSON answer of a test route.
fn answer(status: StatusCode, value: &serde_json::Value) -> Response {
    (status, Json(value)).into_response()
}
