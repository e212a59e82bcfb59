//! `serve_on`: connections served on `ConnectionThreads`, in process on 127.0.0.1. Each
//! connection stays on one thread and the connections take turns; the cap counts the
//! connections of every thread; shutdown ends within its deadline. Every wait has a deadline.

use axum::routing::get;
use axum::Router;
use fundraising_serve::{serve_on, ConnectionThreads, Limits};
use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

struct Running {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Sends the shutdown signal; how long `serve_on` took to return (panics past `limit`).
    async fn stop_within(self, limit: Duration) -> Duration {
        let started = Instant::now();
        let _ = self.stop.send(());
        tokio::time::timeout(limit, self.task)
            .await
            .expect("serve_on returns within the limit")
            .expect("task")
            .expect("serve_on");
        started.elapsed()
    }
}

/// `GET /thread` answers the name of the thread that runs the handler.
async fn start(limits: Limits, threads: usize) -> Running {
    let router = Router::new().route(
        "/thread",
        get(|| async { std::thread::current().name().unwrap_or("?").to_owned() }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let threads = ConnectionThreads::new(threads).expect("threads");
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        serve_on(
            listener,
            router,
            limits,
            async { drop(stopped.await) },
            &threads,
        )
        .await
    });
    Running { addr, stop, task }
}

/// One request on a kept-alive connection; the answer's body.
async fn get_on(stream: &mut TcpStream, path: &str) -> String {
    let request = format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let text = String::from_utf8_lossy(&answer).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .expect("content-length")
                .parse()
                .expect("length");
            if body.len() >= length {
                return body[..length].to_owned();
            }
        }
        let n = tokio::time::timeout_at(deadline, stream.read(&mut buf))
            .await
            .expect("an answer within 5 s")
            .expect("read");
        assert!(n > 0, "closed before the answer");
        answer.extend_from_slice(&buf[..n]);
    }
}

#[tokio::test]
async fn each_connection_stays_on_one_thread_and_connections_take_turns() {
    let server = start(Limits::default(), 2).await;
    let mut seen = HashSet::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(server.addr).await.expect("connect");
        let first = get_on(&mut stream, "/thread").await;
        assert!(first.starts_with("serve-"), "{first}");
        for _ in 0..3 {
            assert_eq!(get_on(&mut stream, "/thread").await, first);
        }
        seen.insert(first);
    }
    assert_eq!(
        seen,
        HashSet::from(["serve-1".to_owned(), "serve-2".to_owned()])
    );
    server.stop_within(Duration::from_secs(3)).await;
}

#[tokio::test]
async fn the_cap_counts_the_connections_of_every_thread() {
    let cap = 3;
    let server = start(Limits::from_millis(300, 30_000, 30_000, cap, 1_000), 2).await;
    // 9 silent clients, 3 at a time whichever thread serves them, each closed after 300 ms:
    // a fresh request waits about 900 ms (with a cap per thread, about 300 ms).
    let mut silent = Vec::new();
    for _ in 0..9 {
        silent.push(TcpStream::connect(server.addr).await.expect("connect"));
    }
    let started = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    let answer = tokio::time::timeout(Duration::from_secs(5), get_on(&mut stream, "/thread"))
        .await
        .expect("a fresh request is served once the idle clients time out");
    assert!(answer.starts_with("serve-"), "{answer}");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(750),
        "the cap did not hold across threads: answered after {waited:?}"
    );
    server.stop_within(Duration::from_secs(3)).await;
}

#[tokio::test]
async fn shutdown_ends_within_its_deadline_while_a_request_is_half_sent() {
    let server = start(Limits::from_millis(60_000, 60_000, 60_000, 64, 300), 2).await;
    let mut half = TcpStream::connect(server.addr).await.expect("connect");
    half.write_all(b"GET /thread HTTP/1.1\r\nHost: t\r\n")
        .await
        .expect("send");
    // Connections take turns, so the third is served on the half-sent one's thread, after
    // that thread has read the half request (its bytes were there first). Stopping before
    // then would find an idle connection, rightly closed at once.
    let mut other = TcpStream::connect(server.addr).await.expect("connect");
    let other_thread = get_on(&mut other, "/thread").await;
    let mut whole = TcpStream::connect(server.addr).await.expect("connect");
    let whole_thread = get_on(&mut whole, "/thread").await;
    assert!(whole_thread.starts_with("serve-"), "{whole_thread}");
    assert_ne!(whole_thread, other_thread, "connections take turns");
    let took = server.stop_within(Duration::from_secs(3)).await;
    assert!(took >= Duration::from_millis(250), "{took:?}: not graceful");
    assert!(took < Duration::from_secs(2), "{took:?}: past the deadline");
}
