//! The HTTP handlers and their extractors.

pub mod assets;
mod exchange;
mod guard;
mod health;
mod json;
mod logout;
mod proxy;
mod refresh;
mod session;

pub use exchange::exchange;
pub use guard::CSRF_HEADER;
pub use health::{healthz, readyz};
pub use json::BODY_LIMIT;
pub use logout::logout;
pub use proxy::proxy;
pub use refresh::refresh;
pub use session::session;
