//! The command `exec` runs: in a process group of its own (with the terminal, when `exec` has
//! it), signals to `exec` passed on to the whole group with a bounded grace, and nothing of
//! the group left behind once the command has ended.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::process::Command;
use tokio::time::{sleep_until, Instant};

use super::group::{self, Sig};
use super::guard::Guard;
use crate::error::{Result, SandboxError};

/// Time the command's group gets after a signal (and what is left of it after the command
/// ended) before SIGKILL.
pub const COMMAND_GRACE: Duration = Duration::from_secs(5);

/// How the command ended: its status, and whether a signal to `exec` (a Ctrl-C, SIGTERM,
/// SIGHUP) was passed on to it, which makes its end a stop asked for, not a failure.
pub struct Ended {
    /// The command's status.
    pub status: ExitStatus,
    /// A signal to `exec` was passed on to the command's group.
    pub stopped: bool,
}

/// Runs `command` with `env` added, in a process group of its own, and returns how it ended.
///
/// The command starts with SIGINT and SIGQUIT at their defaults, whatever `exec` inherited.
/// A SIGINT, SIGTERM or SIGHUP sent to `exec` is passed on to the command's whole group (a
/// shell's children too); whatever of the group is still there [`COMMAND_GRACE`] later, or at
/// a second signal, is killed. When the command has ended, what it left running in its group
/// gets SIGTERM, then SIGKILL after the same grace. When `exec` holds the terminal, the
/// command's group gets it while it runs (so it reads the terminal and gets its Ctrl-C).
pub async fn run_command(
    command: &[String],
    env: &[(String, String)],
    guard: Option<&Guard>,
) -> Result<Ended> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| SandboxError::Exec("no command to run after --".into()))?;
    // exec's handlers are in place before the command exists: a signal that comes while it
    // starts is passed on, not lost or taken by a disposition exec inherited.
    let mut signals = Signals::new()?;
    let mut child = Command::new(program);
    child
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .kill_on_drop(true);
    group::own_group(&mut child);
    group::default_signals(&mut child);
    let terminal = terminal::Foreground::hand_over(&mut child);
    let mut child = child.spawn().map_err(|source| SandboxError::Spawn {
        program: program.clone(),
        source,
    })?;
    let pgid = child.id();
    if let (Some(guard), Some(pgid)) = (guard, pgid) {
        guard.watch_group(pgid);
    }
    let mut kill_at: Option<Instant> = None;
    let status = loop {
        let deadline = kill_at.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        tokio::select! {
            status = child.wait() => {
                break status.map_err(|source| SandboxError::Spawn { program: program.clone(), source });
            }
            sig = signals.next() => {
                let sig = if kill_at.is_some() { Sig::Kill } else { sig };
                match pgid {
                    Some(pgid) => group::signal_group(pgid, sig),
                    None => { let _ = child.start_kill(); }
                }
                kill_at.get_or_insert_with(|| Instant::now() + COMMAND_GRACE);
            }
            _ = sleep_until(deadline), if kill_at.is_some() => {
                if let Some(pgid) = pgid {
                    group::signal_group(pgid, Sig::Kill);
                }
                let _ = child.start_kill();
                kill_at = Some(Instant::now() + Duration::from_secs(3600));
            }
        }
    };
    drop(terminal);
    if let Some(pgid) = pgid {
        group::end_group(pgid, COMMAND_GRACE).await;
        if let Some(guard) = guard {
            guard.forget_group(pgid);
        }
    }
    Ok(Ended {
        status: status?,
        stopped: kill_at.is_some(),
    })
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

#[cfg(unix)]
mod terminal {
    use std::io::stdin;

    use rustix::process::{getpgrp, Pid};
    use rustix::termios::{isatty, tcgetpgrp, tcsetpgrp};
    use tokio::process::Command;

    /// The terminal, handed to the command's group while it runs; given back on drop.
    pub struct Foreground {
        ours: Pid,
    }

    /// Sets the terminal's foreground group from a process that may be in the background:
    /// SIGTTOU is ignored for the call, as shells do. Async-signal-safe.
    fn set_foreground(group: Pid) {
        // SAFETY: signal(2) and the TIOCSPGRP ioctl only; the old disposition is restored.
        unsafe {
            let old = libc::signal(libc::SIGTTOU, libc::SIG_IGN);
            let _ = tcsetpgrp(stdin(), group);
            libc::signal(libc::SIGTTOU, old);
        }
    }

    impl Foreground {
        /// When `exec`'s group holds the terminal, the command (the leader of a new group)
        /// takes it before it runs. `None` when there is no terminal to hand over.
        pub fn hand_over(command: &mut Command) -> Option<Self> {
            let ours = getpgrp();
            if !isatty(stdin()) || tcgetpgrp(stdin()).ok() != Some(ours) {
                return None;
            }
            // SAFETY: between fork and exec the child makes the system calls of
            // `set_foreground` only, and allocates nothing.
            unsafe {
                command.pre_exec(|| {
                    set_foreground(rustix::process::getpid());
                    Ok(())
                });
            }
            Some(Self { ours })
        }
    }

    impl Drop for Foreground {
        fn drop(&mut self) {
            set_foreground(self.ours);
        }
    }
}

#[cfg(not(unix))]
mod terminal {
    use tokio::process::Command;

    pub struct Foreground;

    impl Foreground {
        pub fn hand_over(_: &mut Command) -> Option<Self> {
            None
        }
    }
}

/// The signals `exec` passes on while the command runs.
struct Signals {
    #[cfg(unix)]
    streams: [(Sig, tokio::signal::unix::Signal); 3],
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
                (Sig::Interrupt, listen(SignalKind::interrupt())?),
                (Sig::Terminate, listen(SignalKind::terminate())?),
                (Sig::Hangup, listen(SignalKind::hangup())?),
            ],
        })
    }

    #[cfg(not(unix))]
    fn new() -> Result<Self> {
        Ok(Self {})
    }

    #[cfg(unix)]
    async fn next(&mut self) -> Sig {
        let [(a, sa), (b, sb), (c, sc)] = &mut self.streams;
        tokio::select! {
            _ = sa.recv() => *a,
            _ = sb.recv() => *b,
            _ = sc.recv() => *c,
        }
    }

    #[cfg(not(unix))]
    async fn next(&mut self) -> Sig {
        let _ = tokio::signal::ctrl_c().await;
        Sig::Interrupt
    }
}
