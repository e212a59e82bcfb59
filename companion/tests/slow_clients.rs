//! Slow and idle clients against the real `fundraising-companion` binary on 127.0.0.1 (no
//! client can make the server hold a connection or a descriptor for long): silent and trickling connections are closed by the header-read
//! timeout while `/healthz` still answers within a second, a stalled body is closed by the
//! idle timeout and a trickled one by the request timeout, more clients than the connection cap neither starve `/healthz` nor spend more
//! descriptors than the cap (even under a low `ulimit -n`), and SIGTERM ends the process within
//! the shutdown deadline while a request is half sent.

#[path = "../../serve/tests/probe/mod.rs"]
mod probe;

use probe::Server;
use std::net::SocketAddr;
use std::process::Command;
use std::time::{Duration, Instant};

const LISTENING: &str = "companion listening on ";

fn command(limits: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fundraising-companion"));
    // The identity server is never called by these tests (port 9: discard).
    command
        .args([
            "--listen",
            "127.0.0.1:0",
            "--app-id",
            "slow-clients-app",
            "--auth-url",
            "http://127.0.0.1:9",
        ])
        .args(limits)
        .env("FUNDRAISING_CLIENT_SECRET", "slow-clients-secret")
        .env("RUST_LOG", "error");
    command
}

fn start(limits: &[&str]) -> (Server, SocketAddr) {
    let server = Server::start(command(limits));
    let addr = server.address(LISTENING);
    (server, addr)
}

fn assert_healthy(addr: SocketAddr) {
    let answer = probe::get(addr, "/healthz");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let body = format!(
        r#"{{"status":"ok","version":"{}"}}"#,
        env!("CARGO_PKG_VERSION")
    );
    assert!(answer.ends_with(&body), "{answer}");
}

#[test]
fn silent_and_trickling_clients_are_closed_and_healthz_answers_within_a_second() {
    let (_server, addr) = start(&[
        "--header-read-timeout-ms",
        "500",
        "--idle-timeout-ms",
        "30000",
    ]);
    let started = Instant::now();
    let mut silent = probe::silent(addr, 30);
    let trickling = probe::trickle(
        addr,
        &probe::endless_head("/healthz"),
        10,
        Duration::from_millis(50),
        Duration::from_secs(6),
    );
    let asked = Instant::now();
    assert_healthy(addr);
    let took = asked.elapsed();
    assert!(took < Duration::from_secs(1), "/healthz took {took:?}");
    for stream in &mut silent {
        assert!(
            probe::closed_within(
                stream,
                Duration::from_secs(4).saturating_sub(started.elapsed())
            ),
            "a silent connection is still open {:?} after it was made",
            started.elapsed()
        );
    }
    let (open_for, trickled) = trickling.join().expect("trickling clients");
    assert!(trickled >= 10, "the clients trickled {trickled} bytes");
    for open in open_for {
        assert!(
            open < Duration::from_secs(3),
            "a trickling connection stayed open {open:?} (header-read timeout 500 ms)"
        );
    }
    assert_healthy(addr);
}

#[test]
fn a_stalled_request_body_is_closed_by_the_idle_timeout() {
    // The header-read timeout is long: only the idle timeout can close this connection.
    let (_server, addr) = start(&[
        "--header-read-timeout-ms",
        "60000",
        "--idle-timeout-ms",
        "500",
    ]);
    let head = format!(
        "POST /auth/token HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         X-Fundraising-Client: 1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    );
    let mut stalled = probe::sent(addr, format!("{head}{{\"code\":").as_bytes());
    assert!(
        probe::closed_within(&mut stalled, Duration::from_secs(3)),
        "a body that stopped arriving keeps its connection open"
    );
    assert_healthy(addr);
}

#[test]
fn a_body_trickled_within_the_idle_timeout_is_cut_by_the_request_timeout() {
    let (_server, addr) = start(&[
        "--header-read-timeout-ms",
        "60000",
        "--idle-timeout-ms",
        "500",
        "--request-timeout-ms",
        "1000",
    ]);
    let head = format!(
        "POST /auth/token HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         X-Fundraising-Client: 1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    );
    // A body byte every 100 ms: never idle for 500 ms, and never done.
    let trickling = probe::trickle(
        addr,
        &head,
        1,
        Duration::from_millis(100),
        Duration::from_secs(5),
    );
    let (open_for, trickled) = trickling.join().expect("trickling client");
    assert!(trickled >= 5, "the client trickled {trickled} bytes");
    assert!(
        open_for[0] < Duration::from_secs(3),
        "a trickled body kept its connection {:?} (request timeout 1 s)",
        open_for[0]
    );
    assert_healthy(addr);
}

#[test]
fn more_clients_than_the_cap_keep_descriptors_bounded_and_do_not_starve_healthz() {
    let cap = 8;
    // The case guarded: more silent clients than `ulimit -n` allows descriptors.
    let companion = command(&[
        "--header-read-timeout-ms",
        "300",
        "--idle-timeout-ms",
        "30000",
        "--max-connections",
        &cap.to_string(),
    ]);
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg(r#"ulimit -n 64 && exec "$0" "$@""#)
        .arg(companion.get_program())
        .args(companion.get_args());
    for (name, value) in companion.get_envs() {
        if let Some(value) = value {
            limited.env(name, value);
        }
    }
    let server = Server::start(limited);
    let addr = server.address(LISTENING);
    assert_healthy(addr);
    let baseline = server.open_descriptors();

    let _silent = probe::silent(addr, 80);
    let asked = Instant::now();
    let fresh = std::thread::spawn(move || probe::get(addr, "/healthz"));
    let mut most = baseline;
    while !fresh.is_finished() && asked.elapsed() < Duration::from_secs(15) {
        most = most.max(server.open_descriptors());
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(fresh.is_finished(), "/healthz starved for 15 s");
    let answer = fresh.join().expect("fresh request");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // 80 silent clients, 8 at a time, 300 ms each: about 3 s.
    let took = asked.elapsed();
    assert!(took < Duration::from_secs(8), "/healthz took {took:?}");
    if let (Some(baseline), Some(most)) = (baseline, most) {
        assert!(
            most <= baseline + cap + 2,
            "{most} descriptors open, {baseline} before the clients came, cap {cap}"
        );
    }
}

#[test]
fn sigterm_ends_the_process_within_the_deadline_while_a_request_is_half_sent() {
    // Timeouts far beyond the deadline: only the deadline can end this.
    let (mut server, addr) = start(&[
        "--header-read-timeout-ms",
        "60000",
        "--idle-timeout-ms",
        "60000",
        "--request-timeout-ms",
        "60000",
        "--shutdown-timeout-ms",
        "500",
    ]);
    let mut half = probe::sent(addr, b"GET /healthz HTTP/1.1\r\nHost: x\r\n");
    // The companion has begun reading the request, so the request is in progress.
    probe::read_by_server(&half, Duration::from_secs(10));
    assert_healthy(addr);
    let signalled = Instant::now();
    server.signal("TERM");
    let status = server
        .exit_within(Duration::from_secs(5))
        .expect("the companion still runs 5 s after SIGTERM");
    let took = signalled.elapsed();
    assert!(status.success(), "{status}");
    assert!(
        took >= Duration::from_millis(400),
        "stopped after {took:?}: the half-sent request was not waited for"
    );
    assert!(took < Duration::from_secs(3), "stopped after {took:?}");
    assert!(probe::closed_within(&mut half, Duration::from_secs(1)));
}

#[test]
fn ctrl_c_and_sigterm_still_stop_an_idle_companion_at_once() {
    for signal in ["INT", "TERM"] {
        let (mut server, addr) = start(&[]);
        assert_healthy(addr);
        server.signal(signal);
        let status = server
            .exit_within(Duration::from_secs(3))
            .unwrap_or_else(|| panic!("still running 3 s after SIG{signal}"));
        assert!(status.success(), "SIG{signal}: {status}");
    }
}

/// 1,000 connections each sending a request head just under the limit and never finishing it
/// (no authentication needed): the companion buffers at most the limit per connection, so its
/// memory stays within a bound (here 64 MiB above what it used at rest; 1,000 × 16 KiB, the
/// default limit, is 16 MiB), a head over the limit is answered 431 at once, and the memory is
/// given back once the connections close (within 8 MiB of rest in at most 10 s, while it goes
/// on serving).
#[test]
fn a_thousand_maximal_unfinished_heads_keep_memory_bounded_and_give_it_back() {
    let (server, addr) = start(&["--header-read-timeout-ms", "60000", "--threads", "2"]);
    assert_healthy(addr);
    let limit = 16 * 1024;

    let mut over = probe::sent(addr, &probe::unfinished_head("/healthz", limit + 1024));
    assert_eq!(
        probe::status_within(&mut over, Duration::from_secs(5)),
        Some(431),
        "a head over the limit"
    );

    let head = probe::unfinished_head("/healthz", limit - 512);
    let flooded = probe::flood_and_watch(server.pid(), &[addr], 1000, &head, 8 << 20, || {
        assert_healthy(addr)
    });
    let grew = flooded.most.saturating_sub(flooded.rest);
    assert!(
        grew <= 64 << 20,
        "1,000 unfinished heads took {} MiB above rest",
        grew >> 20
    );
    assert!(
        flooded.after <= flooded.rest + (8 << 20),
        "{} MiB above rest 10 s after the connections closed (most {} MiB above)",
        flooded.after.saturating_sub(flooded.rest) >> 20,
        grew >> 20
    );
}

/// 1,000 connections that each ask for a 2 MB text file and then read nothing: what the
/// companion holds for them stays within 64 MiB above rest, for the plain file and for one
/// compressed on the fly (brotli, then gzip): a file is compressed once, not per connection,
/// and a connection holds a bounded part of an answer, not all of it.
#[test]
fn a_thousand_clients_that_do_not_read_a_large_file_keep_memory_bounded() {
    let site = tempfile::tempdir().expect("site");
    let mut text = String::with_capacity(2 << 20);
    let mut n: u64 = 1;
    while text.len() < 2_000_000 {
        // Varied lines, so that the compressed file is not tiny.
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        text.push_str(&format!("line {n:x}: {}\n", n.rotate_left(17)));
    }
    std::fs::write(site.path().join("big.txt"), &text).expect("file");
    let static_dir = format!("--static-dir={}", site.path().display());
    for encoding in ["identity", "br", "gzip"] {
        let (server, addr) = start(&[
            "--header-read-timeout-ms",
            "60000",
            "--idle-timeout-ms",
            "60000",
            "--threads",
            "2",
            &static_dir,
        ]);
        assert_healthy(addr);
        let head =
            format!("GET /big.txt HTTP/1.1\r\nHost: {addr}\r\nAccept-Encoding: {encoding}\r\n\r\n");
        let flooded = probe::flood_and_watch(
            server.pid(),
            &[addr],
            1000,
            head.as_bytes(),
            32 << 20,
            || assert_healthy(addr),
        );
        let grew = flooded.most.saturating_sub(flooded.rest);
        assert!(
            grew <= 64 << 20,
            "{encoding}: 1,000 clients not reading a 2 MB file took {} MiB above rest",
            grew >> 20
        );
    }
}
