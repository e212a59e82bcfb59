//! The HTTP handlers and their extractors.

mod answer;
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
pub use health::healthz;
pub use json::BODY_LIMIT;
pub use logout::logout;
pub use proxy::proxy;
pub use refresh::{refresh, RefreshFlights};
pub use session::session;
