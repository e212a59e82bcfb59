//! Process groups and signals, the Unix side of `exec`: the command runs in a group of its
//! own, signals go to the whole group, and children die with `exec`. Elsewhere these do
//! nothing (and `exec` stops only the processes it started itself).

use std::time::Duration;

use tokio::process::Command;
use tokio::time::{sleep, Instant};

/// A signal `exec` sends or passes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sig {
    /// SIGINT.
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// SIGHUP.
    Hangup,
    /// SIGKILL.
    Kill,
}

#[cfg(unix)]
mod unix {
    use rustix::process::{Pid, Signal};

    use super::Sig;

    pub fn signal(sig: Sig) -> Signal {
        match sig {
            Sig::Interrupt => Signal::INT,
            Sig::Terminate => Signal::TERM,
            Sig::Hangup => Signal::HUP,
            Sig::Kill => Signal::KILL,
        }
    }

    pub fn pid(id: u32) -> Option<Pid> {
        i32::try_from(id).ok().and_then(Pid::from_raw)
    }
}

/// Starts the command's process in a new process group, whose id is its pid.
pub fn own_group(command: &mut Command) {
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(not(unix))]
    let _ = command;
}

/// Starts the child with SIGINT and SIGQUIT at their default dispositions, as a terminal gives
/// them, whatever `exec` inherited: a process started in the background by a non-interactive
/// shell (`cmd &`) begins with both ignored, and an ignored disposition survives `execve`, so
/// the command (and a shell's children, which cannot trap a signal ignored at their start)
/// would never see a Ctrl-C.
pub fn default_signals(command: &mut Command) {
    #[cfg(unix)]
    // SAFETY: the closure runs in the child between fork and exec and makes two signal(2)
    // calls, which are async-signal-safe; it allocates nothing.
    unsafe {
        command.pre_exec(|| {
            for sig in [libc::SIGINT, libc::SIGQUIT] {
                if libc::signal(sig, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    #[cfg(not(unix))]
    let _ = command;
}

/// Makes the kernel kill the child when `exec` ends, even by SIGKILL (Linux's
/// `PR_SET_PDEATHSIG`). The signal comes when the thread that spawned the child ends, so
/// children are spawned from the thread that runs `exec` to its end. A child whose parent
/// already ended before the call does not start.
pub fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        let parent = rustix::process::getpid();
        // SAFETY: the closure runs in the child between fork and exec and makes two system
        // calls only (prctl and getppid), both async-signal-safe; it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                rustix::process::set_parent_process_death_signal(Some(
                    rustix::process::Signal::KILL,
                ))?;
                if rustix::process::getppid() != Some(parent) {
                    return Err(std::io::Error::other("exec ended before its child started"));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Sends `sig` to one process.
pub fn signal_process(pid: u32, sig: Sig) {
    #[cfg(unix)]
    if let Some(pid) = unix::pid(pid) {
        let _ = rustix::process::kill_process(pid, unix::signal(sig));
    }
    #[cfg(not(unix))]
    let _ = (pid, sig);
}

/// Sends `sig` to every process of the group `pgid`.
pub fn signal_group(pgid: u32, sig: Sig) {
    #[cfg(unix)]
    if let Some(pid) = unix::pid(pgid) {
        let _ = rustix::process::kill_process_group(pid, unix::signal(sig));
    }
    #[cfg(not(unix))]
    let _ = (pgid, sig);
}

/// Whether any process of the group `pgid` is still there.
pub fn group_alive(pgid: u32) -> bool {
    #[cfg(unix)]
    {
        unix::pid(pgid).is_some_and(|pid| rustix::process::test_kill_process_group(pid).is_ok())
    }
    #[cfg(not(unix))]
    {
        let _ = pgid;
        false
    }
}

/// Ends what is left of the group `pgid`: SIGTERM, then SIGKILL to whatever is still there
/// after `grace`.
pub async fn end_group(pgid: u32, grace: Duration) {
    if !group_alive(pgid) {
        return;
    }
    signal_group(pgid, Sig::Terminate);
    let deadline = Instant::now() + grace;
    while group_alive(pgid) && Instant::now() < deadline {
        sleep(Duration::from_millis(20)).await;
    }
    if group_alive(pgid) {
        signal_group(pgid, Sig::Kill);
    }
}
