//! The companion binary starting and stopping as an operator runs it: never on the demo's
//! defaults unless `--demo`, never sending the secret in clear text to another machine unless
//! the risk is named, a configuration line of real JSON fields with no password in it, a line
//! for each request refused before routing, and a pre-stop delay in which readiness fails
//! while the listener still accepts.

#[path = "common/mod.rs"]
mod common;

use common::process::{companion_binary, terminate, Process};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

/// The companion with `args`, the secret in its environment, its log as JSON lines.
fn companion(args: &[&str]) -> Command {
    let mut cmd = Command::new(companion_binary());
    cmd.args(["--listen", "127.0.0.1:0", "--log-format", "json"])
        .args(args)
        .env("FUNDRAISING_CLIENT_SECRET", "startup-secret-value")
        .env("RUST_LOG", "info");
    for name in ["COMPANION_APP_ID", "COMPANION_AUTH_URL", "COMPANION_DEMO"] {
        cmd.env_remove(name);
    }
    cmd
}

/// Runs a companion that must refuse to start: its exit code and stderr.
fn refused(args: &[&str]) -> String {
    let mut process = Process::spawn(companion(args));
    let status = process.wait_exit(Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{args:?}: {}", process.stderr());
    process.stderr()
}

#[test]
fn without_an_app_id_and_auth_url_it_refuses_to_start_unless_demo() {
    let none = refused(&[]);
    assert!(
        none.contains("--app-id") && none.contains("--demo"),
        "{none}"
    );
    let no_auth_url = refused(&["--app-id", "partner-app"]);
    assert!(
        no_auth_url.contains("--auth-url") && no_auth_url.contains("--demo"),
        "{no_auth_url}"
    );
    let no_app_id = refused(&["--auth-url", "https://identity.example"]);
    assert!(no_app_id.contains("--app-id"), "{no_app_id}");
    // The demo starts with the demo's application and the sandbox's address.
    let mut demo = Process::spawn(companion(&["--demo"]));
    demo.wait_for_line("companion listening on ");
    terminate(&demo);
    assert!(demo.wait_exit(Duration::from_secs(10)).success());
    let config = configuration(&demo.stderr());
    assert_eq!(config["app_id"], "demo-app");
    assert_eq!(config["auth_url"], "http://127.0.0.1:8082/");
}

#[test]
fn an_http_identity_server_on_another_machine_needs_the_risk_named() {
    let remote = refused(&["--app-id", "a", "--auth-url", "http://192.0.2.10:8082"]);
    assert!(remote.contains("--allow-insecure-auth-url"), "{remote}");
    assert!(remote.contains("clear text"), "{remote}");
    let mut named = Process::spawn(companion(&[
        "--app-id",
        "a",
        "--auth-url",
        "http://192.0.2.10:8082",
        "--allow-insecure-auth-url",
    ]));
    named.wait_for_line("companion listening on ");
    terminate(&named);
    assert!(named.wait_exit(Duration::from_secs(10)).success());
}

/// The `configuration` line of a JSON log.
fn configuration(log: &str) -> Value {
    log.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["message"] == "configuration")
        .unwrap_or_else(|| panic!("no configuration line in {log}"))
}

/// Sends `bytes` on a new connection; the answer's status line.
fn raw(addr: &str, bytes: &[u8]) -> String {
    raw_on(TcpStream::connect(addr).expect("connect"), bytes)
}

/// Sends `bytes` on `stream`; the answer's status line.
fn raw_on(mut stream: TcpStream, bytes: &[u8]) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    stream.write_all(bytes).expect("send");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    answer.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn the_configuration_line_holds_real_fields_and_no_password_and_refused_requests_are_logged() {
    let mut process = Process::spawn(companion(&[
        "--app-id",
        "partner-app",
        "--auth-url",
        "http://alice:hunter2-password@127.0.0.1:9/realm",
        "--redis-url",
        "redis://:redis-password@127.0.0.1:9",
        "--max-header-bytes",
        "8192",
    ]));
    let url = process.wait_for_line("companion listening on ");
    let addr = url.trim_start_matches("http://").to_owned();
    assert_eq!(
        raw(&addr, b"NOT HTTP AT ALL\r\n\r\n"),
        "HTTP/1.1 400 Bad Request"
    );
    let mut big = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Fill: ".to_vec();
    big.resize(20_000, b'a');
    big.extend_from_slice(b"\r\n\r\n");
    assert_eq!(
        raw(&addr, &big),
        "HTTP/1.1 431 Request Header Fields Too Large"
    );
    // Each line is written as its connection ends, just after the answer was sent.
    let deadline = Instant::now() + Duration::from_secs(5);
    while process
        .stderr()
        .matches("request refused before routing")
        .count()
        < 2
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    terminate(&process);
    assert!(process.wait_exit(Duration::from_secs(10)).success());
    let log = process.stderr();
    for secret in ["hunter2-password", "redis-password", "startup-secret-value"] {
        assert!(!log.contains(secret), "{secret} is in the log:\n{log}");
    }
    let config = configuration(&log);
    assert_eq!(config["auth_url"], "http://redacted@127.0.0.1:9/realm");
    assert_eq!(config["app_id"], "partner-app");
    for (field, value) in [
        ("header_read_timeout_ms", 10_000),
        ("idle_timeout_ms", 60_000),
        ("request_timeout_ms", 60_000),
        ("max_connections", 1024),
        ("max_header_bytes", 8192),
        ("drain_timeout_ms", 10_000),
        ("drain_delay_ms", 0),
        ("refresh_grace_ms", 10_000),
    ] {
        assert_eq!(config[field], value, "{field} in {config}");
    }
    assert_eq!(config["shared_refreshes"], true);
    // No Rust `Debug` text: absent folders are absent, not "None".
    assert!(config.get("static_dir").is_none(), "{config}");
    assert!(
        !log.contains("Limits {") && !log.contains("\"None\""),
        "{log}"
    );
    let refused: Vec<Value> = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["message"] == "request refused before routing")
        .collect();
    // Each connection logs as it ends: in either order.
    let mut statuses: Vec<u64> = refused
        .iter()
        .filter_map(|l| l["status"].as_u64())
        .collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [400, 431], "{log}");
    for line in &refused {
        assert_eq!(line["target"], "fundraising_serve::refused");
        assert!(line["peer"].as_str().unwrap().starts_with("127.0.0.1:"));
    }
}

/// `--drain-delay`: after SIGTERM, `/readyz` answers 503 `draining` on new connections for the
/// delay (the window a load balancer needs to take the instance out), then the listener
/// closes, and the process exits 0.
#[test]
fn after_sigterm_readiness_fails_while_the_listener_still_accepts_then_it_drains() {
    let mut process = Process::spawn(companion(&[
        "--app-id",
        "partner-app",
        "--auth-url",
        "http://127.0.0.1:9",
        "--drain-delay",
        "1500",
    ]));
    let url = process.wait_for_line("companion listening on ");
    let addr = url.trim_start_matches("http://").to_owned();
    let signalled = Instant::now();
    terminate(&process);
    // Each probe on a new connection, as a load balancer's health check makes them.
    let readyz = b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let mut seen_draining = None;
    let mut refused_at = None;
    while signalled.elapsed() < Duration::from_secs(10) {
        match TcpStream::connect(&addr) {
            Err(_) => {
                refused_at = Some(signalled.elapsed());
                break;
            }
            Ok(stream) => {
                let status = raw_on(stream, readyz);
                if status.starts_with("HTTP/1.1 503") {
                    seen_draining.get_or_insert(signalled.elapsed());
                }
            }
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let seen = seen_draining.expect("no 503 from /readyz after SIGTERM");
    let refused = refused_at.expect("the listener never closed");
    assert!(seen < refused, "503 at {seen:?}, refused from {refused:?}");
    assert!(
        refused >= Duration::from_millis(1400),
        "the listener closed {refused:?} after SIGTERM, before the 1.5 s delay"
    );
    assert!(process.wait_exit(Duration::from_secs(10)).success());
    let log = process.stderr();
    assert!(log.contains("readiness fails; still accepting"), "{log}");
}

/// The metrics listener has small limits of its own: a 12 KB request head, which the site's
/// listener takes (16 KiB by default), is answered 431 there (8 KiB).
#[test]
fn the_metrics_listener_has_small_limits_of_its_own() {
    let mut process = Process::spawn(companion(&[
        "--app-id",
        "partner-app",
        "--auth-url",
        "http://127.0.0.1:9",
        "--metrics-listen",
        "127.0.0.1:0",
    ]));
    let site = process.wait_for_line("companion listening on ");
    let metrics = process.wait_for_line("companion metrics on ");
    let site = site.trim_start_matches("http://").to_owned();
    let metrics = metrics
        .trim_start_matches("http://")
        .trim_end_matches("/metrics")
        .to_owned();
    let head = |path: &str| {
        let mut head = format!("GET {path} HTTP/1.1\r\nHost: x\r\nX-Fill: ").into_bytes();
        head.resize(12_000, b'a');
        head.extend_from_slice(b"\r\nConnection: close\r\n\r\n");
        head
    };
    assert_eq!(raw(&site, &head("/healthz")), "HTTP/1.1 200 OK");
    assert_eq!(
        raw(&metrics, &head("/metrics")),
        "HTTP/1.1 431 Request Header Fields Too Large"
    );
    terminate(&process);
    assert!(process.wait_exit(Duration::from_secs(10)).success());
}

/// With every proxy variable naming a listener of the test's, the companion's discovery call
/// to an identity server on this machine goes to that server directly, asked to use the
/// environment's proxies or not: the proxy receives no connection.
#[test]
fn the_environments_proxy_never_carries_a_call_to_this_machine() {
    use std::net::TcpListener;
    for asked in [false, true] {
        let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
        proxy.set_nonblocking(true).unwrap();
        let proxy_url = format!("http://user:pass@{}", proxy.local_addr().unwrap());
        let identity = TcpListener::bind("127.0.0.1:0").unwrap();
        identity.set_nonblocking(true).unwrap();
        let auth_url = format!("http://{}", identity.local_addr().unwrap());
        let mut args = vec!["--app-id", "a", "--auth-url", &auth_url];
        if asked {
            args.push("--upstream-proxy-from-env");
        }
        let mut command = companion(&args);
        for name in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
        ] {
            command.env(name, &proxy_url);
        }
        command.env_remove("NO_PROXY").env_remove("no_proxy");
        let process = Process::spawn(command);
        let deadline = Instant::now() + Duration::from_secs(20);
        let request = loop {
            match identity.accept() {
                Ok((mut stream, _)) => {
                    stream.set_nonblocking(false).unwrap();
                    stream
                        .set_read_timeout(Some(Duration::from_secs(5)))
                        .unwrap();
                    let mut buf = [0u8; 1024];
                    let n = stream.read(&mut buf).unwrap_or(0);
                    break String::from_utf8_lossy(&buf[..n]).into_owned();
                }
                Err(_) => {
                    assert!(
                        Instant::now() < deadline,
                        "no call reached the identity server: {}",
                        process.stderr()
                    );
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        };
        assert!(
            request.starts_with("GET /.well-known/openid-configuration HTTP/1.1"),
            "asked {asked}: {request}"
        );
        assert!(
            !request.to_ascii_lowercase().contains("proxy-authorization"),
            "{request}"
        );
        assert!(
            proxy.accept().is_err(),
            "asked {asked}: a connection reached the proxy"
        );
        terminate(&process);
    }
}
