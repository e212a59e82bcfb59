//! HTTP for the client: the [`Transport`] it is generic over (the browser's `fetch` and timers,
//! [`Browser`], is the one it ships with), one request bounded by a timeout on the transport's
//! clock, and the retry policy of reads.

mod body;
mod browser;
mod early;
#[cfg(feature = "__operation")]
mod retry;
mod transport;

pub use body::Body;
pub use browser::Browser;
pub use fundraising_core::operation::Method;
#[cfg(feature = "__operation")]
pub(crate) use retry::send_with_retry;
#[cfg(feature = "signin")]
pub(crate) use transport::send;
pub use transport::{HttpRequest, HttpResponse, Transport};
