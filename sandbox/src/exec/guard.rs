//! The guard: a small process of `exec`'s own that outlives it. `exec` tells it, through a
//! pipe, the process groups it starts (the command's, each companion's) and ends. When the
//! pipe closes before `exec` said it is done (`exec` was killed, even by SIGKILL), the guard
//! ends what `exec` left: each group gets SIGTERM, then SIGKILL after a grace, and the run
//! folder is removed.
//!
//! The protocol is one line per message: `group PGID`, `ungroup PGID` and `done`.

use std::io::{BufRead, BufReader, PipeWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::group::{self, Sig};
use crate::error::{Result, SandboxError};

/// The hidden subcommand of `fundraising-sandbox` that runs the guard.
pub const GUARD_SUBCOMMAND: &str = "exec-guard";
/// Time what `exec` left gets between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(5);

/// `exec`'s end of the guard.
pub struct Guard {
    pipe: Mutex<Option<PipeWriter>>,
    child: Mutex<Child>,
}

impl Guard {
    /// Starts the guard (this program again, as [`GUARD_SUBCOMMAND`]), which removes
    /// `run_dir`, when given, if `exec` ends without [`Guard::release`].
    pub fn spawn(run_dir: Option<&Path>) -> Result<Self> {
        let io = |e: std::io::Error| SandboxError::Exec(format!("cannot start exec's guard: {e}"));
        let exe = std::env::current_exe().map_err(io)?;
        // std's pipes are close-on-exec: no other child holds the writing end open.
        let (reader, writer) = std::io::pipe().map_err(io)?;
        let mut command = Command::new(exe);
        command
            .arg(GUARD_SUBCOMMAND)
            .args(run_dir.map(|d| d.as_os_str()))
            .stdin(reader)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Its own group: a Ctrl-C or a signal to exec's group does not end it before exec. It
        // holds none of exec's output, so a reader of exec's output is not kept waiting by it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().map_err(io)?;
        Ok(Self {
            pipe: Mutex::new(Some(writer)),
            child: Mutex::new(child),
        })
    }

    fn tell(&self, line: &str) {
        let mut pipe = self.pipe.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(writer) = pipe.as_mut() {
            let _ = writeln!(writer, "{line}");
        }
    }

    /// A process group `exec` started (the command's, a companion's), to end if `exec` is
    /// killed.
    pub fn watch_group(&self, pgid: u32) {
        self.tell(&format!("group {pgid}"));
    }

    /// A group that has ended.
    pub fn forget_group(&self, pgid: u32) {
        self.tell(&format!("ungroup {pgid}"));
    }

    /// `exec` has cleaned up after itself: the guard ends without doing anything.
    pub fn release(&self) {
        self.tell("done");
        self.pipe.lock().unwrap_or_else(|e| e.into_inner()).take();
        let _ = self.child.lock().unwrap_or_else(|e| e.into_inner()).wait();
    }
}

/// The guard's side: reads `exec`'s messages from stdin until `done` or the end of the pipe;
/// at the end of the pipe without `done`, ends what is listed and removes `run_dir`.
pub fn guard_main(run_dir: Option<PathBuf>) {
    let mut groups: Vec<u32> = Vec::new();
    for line in BufReader::new(std::io::stdin()).lines() {
        let Ok(line) = line else { break };
        let (what, number) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        let number = number.trim().parse::<u32>().ok();
        match (what, number) {
            ("done", _) => return,
            ("group", Some(n)) => groups.push(n),
            ("ungroup", Some(n)) => groups.retain(|g| *g != n),
            _ => {}
        }
    }
    // exec is gone without cleaning up.
    for &pgid in &groups {
        group::signal_group(pgid, Sig::Terminate);
    }
    let deadline = Instant::now() + GRACE;
    while groups.iter().any(|g| group::group_alive(*g)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &pgid in &groups {
        group::signal_group(pgid, Sig::Kill);
    }
    if let Some(dir) = run_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
}
