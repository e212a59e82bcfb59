//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong while opening or running the sandbox.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A file or folder could not be read or written.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The TOML configuration is unreadable or inconsistent.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// SQLite failed.
    #[error("database error: {0}")]
    Database(#[from] rusqlite::Error),
    /// The RSA signing key could not be generated, loaded, saved or used.
    #[error("signing key error: {0}")]
    Key(String),
    /// A stored or produced JSON document could not be (de)serialised.
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
}

/// Result with [`SandboxError`].
pub type Result<T, E = SandboxError> = std::result::Result<T, E>;
