//! The identity server down, slow, restarted, or misdescribed.

use crate::common::browser::{sign_in, FULL_SCOPE};
use crate::common::*;
use serde_json::json;
use std::time::{Duration, Instant};

fn any_body() -> serde_json::Value {
    json!({"code": "c", "codeVerifier": "v".repeat(43), "nonce": "n", "redirectUri": HOME})
}

async fn closed_port_url() -> (String, std::net::SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    (format!("http://{addr}"), addr)
}

#[tokio::test]
async fn a_stopped_identity_server_is_upstream_unavailable_fast_and_a_restart_recovers() {
    let (url, addr) = closed_port_url().await;
    // The companion starts before the identity server exists (discovery is lazy).
    let companion = start_companion(settings(&url)).await;
    let started = Instant::now();
    let reply = post(&companion, "/auth/token", Some(&any_body()), None).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (502, "upstream_unavailable")
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );

    // The identity server comes up on that address: discovery is retried in the background
    // (after a pause that grows from 250 ms), and readiness says when it has loaded.
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .expect("rebind the port");
    let mut identity = start_identity_with(|s| s, Some(listener)).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while get(&companion, "/readyz", None).await.status != 200 {
        assert!(Instant::now() < deadline, "discovery never loaded");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let cookie = reply.cookie();

    // Stopped again (discovery cached): refresh is upstream_unavailable and keeps the cookie.
    identity.server.stop().await;
    let started = Instant::now();
    let refresh = post(&companion, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(
        (refresh.status, refresh.error().as_str()),
        (502, "upstream_unavailable")
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(
        refresh.set_cookie().is_none(),
        "an outage does not end the session"
    );
}

#[tokio::test]
async fn a_slow_identity_server_is_upstream_timeout() {
    let identity = start_identity_with(|s| s.with_token_delay(Duration::from_secs(3)), None).await;
    let mut s = settings(&identity.url);
    s.upstream_timeout = Duration::from_millis(300);
    let companion = start_companion(s).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let started = Instant::now();
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (504, "upstream_timeout")
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_discovery_document_for_another_issuer_is_refused() {
    // The sandbox says its issuer is another address than the one configured.
    let identity = start_identity_with(|s| s.with_issuer("http://identity.invalid"), None).await;
    let companion = start_companion(settings(&identity.url)).await;
    let reply = post(&companion, "/auth/token", Some(&any_body()), None).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (502, "upstream_unavailable")
    );
    assert_eq!(
        identity.token_calls(),
        0,
        "no code is sent to an unverified issuer"
    );
}
