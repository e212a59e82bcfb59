//! Pure rules of the fundraising service: the table of its operations, wire models, the
//! `\/Date(ms+hhmm)\/` codec, case-insensitive JSON decoding, the authorize-URL builder with
//! PKCE and nonce helpers, the callback parser, the error-body parser and input validation.
//!
//! No I/O and no browser or server dependency: this crate builds for the native target and
//! for `wasm32-unknown-unknown`, and every other part of the workspace is built on it.

#![warn(missing_docs)]

// The derives of `fundraising-core-derive` name this crate by its path, here too.
extern crate self as fundraising_core;

pub mod authorize;
pub mod backoff;
pub mod callback;
pub mod companion;
pub mod date;
pub mod encoding;
mod error;
pub mod json;
pub mod model;
pub mod nonce;
pub mod operation;
pub mod pkce;
pub mod secret;
pub mod service_error;
pub mod shape;
pub mod validate;

pub use date::ServiceDate;
pub use error::{Error, JsonError};
pub use service_error::ServiceError;
