//! Blocking probes of a server binary under slow and idle clients, on 127.0.0.1: the child
//! process (its announced addresses, signals, exit, open descriptors) and raw TCP clients that
//! stay silent, trickle their headers, send half a request or make one whole request. Every
//! wait has a deadline.
//!
//! Shared by the slow-client tests of the companion and of the sandbox (`#[path]`), which
//! start their real binaries; kept here, next to the serving loop they exercise.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A server binary running as a child process; killed when dropped.
pub struct Server {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Server {
    /// Starts `command` (stdout piped, stderr inherited).
    pub fn start(mut command: Command) -> Server {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the binary");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server { child, lines }
    }

    /// The address in the first stdout line `{prefix}http://HOST:PORT` (waits up to 60 s).
    pub fn address(&self, prefix: &str) -> SocketAddr {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no line {prefix:?}"));
            if let Some(url) = line.strip_prefix(prefix) {
                let host_port = url
                    .trim()
                    .trim_start_matches("http://")
                    .trim_end_matches('/');
                return host_port.parse().expect("HOST:PORT");
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (`TERM`, `INT`) with kill(1).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .expect("kill");
        assert!(status.success(), "kill -{signal}");
    }

    /// The exit status, waiting at most `limit`; `None` if still running then.
    pub fn exit_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// How many descriptors the process has open (Linux: `/proc/PID/fd`).
    pub fn open_descriptors(&self) -> Option<usize> {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .ok()
            .map(|entries| entries.count())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One whole `GET path` on a new connection (`Connection: close`); the answer as text. Panics
/// if it takes more than 10 s.
pub fn get(addr: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .expect("an answer within 10 s");
    String::from_utf8_lossy(&answer).into_owned()
}

/// `n` connections that never send a byte.
pub fn silent(addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect()
}

/// A connection that sent `bytes` (e.g. half a request) and then nothing.
pub fn sent(addr: SocketAddr, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.write_all(bytes).expect("send");
    stream
}

/// Whether the server closes `stream` (end of stream or reset) within `limit`; bytes it sends
/// first (an error answer) are skipped.
pub fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut buf = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        stream.set_read_timeout(Some(left)).expect("timeout");
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false
            }
            Err(_) => return true,
        }
    }
}

/// The start of a request to `path` whose head never ends (for [`trickle`]: header bytes).
pub fn endless_head(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nX-Slow: ")
}

/// `n` clients that send `start` and then one byte (`a`) every `every`, never finishing, for at
/// most `limit`. The thread returns how long each connection stayed open (`limit` for one the
/// server did not close) and how many bytes were trickled in all.
pub fn trickle(
    addr: SocketAddr,
    start: &str,
    n: usize,
    every: Duration,
    limit: Duration,
) -> JoinHandle<(Vec<Duration>, usize)> {
    let mut streams: Vec<Option<TcpStream>> =
        (0..n).map(|_| Some(sent(addr, start.as_bytes()))).collect();
    for stream in streams.iter().flatten() {
        stream.set_nonblocking(true).expect("nonblocking");
    }
    std::thread::spawn(move || {
        let started = Instant::now();
        let mut open_for = vec![limit; n];
        let mut trickled = 0;
        while started.elapsed() < limit && streams.iter().any(Option::is_some) {
            for (i, slot) in streams.iter_mut().enumerate() {
                let Some(stream) = slot else { continue };
                let mut buf = [0u8; 256];
                let closed = match stream.read(&mut buf) {
                    Ok(0) => true,
                    Ok(_) => false,
                    Err(e) => e.kind() != ErrorKind::WouldBlock,
                } || match stream.write(b"a") {
                    Ok(_) => {
                        trickled += 1;
                        false
                    }
                    Err(e) => e.kind() != ErrorKind::WouldBlock,
                };
                if closed {
                    open_for[i] = started.elapsed();
                    *slot = None;
                }
            }
            // The trickle's pace (not a synchronisation).
            std::thread::sleep(every);
        }
        (open_for, trickled)
    })
}

/// The resident memory of process `pid`, in bytes (Linux: `VmRSS` in `/proc/PID/status`).
pub fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The start of a request head of `bytes` bytes that never ends: a request line, then one
/// header whose value fills the rest, with no line end.
pub fn unfinished_head(path: &str, bytes: usize) -> Vec<u8> {
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: probe\r\nX-Fill: ").into_bytes();
    head.resize(bytes.max(head.len()), b'a');
    head
}

/// `n` connections, each sending `head` (written from a few threads at once) and then nothing.
/// Connections the server refused or closed while they were written are left out.
pub fn flood(addr: SocketAddr, n: usize, head: &[u8]) -> Vec<TcpStream> {
    let workers = 8;
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let head = head.to_vec();
            let count = n / workers + usize::from(w < n % workers);
            std::thread::spawn(move || {
                (0..count)
                    .filter_map(|_| {
                        let mut stream = TcpStream::connect(addr).ok()?;
                        stream.write_all(&head).ok()?;
                        Some(stream)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    handles
        .into_iter()
        .flat_map(|h| h.join().expect("flood thread"))
        .collect()
}

/// The status code of the first answer `stream` receives within `limit`, if any.
pub fn status_within(stream: &mut TcpStream, limit: Duration) -> Option<u16> {
    stream.set_read_timeout(Some(limit)).expect("timeout");
    let mut answer = [0u8; 12];
    let mut read = 0;
    while read < answer.len() {
        match stream.read(&mut answer[read..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
    }
    std::str::from_utf8(&answer[..read])
        .ok()?
        .strip_prefix("HTTP/1.1 ")?
        .get(..3)?
        .parse()
        .ok()
}

/// What a server's memory did through a flood of unfinished heads.
#[derive(Debug, Clone, Copy)]
pub struct Flooded {
    /// Resident bytes before the flood.
    pub rest: u64,
    /// The most seen while the flood's connections were open.
    pub most: u64,
    /// Resident bytes once the connections closed: when back within `slack` of `rest`, or
    /// after 10 s.
    pub after: u64,
}

/// Opens `n` connections spread over `addrs`, each sending `head` and then nothing; watches
/// `pid`'s resident memory for 3 s, closes them, and watches it for at most 10 s more (until it
/// is back within `slack` bytes of where it was), calling `serve` between looks: the server
/// goes on serving meanwhile. Panics when fewer than 99% of the connections were made.
pub fn flood_and_watch(
    pid: u32,
    addrs: &[SocketAddr],
    n: usize,
    head: &[u8],
    slack: u64,
    serve: impl Fn(),
) -> Flooded {
    let rest = resident_bytes(pid).expect("RSS");
    let mut streams = Vec::new();
    for addr in addrs {
        streams.extend(flood(*addr, n / addrs.len(), head));
    }
    assert!(
        streams.len() * 100 >= n * 99,
        "{} of {n} connections made",
        streams.len()
    );
    let mut most = rest;
    let watching = Instant::now();
    while watching.elapsed() < Duration::from_secs(3) {
        most = most.max(resident_bytes(pid).expect("RSS"));
        std::thread::sleep(Duration::from_millis(20));
    }
    serve();
    drop(streams);
    let closed = Instant::now();
    let mut after = most;
    while closed.elapsed() < Duration::from_secs(10) {
        serve();
        after = resident_bytes(pid).expect("RSS");
        if after <= rest + slack {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!(
        "RSS at rest {} KiB, most {} KiB with {n} unfinished heads, {} KiB after they closed",
        rest / 1024,
        most / 1024,
        after / 1024
    );
    Flooded { rest, most, after }
}
