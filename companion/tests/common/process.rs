//! The companion binary as a child process: its stdout lines, its stderr text, signals and
//! exit, every wait with a deadline.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A child process killed when dropped, with its stdout lines and stderr text collected.
pub struct Process {
    pub child: Child,
    lines: mpsc::Receiver<String>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    /// Reads stderr until the process closes it; joined once it exited, so its last lines
    /// are in `stderr`.
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Process {
    pub fn spawn(mut command: Command) -> Process {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the binary");
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (mut pipe, sink) = (child.stderr.take().expect("stderr"), stderr.clone());
        let stderr_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .expect("stderr")
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Process {
            child,
            lines,
            stderr,
            stderr_reader: Some(stderr_reader),
        }
    }

    /// The rest of the first stdout line starting with `prefix`, waiting up to 60 s.
    pub fn wait_for_line(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => {
                    return line[prefix.len()..].trim().to_owned()
                }
                Ok(_) => continue,
                Err(_) => panic!("no line {prefix:?}; stderr: {}", self.stderr()),
            }
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr").clone()
    }

    /// Waits for the exit, up to `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                // The pipe is closed now: what the reader has not taken yet is its last read.
                if let Some(reader) = self.stderr_reader.take() {
                    reader.join().expect("stderr reader");
                }
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "did not exit; stderr: {}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The companion binary of this build.
pub fn companion_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fundraising-companion"))
}

/// Sends SIGTERM to `process`.
pub fn terminate(process: &Process) {
    let status = Command::new("kill")
        .arg("-TERM")
        .arg(process.child.id().to_string())
        .status()
        .expect("kill");
    assert!(status.success());
}
