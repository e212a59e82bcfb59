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
    /// `exec` could not start a server or wait for it.
    #[error("{0}")]
    Exec(String),
    /// `exec` could not start a program (a companion or the command).
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The exit status of `fundraising-sandbox exec` when it cannot start what it was asked to (a
/// bad configuration, a companion that does not come up), as `env` and `timeout` use it.
pub const EXIT_CANNOT_START: i32 = 125;
/// The exit status of `exec` when the command exists but cannot be run.
pub const EXIT_CANNOT_RUN: i32 = 126;
/// The exit status of `exec` when the command is not found.
pub const EXIT_NOT_FOUND: i32 = 127;

impl SandboxError {
    /// The status `fundraising-sandbox exec` exits with when this stops it before or while
    /// running the command: 127 for a command that is not found, 126 for one that cannot be
    /// run, 125 otherwise (as `env` and `timeout` do).
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Spawn { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                EXIT_NOT_FOUND
            }
            Self::Spawn { .. } => EXIT_CANNOT_RUN,
            _ => EXIT_CANNOT_START,
        }
    }
}

/// Result with [`SandboxError`].
pub type Result<T, E = SandboxError> = std::result::Result<T, E>;
