//! The JavaScript face of the package: the `FundraisingClient` class, the `eventPages`
//! iterator, the `FundraisingError` class and the TypeScript declarations, all a thin layer over
//! the Rust API; and the package's allocator. Compiled only with the `js` feature, which the npm
//! builds turn on: a Rust app that depends on the crate gets none of it. (Public for the tests
//! of the JS surface; JavaScript reaches it through the npm package.)

#[cfg(feature = "campaign")]
mod campaign;
mod client;
mod convert;
#[cfg(feature = "__operation")]
mod decode;
#[cfg(feature = "donation")]
mod donation;
mod error;
#[cfg(feature = "events")]
mod event;
mod options;
#[cfg(feature = "pages")]
mod pages;
mod promise;
#[cfg(feature = "signin")]
mod session;
// The declarations are custom sections of the wasm: none in a native build.
#[cfg(target_arch = "wasm32")]
mod typescript;

pub use client::FundraisingClient;
#[cfg(feature = "pages")]
pub use pages::EventPagesIterator;

use wasm_bindgen::prelude::*;

/// A fresh, unguessable third-party reference for the simple donation integration (a GUID
/// from the platform's cryptographic random source), to send the donor to the donation page
/// with, and to wait for the donation by.
#[wasm_bindgen(js_name = newDonationReference)]
pub fn new_donation_reference() -> Result<String, JsValue> {
    Ok(crate::new_donation_reference()?)
}

/// The package's allocator: talc, kept up and fuzzed, for single-threaded wasm
/// (docs/performance.md says why not a smaller one).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::TalckWasm =
    // SAFETY: wasm32-unknown-unknown without the atomics feature runs one thread, and nothing
    // but the allocator grows the memory.
    unsafe { talc::TalckWasm::new_global() };
