//! A JSON body extractor whose rejections are the companion's `invalid_request`.

use crate::error::Error;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::Json;
use serde::de::DeserializeOwned;

/// Largest accepted request body.
pub const BODY_LIMIT: usize = 16 * 1024;

/// `Json<T>` with rejections mapped to [`Error::InvalidRequest`] (wrong content type, body
/// over 16 KiB, bad JSON, missing or mistyped fields). Messages never echo the body.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(ApiJson(value)),
            Err(rejection) => Err(Error::InvalidRequest(
                rejection_message(&rejection).to_owned(),
            )),
        }
    }
}

fn rejection_message(rejection: &JsonRejection) -> &'static str {
    match rejection {
        JsonRejection::MissingJsonContentType(_) => {
            "the body must be JSON with Content-Type: application/json"
        }
        JsonRejection::JsonSyntaxError(_) => "the body is not valid JSON",
        JsonRejection::JsonDataError(_) => {
            "the JSON body lacks a field or has a field of the wrong type"
        }
        _ if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            "the body is larger than 16 KiB"
        }
        _ => "the body could not be read",
    }
}
