//! The processes `exec` runs: companions (started, probed until they answer, stopped) and the
//! command (run with the addresses, signals passed on to it).

use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::time::{sleep, timeout, Instant};

use crate::error::{Result, SandboxError};

/// Time a stopped process gets between SIGTERM and SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// A `fundraising-companion` that `exec` started.
pub struct Companion {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its log (stdout and stderr).
    pub log: PathBuf,
    child: Child,
}

impl Companion {
    /// Starts `program` with `args` and the application's secret in its environment, its output
    /// going to `log`.
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
        let child = Command::new(program)
            .args(args)
            .env("FUNDRAISING_CLIENT_SECRET", secret)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                SandboxError::Exec(format!(
                    "cannot run the companion {} (install it with `cargo install fundraising-companion`, or name it with --companion-bin): {e}",
                    program.display()
                ))
            })?;
        Ok(Self { addr, log, child })
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

    /// Stops it: SIGTERM (it drains), then SIGKILL if it is still there after a few seconds.
    pub async fn stop(mut self) {
        stop(&mut self.child).await;
    }
}

/// SIGTERM, then SIGKILL after [`STOP_GRACE`]; waits for the process either way.
async fn stop(child: &mut Child) {
    if matches!(child.try_wait(), Ok(Some(_))) {
        return;
    }
    if let Some(pid) = child.id() {
        signal(pid, Signal::Terminate);
    }
    if timeout(STOP_GRACE, child.wait()).await.is_err() {
        let _ = child.start_kill();
        let _ = child.wait().await;
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

/// Runs `command` with `env` added and this process's terminal, and returns its status. A
/// SIGINT, SIGTERM or SIGHUP sent to `exec` is passed on to the command (which then decides
/// when to end); a second one kills it.
pub async fn run_command(command: &[String], env: &[(String, String)]) -> Result<ExitStatus> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| SandboxError::Exec("no command to run after --".into()))?;
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| SandboxError::Spawn {
            program: program.clone(),
            source,
        })?;
    let mut signals = Signals::new()?;
    let mut forwarded = 0;
    loop {
        tokio::select! {
            status = child.wait() => {
                return status.map_err(|source| SandboxError::Spawn { program: program.clone(), source });
            }
            sig = signals.next() => {
                forwarded += 1;
                match (child.id(), forwarded) {
                    (Some(pid), 1) => signal(pid, sig),
                    _ => { let _ = child.start_kill(); }
                }
            }
        }
    }
}

/// The exit code that passes a command's status on: its code, or 128 + the signal that ended it.
pub fn exit_code(status: ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return 128 + sig;
        }
    }
    1
}

/// The signals `exec` passes on.
#[derive(Debug, Clone, Copy)]
enum Signal {
    Interrupt,
    Terminate,
    Hangup,
}

#[cfg(unix)]
fn signal(pid: u32, sig: Signal) {
    let number = match sig {
        Signal::Interrupt => libc::SIGINT,
        Signal::Terminate => libc::SIGTERM,
        Signal::Hangup => libc::SIGHUP,
    };
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) on a child this process started and has not reaped yet.
        unsafe {
            libc::kill(pid, number);
        }
    }
}

#[cfg(not(unix))]
fn signal(_pid: u32, _sig: Signal) {}

/// The signals `exec` listens to while the command runs.
struct Signals {
    #[cfg(unix)]
    streams: [(Signal, tokio::signal::unix::Signal); 3],
}

impl Signals {
    #[cfg(unix)]
    fn new() -> Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        let listen = |kind| {
            signal(kind).map_err(|e| SandboxError::Exec(format!("cannot handle signals: {e}")))
        };
        Ok(Self {
            streams: [
                (Signal::Interrupt, listen(SignalKind::interrupt())?),
                (Signal::Terminate, listen(SignalKind::terminate())?),
                (Signal::Hangup, listen(SignalKind::hangup())?),
            ],
        })
    }

    #[cfg(not(unix))]
    fn new() -> Result<Self> {
        Ok(Self {})
    }

    #[cfg(unix)]
    async fn next(&mut self) -> Signal {
        let [(a, sa), (b, sb), (c, sc)] = &mut self.streams;
        tokio::select! {
            _ = sa.recv() => *a,
            _ = sb.recv() => *b,
            _ = sc.recv() => *c,
        }
    }

    #[cfg(not(unix))]
    async fn next(&mut self) -> Signal {
        let _ = tokio::signal::ctrl_c().await;
        Signal::Interrupt
    }
}
