//! The companions `exec` runs: started in a process group of their own and bound to `exec`'s
//! life, probed until they answer, and stopped.

use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::time::{sleep, timeout, Instant};

use super::group::{self, Sig};
use crate::error::{Result, SandboxError};

/// The variables of `exec`'s environment a companion gets (with the application's secret and
/// what `exec` passes as flags): where programs and files are, the locale, and the log filter.
/// Nothing else: no `COMPANION_*` (which would set its flags: a Redis of another deployment, a
/// static folder), and no proxy variables (its upstreams are the sandbox's, on loopback).
pub const COMPANION_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "TMPDIR",
    "LANG",
    "LC_ALL",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "SYSTEMROOT",
];

/// Time a stopped process gets between SIGTERM and SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// A `fundraising-companion` that `exec` started.
pub struct Companion {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its log (stdout and stderr).
    pub log: PathBuf,
    child: Child,
}

impl Companion {
    /// Starts `program` with `args` and the application's secret in its environment (with only
    /// the [`COMPANION_ENV`] variables of `exec`'s), its output going to `log`. It gets a process group of its own (a Ctrl-C meant for the command
    /// does not reach it), and the kernel kills it when `exec` ends, however it ends.
    pub fn start(
        program: &Path,
        args: &[String],
        secret: &str,
        addr: SocketAddr,
        log: PathBuf,
    ) -> Result<Self> {
        let out = File::create(&log).map_err(|source| SandboxError::Io {
            path: log.clone(),
            source,
        })?;
        let err = out.try_clone().map_err(|source| SandboxError::Io {
            path: log.clone(),
            source,
        })?;
        let mut command = Command::new(program);
        command
            .args(args)
            .env_clear()
            .envs(
                COMPANION_ENV
                    .iter()
                    .filter_map(|name| std::env::var_os(name).map(|value| (name, value))),
            )
            .env("FUNDRAISING_CLIENT_SECRET", secret)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .kill_on_drop(true);
        group::own_group(&mut command);
        group::die_with_parent(&mut command);
        let child = command.spawn().map_err(|e| {
            SandboxError::Exec(format!(
                "cannot run the companion {} (install it with `cargo install fundraising-companion`, or name it with --companion-bin): {e}",
                program.display()
            ))
        })?;
        Ok(Self { addr, log, child })
    }

    /// Its process id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits until `GET /healthz` answers 200, the process ends, or `deadline` passes.
    pub async fn ready(&mut self, deadline: Instant) -> Result<()> {
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(SandboxError::Exec(format!(
                    "the companion on {} stopped at start ({status}); its log:\n{}",
                    self.addr,
                    tail(&self.log, 20)
                )));
            }
            if http_ok(self.addr, "/healthz").await {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(SandboxError::Exec(format!(
                    "the companion on {} did not answer /healthz in time; its log:\n{}",
                    self.addr,
                    tail(&self.log, 20)
                )));
            }
            sleep(Duration::from_millis(50)).await;
        }
    }

    /// Stops it: SIGTERM (it drains), then SIGKILL if it is still there after
    /// [`STOP_GRACE`]; waits for the process either way.
    pub async fn stop(mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        if let Some(pid) = self.child.id() {
            group::signal_process(pid, Sig::Terminate);
        }
        if timeout(STOP_GRACE, self.child.wait()).await.is_err() {
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
        }
    }
}

/// Whether `GET path` on `addr` answers 200 (HTTP/1.1, one short-lived connection).
pub async fn http_ok(addr: SocketAddr, path: &str) -> bool {
    let attempt = async {
        let mut stream = TcpStream::connect(addr).await.ok()?;
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).await.ok()?;
        Some(head.starts_with(b"HTTP/1.1 200") || head.starts_with(b"HTTP/1.0 200"))
    };
    timeout(Duration::from_secs(2), attempt)
        .await
        .ok()
        .flatten()
        .unwrap_or(false)
}

/// The last `lines` lines of a log file (or why it cannot be read).
pub fn tail(path: &Path, lines: usize) -> String {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let all: Vec<&str> = text.lines().collect();
            all[all.len().saturating_sub(lines)..].join("\n")
        }
        Err(e) => format!("({}: {e})", path.display()),
    }
}
