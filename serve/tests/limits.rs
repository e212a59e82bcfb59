//! The serving loop under slow and idle clients, in process on 127.0.0.1: silent and trickling
//! connections are closed by the header-read timeout, a stalled body by the idle timeout, the
//! cap bounds the open connections without starving a fresh request, and shutdown ends within
//! its deadline while a request is half sent. Every wait has a deadline.

use axum::extract::ConnectInfo;
use axum::routing::{get, post};
use axum::Router;
use fundraising_serve::{serve, Limits};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running server: its address, the sender that shuts it down and its task.
struct Running {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Sends the shutdown signal and returns how long `serve` took to return (panics past `limit`).
    async fn stop_within(mut self, limit: Duration) -> Duration {
        let started = Instant::now();
        let _ = self.stop.take().expect("running").send(());
        tokio::time::timeout(limit, &mut self.task)
            .await
            .expect("serve returns within the limit")
            .expect("task")
            .expect("serve");
        started.elapsed()
    }
}

/// `GET /healthz` answers the peer's address; `POST /echo` reads the whole body.
async fn start(limits: Limits) -> Running {
    let router = Router::new()
        .route(
            "/healthz",
            get(|ConnectInfo(peer): ConnectInfo<SocketAddr>| async move { peer.to_string() }),
        )
        .route("/echo", post(|body: String| async move { body }));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(serve(listener, router, limits, async {
        let _ = stopped.await;
    }));
    Running {
        addr,
        stop: Some(stop),
        task,
    }
}

/// Limits with a request timeout of 30 s, which only the trickled-body test shortens.
fn limits(header_read_ms: u64, idle_ms: u64, max: usize, shutdown_ms: u64) -> Limits {
    Limits::from_millis(header_read_ms, idle_ms, 30_000, max, shutdown_ms)
}

/// One complete `GET /healthz` on a new connection; the answer's text.
async fn healthz(addr: SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .await
        .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("answer");
    answer
}

/// Whether the server closes `stream` (end of stream or reset) within `limit`; any bytes it
/// sends first are skipped.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

#[tokio::test]
async fn silent_and_trickling_connections_are_closed_and_do_not_starve_a_request() {
    let server = start(limits(400, 30_000, 64, 1_000)).await;
    let mut silent = Vec::new();
    for _ in 0..20 {
        silent.push(TcpStream::connect(server.addr).await.expect("connect"));
    }
    // Trickling clients: a request line, then one header byte every 50 ms, never finished.
    let trickled = Arc::new(AtomicUsize::new(0));
    let mut tricklers = Vec::new();
    for _ in 0..5 {
        let addr = server.addr;
        let trickled = trickled.clone();
        tricklers.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(addr).await.expect("connect");
            stream
                .write_all(b"GET /healthz HTTP/1.1\r\nX-Slow: ")
                .await
                .expect("send");
            let started = Instant::now();
            let mut buf = [0u8; 64];
            // Until the server closes the connection (or 5 s pass): a byte, then a short read.
            while started.elapsed() < Duration::from_secs(5) {
                if stream.write_all(b"a").await.is_err() {
                    return started.elapsed();
                }
                trickled.fetch_add(1, Ordering::Relaxed);
                match tokio::time::timeout(Duration::from_millis(50), stream.read(&mut buf)).await {
                    Ok(Ok(0)) | Ok(Err(_)) => return started.elapsed(),
                    _ => {}
                }
            }
            started.elapsed()
        }));
    }
    let started = Instant::now();
    let answer = healthz(server.addr).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains("\r\n\r\n127.0.0.1:"),
        "ConnectInfo: {answer}"
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    for stream in &mut silent {
        assert!(
            closed_within(stream, Duration::from_secs(3)).await,
            "a silent connection stays open past the header-read timeout"
        );
    }
    for trickler in tricklers {
        let open_for = trickler.await.expect("trickler");
        assert!(
            open_for < Duration::from_secs(3),
            "a trickling connection stayed open {open_for:?}"
        );
    }
    assert!(
        trickled.load(Ordering::Relaxed) >= 5,
        "the clients did trickle"
    );
    server.stop_within(Duration::from_secs(3)).await;
}

#[tokio::test]
async fn a_stalled_body_is_closed_by_the_idle_timeout() {
    // The header-read timeout is long: only the idle timeout can close this connection.
    let server = start(limits(30_000, 400, 64, 1_000)).await;
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    stream
        .write_all(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nonly ten b")
        .await
        .expect("send");
    assert!(closed_within(&mut stream, Duration::from_secs(3)).await);
    // A complete body within the idle timeout is answered.
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    stream
        .write_all(
            b"POST /echo HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
        )
        .await
        .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("answer");
    assert!(
        answer.starts_with("HTTP/1.1 200") && answer.ends_with("hello"),
        "{answer}"
    );
    server.stop_within(Duration::from_secs(3)).await;
}

#[tokio::test]
async fn a_body_trickled_within_the_idle_timeout_is_cut_by_the_request_timeout() {
    let server = start(Limits::from_millis(30_000, 400, 800, 64, 1_000)).await;
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    stream
        .write_all(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n")
        .await
        .expect("send");
    // A byte every 100 ms: never idle for 400 ms, and never done.
    let started = Instant::now();
    let mut buf = [0u8; 256];
    let open_for = loop {
        if started.elapsed() > Duration::from_secs(4) || stream.write_all(b"a").await.is_err() {
            break started.elapsed();
        }
        match tokio::time::timeout(Duration::from_millis(100), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break started.elapsed(),
            _ => {}
        }
    };
    assert!(
        open_for < Duration::from_secs(2),
        "a trickled body kept its connection {open_for:?} (request timeout 800 ms)"
    );
    assert!(
        open_for >= Duration::from_millis(600),
        "closed after {open_for:?}"
    );
    assert!(healthz(server.addr).await.starts_with("HTTP/1.1 200"));
    server.stop_within(Duration::from_secs(3)).await;
}

#[tokio::test]
async fn more_clients_than_the_cap_wait_and_a_fresh_request_is_served_once_idle_ones_time_out() {
    let cap = 3;
    let server = start(limits(300, 30_000, cap, 1_000)).await;
    // More silent clients than the cap: the kernel completes their handshakes (backlog), the
    // server takes `cap` at a time and closes each after the header-read timeout.
    let mut silent = Vec::new();
    for _ in 0..9 {
        silent.push(TcpStream::connect(server.addr).await.expect("connect"));
    }
    let started = Instant::now();
    let answer = tokio::time::timeout(Duration::from_secs(5), healthz(server.addr))
        .await
        .expect("a fresh request is served once the idle clients time out");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // 9 silent clients, 3 at a time, 300 ms each: the fresh one waits about 900 ms.
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(600),
        "the cap did not hold: answered after {waited:?}"
    );
    server.stop_within(Duration::from_secs(3)).await;
}

#[tokio::test]
async fn shutdown_ends_within_its_deadline_while_a_request_is_half_sent() {
    // Timeouts far beyond the deadline: only the deadline can end this.
    let server = start(limits(60_000, 60_000, 64, 300)).await;
    // Half a request on a new connection (hyper lets such a one finish on shutdown)...
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n")
        .await
        .expect("send");
    // ...and a whole one after it, answered: the half one was accepted (in order) before.
    assert!(healthz(server.addr).await.starts_with("HTTP/1.1 200"));
    let took = server.stop_within(Duration::from_secs(3)).await;
    assert!(took >= Duration::from_millis(250), "{took:?}: not graceful");
    assert!(closed_within(&mut stream, Duration::from_secs(1)).await);
}

#[tokio::test]
async fn shutdown_without_connections_is_immediate() {
    let server = start(Limits::default()).await;
    assert!(healthz(server.addr).await.starts_with("HTTP/1.1 200"));
    let took = server.stop_within(Duration::from_secs(3)).await;
    assert!(took < Duration::from_secs(1), "{took:?}");
}
