//! The kit's one error.

/// Why a call of the kit failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The sandbox answered with an error status (its test routes off, a user it does not know,
    /// a fault it refuses): the status and the sandbox's message.
    #[error("the sandbox answered {status}: {message}")]
    Sandbox {
        /// The HTTP status.
        status: u16,
        /// The sandbox's `errorMessage`, or the body.
        message: String,
    },
    /// The sandbox could not be reached, or answered what is not JSON.
    #[error("the sandbox could not be reached: {0}")]
    Unreachable(String),
    /// The client refused or failed (its authorize request, the companion's redemption).
    #[error(transparent)]
    Client(#[from] fundraising_client::Error),
    /// The sign-in ended without a session (the user denied consent, or no callback came).
    #[error("no session: {0}")]
    NoSession(String),
}
