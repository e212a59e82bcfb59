//! A real Debian `redis-server` for the tests: on a free loopback port, without persistence
//! (`--save '' --appendonly no`), killed when dropped. A missing `redis-server` fails the test
//! with the way to install it; nothing is skipped.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a starting server gets to answer `PING`.
const READY_WITHIN: Duration = Duration::from_secs(10);

/// A running `redis-server`.
pub struct RedisServer {
    pub port: u16,
    child: Option<Child>,
    dir: tempfile::TempDir,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Whether something on `port` answers `PING` with `+PONG`.
fn answers_ping(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 7];
    stream.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

impl RedisServer {
    /// Starts a server on a free port (another port is tried if one is taken meanwhile).
    pub fn start() -> RedisServer {
        for _ in 0..5 {
            let mut server = RedisServer {
                port: free_port(),
                child: None,
                dir: tempfile::tempdir().expect("temp dir"),
            };
            if server.spawn() {
                return server;
            }
        }
        panic!("redis-server did not start on any of 5 free ports");
    }

    /// Starts the server on its port; false if it exited (port taken) before answering.
    fn spawn(&mut self) -> bool {
        let log = std::fs::File::create(self.dir.path().join("redis.log")).expect("log file");
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log file"))
            .stderr(log)
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
                "redis-server is missing: the Redis tests need Debian's redis-server \
                 (`scripts/ensure-tools.sh redis`, or `apt-get install redis-server`)"
            ),
            Err(e) => panic!("cannot start redis-server: {e}"),
        };
        self.child = Some(child);
        let deadline = Instant::now() + READY_WITHIN;
        while Instant::now() < deadline {
            if answers_ping(self.port) {
                return true;
            }
            if let Some(child) = self.child.as_mut() {
                if child.try_wait().ok().flatten().is_some() {
                    self.child = None;
                    return false;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "redis-server did not answer PING within {READY_WITHIN:?}; log:\n{}",
            std::fs::read_to_string(self.dir.path().join("redis.log")).unwrap_or_default()
        );
    }

    /// The URL the companion is given.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills the server and waits until it is gone (its port then refuses connections).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server's process (SIGSTOP): connections stay open, and nothing is answered
    /// until [`RedisServer::resume`] (a stalled Redis, not a dead one).
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused server go on (SIGCONT); what it received meanwhile is carried out now.
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, which: &str) {
        let pid = self.child.as_ref().expect("a running redis-server").id();
        let status = Command::new("kill")
            .arg(which)
            .arg(pid.to_string())
            .status()
            .expect("kill");
        assert!(status.success(), "kill {which} {pid}");
    }

    /// Starts the server again on the same port (after [`RedisServer::kill`]); empty.
    pub fn restart(&mut self) {
        self.kill();
        assert!(
            self.spawn(),
            "redis-server did not start again on port {}",
            self.port
        );
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // SIGKILL ends a paused server too.
        self.kill();
    }
}
