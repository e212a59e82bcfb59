//! The answer for a found file: its type (from the name the request gave), encoding, length and
//! date; `304` for a client that has it already, `412` for a failed `If-Unmodified-Since`; one
//! byte range as `206` ([`super::range`]); the bytes streamed from the open file.

use super::cache::{Cache, Key};
use super::folder::{Encoding, Found};
use super::range::{self, Ranged};
use axum::body::{Body, Bytes};
use axum::http::header::{
    ACCEPT_RANGES, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE,
    IF_MODIFIED_SINCE, IF_NONE_MATCH, IF_RANGE, IF_UNMODIFIED_SINCE, LAST_MODIFIED, RANGE,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use httpdate::HttpDate;
use std::io::SeekFrom;
use tokio::io::{AsyncReadExt, AsyncSeekExt};
use tokio_util::io::ReaderStream;

/// Bytes read from a file, or sent from one kept in memory, at a time: what one connection
/// that does not read can make the companion hold is a few of these.
const CHUNK: usize = 16 * 1024;

/// Whether an answer of this type and length is worth compressing here (the rules of
/// tower-http's compression: not an image but SVG, not an event stream, not tiny).
fn compressible(content_type: &HeaderValue, len: u64) -> bool {
    let kind = content_type.to_str().unwrap_or_default();
    len >= 32
        && (!kind.starts_with("image/") || kind.starts_with("image/svg+xml"))
        && !kind.starts_with("text/event-stream")
        && !kind.starts_with("application/grpc")
}

/// `bytes` as a body of [`CHUNK`]-sized slices of the one buffer.
fn shared_body(bytes: Bytes) -> Body {
    let chunks = (0..bytes.len())
        .step_by(CHUNK)
        .map(move |at| Ok::<_, std::io::Error>(bytes.slice(at..(at + CHUNK).min(bytes.len()))));
    Body::from_stream(futures_util::stream::iter(chunks.collect::<Vec<_>>()))
}

/// A date header's value, if it is an HTTP date.
fn date(headers: &HeaderMap, name: axum::http::HeaderName) -> Option<HttpDate> {
    headers.get(name)?.to_str().ok()?.parse().ok()
}

/// The answer for `found`, given the request's `headers` (a `GET`) and the encodings it
/// accepts, best first. A file that `cache` may keep is sent from memory (compressed there,
/// once, when it has no precompressed sibling and the client accepts an encoding).
pub async fn answer(
    found: Found,
    headers: &HeaderMap,
    accepted: &[Encoding],
    cache: &Cache,
) -> Response {
    let Found {
        file,
        metadata,
        encoding,
        named,
    } = found;
    let len = metadata.len();
    // HTTP dates count whole seconds; so does the comparison.
    let modified = metadata.modified().ok().map(HttpDate::from);
    let last_modified = modified.map(|m| m.to_string());
    if let (Some(modified), Some(since)) = (modified, date(headers, IF_UNMODIFIED_SINCE)) {
        if modified > since {
            return StatusCode::PRECONDITION_FAILED.into_response();
        }
    }
    // Without an entity tag of its own, `If-None-Match` never matches; it overrides
    // `If-Modified-Since` (RFC 9110 §13.1.3).
    if !headers.contains_key(IF_NONE_MATCH) {
        if let (Some(modified), Some(since)) = (modified, date(headers, IF_MODIFIED_SINCE)) {
            if modified <= since {
                let mut response = StatusCode::NOT_MODIFIED.into_response();
                if let Some(value) = last_modified.as_deref().and_then(header) {
                    response.headers_mut().insert(LAST_MODIFIED, value);
                }
                return response;
            }
        }
    }
    // `If-Range` with another date than this file's: the whole file (RFC 9110 §13.1.5).
    let if_range_holds = match headers.get(IF_RANGE).and_then(|v| v.to_str().ok()) {
        None => true,
        Some(validator) => last_modified.as_deref() == Some(validator),
    };
    let ranged = match headers.get(RANGE).and_then(|v| v.to_str().ok()) {
        Some(value) if if_range_holds => range::parse(value, len),
        _ => Ranged::Whole,
    };
    let content_type = mime_guess::from_path(&named).first_raw().map_or_else(
        || HeaderValue::from_static("application/octet-stream"),
        HeaderValue::from_static,
    );
    let mut out = HeaderMap::new();
    out.insert(CONTENT_TYPE, content_type);
    out.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    if let Some(value) = last_modified.as_deref().and_then(header) {
        out.insert(LAST_MODIFIED, value);
    }
    if let Some(encoding) = encoding {
        out.insert(CONTENT_ENCODING, HeaderValue::from_static(encoding.name()));
    }
    let (status, first, count) = match ranged {
        Ranged::Whole => (StatusCode::OK, 0, len),
        Ranged::Part { first, last } => {
            if let Some(value) = header(&format!("bytes {first}-{last}/{len}")) {
                out.insert(CONTENT_RANGE, value);
            }
            (StatusCode::PARTIAL_CONTENT, first, last - first + 1)
        }
        Ranged::Unsatisfiable => {
            if let Some(value) = header(&format!("bytes */{len}")) {
                out.insert(CONTENT_RANGE, value);
            }
            out.remove(CONTENT_ENCODING);
            return (StatusCode::RANGE_NOT_SATISFIABLE, out).into_response();
        }
    };
    let made = match ranged {
        Ranged::Whole if encoding.is_none() && compressible(&out[CONTENT_TYPE], len) => {
            accepted.first().copied()
        }
        _ => None,
    };
    let key = Key {
        named,
        sibling: encoding.map(Encoding::name),
        made: made.map(Encoding::name),
    };
    let kept = match file.try_clone() {
        Ok(copy) => {
            cache
                .bytes(key, copy, len, metadata.modified().ok(), made)
                .await
        }
        Err(_) => None,
    };
    if let Some(bytes) = kept {
        let bytes = match made {
            Some(made) => {
                out.insert(CONTENT_ENCODING, HeaderValue::from_static(made.name()));
                bytes
            }
            None => bytes.slice(first as usize..(first + count) as usize),
        };
        out.insert(CONTENT_LENGTH, HeaderValue::from(bytes.len()));
        return (status, out, shared_body(bytes)).into_response();
    }
    out.insert(CONTENT_LENGTH, HeaderValue::from(count));
    let mut file = tokio::fs::File::from_std(file);
    if first > 0 && file.seek(SeekFrom::Start(first)).await.is_err() {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let body = Body::from_stream(ReaderStream::with_capacity(file.take(count), CHUNK));
    (status, out, body).into_response()
}

fn header(text: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(text).ok()
}
