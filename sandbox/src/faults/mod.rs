//! Faults on demand: which requests a fault meets, what it does to them (a status in the
//! endpoint's error shape, `Retry-After`, a delay, a body that is not JSON, a dropped
//! connection, an id_token a relying party must refuse, a short-lived access token), and how
//! often. The middleware that applies them is in [`crate::testing`].

mod endpoint;
mod set;
mod spec;

pub use endpoint::{Endpoint, Listener};
pub use set::{Applied, FaultView, Faults, Target, MAX_FAULTS};
pub use spec::{
    BodyKind, FaultSpec, IdTokenFault, Respond, MAX_FAULT_DELAY_MS, MAX_RETRY_AFTER_SECS,
};
