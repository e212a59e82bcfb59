//! End to end with both binaries: the `fundraising-sandbox` binary (identity server) and the
//! `fundraising-companion` binary, each on a port it picks (port 0, address read from stdout).
//! A test browser signs in over real HTTP (authorize, login form, consent form), then the
//! exchange, refresh, session, logout go through the companion; finally SIGTERM stops it
//! gracefully.
//!
//! Cargo exposes only this package's binaries to its tests (`CARGO_BIN_EXE_*`), so the
//! sandbox binary is built with `cargo build -p fundraising-sandbox` (same profile, same
//! target dir; a no-op when it is fresh) and taken from next to the companion binary.

#[path = "common/mod.rs"]
mod common;

use common::browser::{sign_in, FULL_SCOPE};
use common::process::{companion_binary, terminate, Process};
use common::{post_to, Reply, HOME, ORIGIN, SECRET};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Builds (if needed) and locates the sandbox binary next to the companion binary.
fn sandbox_binary() -> PathBuf {
    let companion = companion_binary();
    let profile_dir = companion.parent().expect("profile dir");
    let target_dir = profile_dir.parent().expect("target dir");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build.args([
        "build",
        "--quiet",
        "-p",
        "fundraising-sandbox",
        "--bin",
        "fundraising-sandbox",
        "--manifest-path",
    ]);
    build.arg(&manifest).arg("--target-dir").arg(target_dir);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    let status = build.status().expect("run cargo build");
    assert!(status.success(), "building the sandbox failed");
    let binary = profile_dir.join(format!(
        "fundraising-sandbox{}",
        std::env::consts::EXE_SUFFIX
    ));
    assert!(binary.exists(), "no sandbox binary at {}", binary.display());
    binary
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_binaries_sign_in_refresh_and_sign_out_over_http() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut sandbox_cmd = Command::new(sandbox_binary());
    sandbox_cmd
        .args([
            "--api-listen",
            "127.0.0.1:0",
            "--identity-listen",
            "127.0.0.1:0",
            "--data-dir",
        ])
        .arg(data.path().join("sandbox"));
    let mut sandbox = Process::spawn(sandbox_cmd);
    let identity_url = sandbox.wait_for_line("sandbox identity listening on ");

    // Some settings by flag, some by environment; the secret from a file.
    let secret_file = data.path().join("client-secret");
    std::fs::write(&secret_file, format!("{SECRET}\n")).unwrap();
    let key_file = data.path().join("cookie.key");
    std::fs::write(&key_file, "an-example-cookie-key-of-at-least-32-bytes").unwrap();
    let mut companion_cmd = Command::new(companion_binary());
    companion_cmd
        .args([
            "--listen",
            "127.0.0.1:0",
            "--auth-url",
            &identity_url,
            "--client-secret-file",
        ])
        .arg(&secret_file)
        .env("COMPANION_ALLOWED_ORIGINS", ORIGIN)
        .env("COMPANION_COOKIE_KEY_FILE", &key_file)
        .env("COMPANION_APP_ID", "demo-app")
        .env_remove("FUNDRAISING_CLIENT_SECRET")
        .env("RUST_LOG", "info");
    let mut companion = Process::spawn(companion_cmd);
    let companion_url = companion.wait_for_line("companion listening on ");

    let http = common::client();
    let health = Reply::from(
        http.get(format!("{companion_url}/healthz"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(health.status, 200);

    let signed = sign_in(&identity_url, FULL_SCOPE).await;
    let body = json!({"code": signed.code, "codeVerifier": signed.verifier, "nonce": signed.nonce, "redirectUri": HOME});
    let exchanged = post_to(&companion_url, "/auth/token", Some(&body), None).await;
    assert_eq!(exchanged.status, 200, "{}", exchanged.body);
    assert_eq!(exchanged.json()["profile"]["name"], "Demo Fundraiser");
    let cookie = exchanged.cookie();

    let refreshed = post_to(&companion_url, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    assert_ne!(
        refreshed.json()["accessToken"],
        exchanged.json()["accessToken"]
    );
    let rotated = refreshed.cookie();
    assert_ne!(rotated, cookie);

    let session = Reply::from(
        http.get(format!("{companion_url}/auth/session"))
            .header("cookie", &rotated)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(session.json()["active"], true);

    let logout = post_to(&companion_url, "/auth/logout", None, Some(&rotated)).await;
    assert_eq!(logout.status, 204);
    assert!(logout.set_cookie().unwrap().contains("Max-Age=0"));

    // SIGTERM: a graceful stop with status 0.
    terminate(&companion);
    let status = companion.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "exit status {status}");
    let log = companion.stderr();
    assert!(
        log.contains("path=/auth/token") && log.contains("status=200"),
        "{log}"
    );
    assert!(log.contains("shutting down"), "{log}");
    for secret in [
        SECRET,
        signed.code.as_str(),
        signed.verifier.as_str(),
        cookie.as_str(),
    ] {
        assert!(!log.contains(secret), "a secret reached the log");
    }
    terminate(&sandbox);
    sandbox.wait_exit(Duration::from_secs(10));
}

#[test]
fn the_companion_refuses_to_start_without_a_secret_and_never_takes_it_as_a_flag() {
    let mut cmd = Command::new(companion_binary());
    cmd.args(["--listen", "127.0.0.1:0", "--demo"])
        .env_remove("FUNDRAISING_CLIENT_SECRET");
    let output = cmd.output().expect("run");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("FUNDRAISING_CLIENT_SECRET"), "{stderr}");

    let flag = Command::new(companion_binary())
        .args(["--client-secret", "demo-secret"])
        .output()
        .expect("run");
    assert!(!flag.status.success(), "--client-secret is not a flag");

    let help = Command::new(companion_binary())
        .arg("--help")
        .output()
        .expect("run");
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--listen",
        "--app-id",
        "--client-secret-file",
        "--auth-url",
        "--allowed-origin",
        "--cookie-key-file",
        "--static-dir",
        "--pkg-dir",
        "--upstream-timeout-ms",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn bff_mode_without_an_api_url_is_a_start_up_error() {
    for environment in [false, true] {
        let mut cmd = Command::new(companion_binary());
        cmd.args(["--listen", "127.0.0.1:0", "--demo"])
            .env("FUNDRAISING_CLIENT_SECRET", "demo-secret")
            .env_remove("COMPANION_API_URL");
        if environment {
            cmd.env("COMPANION_BFF", "true");
        } else {
            cmd.env_remove("COMPANION_BFF").arg("--bff");
        }
        let mut process = Process::spawn(cmd);
        let status = process.wait_exit(Duration::from_secs(20));
        assert_eq!(status.code(), Some(2), "stderr: {}", process.stderr());
        assert!(
            process.stderr().contains("--bff needs --api-url"),
            "{}",
            process.stderr()
        );
    }
}

#[test]
fn the_secret_from_the_environment_is_never_printed() {
    let mut child = Process::spawn({
        let mut cmd = Command::new(companion_binary());
        cmd.args([
            "--listen",
            "127.0.0.1:0",
            "--app-id",
            "demo-app",
            "--auth-url",
            "http://127.0.0.1:9",
        ])
        .env("FUNDRAISING_CLIENT_SECRET", "env-secret-value-42")
        .env("RUST_LOG", "debug");
        cmd
    });
    let url = child.wait_for_line("companion listening on ");
    assert!(url.starts_with("http://127.0.0.1:"));
    assert!(!url.ends_with(":0"));
    terminate(&child);
    assert!(child.wait_exit(Duration::from_secs(10)).success());
    let log = child.stderr();
    assert!(log.contains("random cookie key"), "{log}");
    assert!(!log.contains("env-secret-value-42"), "{log}");
}

/// Starts the companion binary against `auth_url` with `extra` flags; returns the process and
/// its address.
fn start_companion_binary(auth_url: &str, extra: &[&str]) -> (Process, String) {
    let mut cmd = Command::new(companion_binary());
    cmd.args(["--listen", "127.0.0.1:0", "--auth-url", auth_url])
        .args(["--app-id", common::APP_ID, "--allowed-origin", ORIGIN])
        .args(extra)
        .env("FUNDRAISING_CLIENT_SECRET", SECRET)
        .env("RUST_LOG", "info");
    let mut process = Process::spawn(cmd);
    let url = process.wait_for_line("companion listening on ");
    (process, url)
}

/// `--log-format json`: one JSON object per request with the time, request id, method,
/// route, status, latency and upstream time; no secret, code, verifier, token or cookie
/// anywhere in the log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_have_one_line_per_request_with_its_fields_and_no_secret() {
    let identity = common::start_identity().await;
    let (mut companion, url) = start_companion_binary(&identity.url, &["--log-format", "json"]);
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let body = json!({"code": signed.code, "codeVerifier": signed.verifier, "nonce": signed.nonce, "redirectUri": HOME});
    let exchanged = post_to(&url, "/auth/token", Some(&body), None).await;
    assert_eq!(exchanged.status, 200, "{}", exchanged.body);
    let access = exchanged.json()["accessToken"].as_str().unwrap().to_owned();
    let cookie = exchanged.cookie();
    let refreshed = post_to(&url, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    let request_id = refreshed.header("x-request-id").expect("x-request-id");
    let logout = post_to(&url, "/auth/logout", None, Some(&refreshed.cookie())).await;
    assert_eq!(logout.status, 204);
    terminate(&companion);
    assert!(companion.wait_exit(Duration::from_secs(10)).success());
    let log = companion.stderr();

    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    let requests: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["target"] == "fundraising_companion::request")
        .collect();
    assert_eq!(requests.len(), 3, "one line per request: {log}");
    let refresh = requests
        .iter()
        .find(|l| l["route"] == "/auth/refresh")
        .expect("the refresh's line");
    assert_eq!(refresh["request_id"], request_id.as_str());
    assert_eq!(refresh["method"], "POST");
    assert_eq!(refresh["status"], 200);
    assert!(
        refresh["timestamp"]
            .as_str()
            .is_some_and(|t| t.contains('T')),
        "{refresh}"
    );
    assert!(
        refresh["latency_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{refresh}"
    );
    let upstream = refresh["upstream_ms"].as_f64().expect("upstream_ms");
    assert!(
        upstream > 0.0,
        "the refresh called the token endpoint: {refresh}"
    );
    assert!(
        upstream <= refresh["latency_ms"].as_f64().unwrap(),
        "{refresh}"
    );
    assert!(
        refresh["trace_id"].as_str().is_some_and(|t| t.len() == 32),
        "{refresh}"
    );
    let cookie_value = cookie.split_once('=').unwrap().1;
    let mut secrets = vec![
        ("client secret", SECRET.to_owned()),
        ("authorisation code", signed.code.clone()),
        ("PKCE verifier", signed.verifier.clone()),
        ("access token", access),
        ("session cookie", cookie_value.to_owned()),
    ];
    for token in identity.issued_tokens() {
        secrets.push(("issued token", token));
    }
    for (what, secret) in secrets {
        assert!(!log.contains(&secret), "the {what} appears in the log");
    }
}

/// SIGTERM while a refresh is in flight (a slow identity server): new connections are refused
/// at once, the refresh completes with its Redis write, and the process exits 0 within the
/// drain timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_a_refresh_in_flight_refuses_new_connections_and_exits_0() {
    let redis = common::redis::RedisServer::start();
    let identity =
        common::start_identity_with(|s| s.with_token_delay(Duration::from_millis(1500)), None)
            .await;
    let data = tempfile::tempdir().expect("temp dir");
    let key_file = data.path().join("cookie.key");
    std::fs::write(&key_file, "a-drain-test-cookie-key-of-32-bytes-or-more").unwrap();
    let (mut companion, url) = start_companion_binary(
        &identity.url,
        &[
            "--redis-url",
            &redis.url(),
            "--cookie-key-file",
            key_file.to_str().unwrap(),
            "--drain-timeout",
            "8000",
        ],
    );
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let body = json!({"code": signed.code, "codeVerifier": signed.verifier, "nonce": signed.nonce, "redirectUri": HOME});
    let exchanged = post_to(&url, "/auth/token", Some(&body), None).await;
    assert_eq!(exchanged.status, 200, "{}", exchanged.body);
    let refresh_token = identity.issued_tokens()[0].clone();

    let calls = identity.token_calls();
    let in_flight = tokio::spawn({
        let (url, cookie) = (url.clone(), exchanged.cookie());
        async move { post_to(&url, "/auth/refresh", None, Some(&cookie)).await }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while identity.token_calls() == calls {
        assert!(
            Instant::now() < deadline,
            "the refresh never reached the identity server"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    terminate(&companion);
    let address = url.trim_start_matches("http://").to_owned();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match std::net::TcpStream::connect(&address) {
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => break,
            _ => {
                assert!(
                    Instant::now() < deadline,
                    "new connections are still accepted"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
    assert!(
        !in_flight.is_finished(),
        "the refresh was still in flight when the listener closed"
    );
    let reply = in_flight.await.expect("task");
    assert_eq!(
        reply.status, 200,
        "the refresh in flight completes: {}",
        reply.body
    );
    assert!(reply.set_cookie().is_some());
    let status = companion.wait_exit(Duration::from_secs(10));
    assert_eq!(status.code(), Some(0), "stderr: {}", companion.stderr());
    assert!(
        companion.stderr().contains("draining"),
        "{}",
        companion.stderr()
    );
    // Its outcome reached Redis before the process ended.
    let entry = {
        use sha2::{Digest, Sha256};
        let hash = Sha256::digest(refresh_token.as_bytes());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        format!("{}{hex}", fundraising_companion::session::KEY_PREFIX)
    };
    let mut conn = ::redis::Client::open(redis.url())
        .expect("url")
        .get_multiplexed_async_connection()
        .await
        .expect("redis");
    let stored: Option<String> = ::redis::cmd("GET")
        .arg(&entry)
        .query_async(&mut conn)
        .await
        .expect("GET");
    assert!(
        stored.is_some_and(|v| v.starts_with("D:")),
        "the refresh was stored in Redis"
    );
}

/// `--metrics-listen`: the binary serves the scrape on its own address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_metrics_on_their_own_address() {
    let identity = common::start_identity().await;
    let (mut companion, url) =
        start_companion_binary(&identity.url, &["--metrics-listen", "127.0.0.1:0"]);
    let metrics = companion.wait_for_line("companion metrics on ");
    let health = Reply::from(
        common::client()
            .get(format!("{url}/healthz"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(health.status, 200);
    let scrape = common::client()
        .get(&metrics)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let parsed =
        prometheus_parse::Scrape::parse(scrape.lines().map(|l| Ok(l.to_owned()))).expect("parses");
    assert!(
        parsed
            .samples
            .iter()
            .any(|s| s.metric == "companion_http_requests_total"
                && s.labels.get("route") == Some("/healthz")),
        "{scrape}"
    );
    // The metrics are not on the main address.
    let none = Reply::from(
        common::client()
            .get(format!("{url}/metrics"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(none.status, 404);
    terminate(&companion);
    assert!(companion.wait_exit(Duration::from_secs(10)).success());
}

/// `--otlp-endpoint` (the `otlp` feature): the companion's spans reach a collector over
/// OTLP/HTTP, in the trace the incoming `traceparent` names; the call to the identity server
/// is a span of its own, and the `traceparent` it carried names that span.
#[cfg(feature = "otlp")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_are_exported_over_otlp_in_the_incoming_trace() {
    use axum::routing::post;
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message;
    use std::sync::{Arc, Mutex};

    // A collector's OTLP/HTTP receiver: decodes each protobuf export and keeps its spans as
    // (name, trace id, span id, parent span id), ids in hex.
    type Spans = Arc<Mutex<Vec<(String, String, String, String)>>>;
    let spans: Spans = Arc::default();
    let sink = spans.clone();
    let receiver = axum::Router::new().route(
        "/v1/traces",
        post(move |body: axum::body::Bytes| {
            let sink = sink.clone();
            async move {
                let request = ExportTraceServiceRequest::decode(body).expect("OTLP protobuf");
                let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
                for resource in request.resource_spans {
                    for scope in resource.scope_spans {
                        for span in scope.spans {
                            sink.lock().unwrap().push((
                                span.name.clone(),
                                hex(&span.trace_id),
                                hex(&span.span_id),
                                hex(&span.parent_span_id),
                            ));
                        }
                    }
                }
                ""
            }
        }),
    );
    let collector = common::serve(receiver, None).await;

    let identity = common::start_identity().await;
    let endpoint = format!("http://{}", collector.addr);
    let (mut companion, url) =
        start_companion_binary(&identity.url, &["--otlp-endpoint", &endpoint]);
    let trace_id = "0af7651916cd43dd8448eb211c80319c";
    let incoming = format!("00-{trace_id}-b7ad6b7169203331-01");
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let body = json!({"code": signed.code, "codeVerifier": signed.verifier, "nonce": signed.nonce, "redirectUri": HOME});
    let response = common::client()
        .post(format!("{url}/auth/token"))
        .header("origin", ORIGIN)
        .header("x-fundraising-client", "1")
        .header("content-type", "application/json")
        .header("traceparent", &incoming)
        .body(body.to_string())
        .send()
        .await
        .expect("send");
    let reply = Reply::from(response).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    // Stopping flushes the spans still buffered.
    terminate(&companion);
    assert!(companion.wait_exit(Duration::from_secs(10)).success());

    let spans = spans.lock().unwrap().clone();
    let request = spans
        .iter()
        .find(|(name, trace, _, _)| name == "request" && trace == trace_id)
        .unwrap_or_else(|| panic!("no request span in the incoming trace: {spans:?}"));
    assert_eq!(
        request.3, "b7ad6b7169203331",
        "the caller's span is its parent"
    );
    let upstream: Vec<_> = spans
        .iter()
        .filter(|(name, trace, _, parent)| {
            name == "upstream" && trace == trace_id && *parent == request.2
        })
        .collect();
    assert!(
        !upstream.is_empty(),
        "the upstream calls are children: {spans:?}"
    );
    // What the identity server received names an exported upstream span.
    let token_call = identity
        .seen()
        .into_iter()
        .find(|s| s.path == "/connect/token")
        .expect("the token call");
    let parent = token_call.traceparent.expect("traceparent");
    assert!(
        upstream
            .iter()
            .any(|(_, _, span, _)| parent == format!("00-{trace_id}-{span}-01")),
        "{parent} names none of {upstream:?}"
    );
}
