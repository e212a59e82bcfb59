//! `fundraising-client`: the WebAssembly npm package. Signs users in with the fundraising
//! service (pop-up or redirect, code exchange through the companion) and calls its four
//! resource operations, returning plain JS objects. The rules live in `fundraising-core`;
//! this crate converts types and does the browser I/O.

mod auth;
mod client;
mod convert;
mod donation;
mod error;
mod error_body;
mod event;
mod http;
mod options;
mod pages;
mod resources;
mod timer;
#[cfg(target_arch = "wasm32")]
mod typescript;

pub use auth::{Auth, PopupSignIn, Profile, Session, SignInRequest};
pub use client::FundraisingClient;
pub use donation::WaitOptions;
pub use error::Error;
pub use options::{CallOptions, ClientOptions, PageOptions, PagesOptions, SignInOptions};
pub use pages::EventPagesIterator;
pub use resources::{ResourceApi, DEFAULT_TIMEOUT_MS};

/// A small free-list allocator instead of dlmalloc (the package is single-threaded).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    // SAFETY: wasm32-unknown-unknown without the atomics feature runs one thread.
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };
