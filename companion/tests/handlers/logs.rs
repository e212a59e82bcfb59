//! The request log: one line per request, and never a secret, code, token or cookie.

use crate::common::browser::{sign_in, FULL_SCOPE};
use crate::common::*;

#[tokio::test]
async fn one_line_per_request_and_nothing_sensitive() {
    logs::capture();
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let access = reply.json()["accessToken"].as_str().unwrap().to_owned();
    let cookie = reply.cookie();
    let refreshed = post(&companion, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(refreshed.status, 200);
    let second_access = refreshed.json()["accessToken"].as_str().unwrap().to_owned();
    let reused = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reused.error(), "invalid_grant");
    let marker = format!("/healthz-{}", signed.nonce);
    let _ = get(&companion, &format!("{marker}?code={}", signed.code), None).await;
    post(&companion, "/auth/logout", None, Some(&refreshed.cookie())).await;

    let text = logs::text();
    let marker_line = text
        .lines()
        .find(|l| l.contains(&marker))
        .expect("the request was logged");
    assert!(marker_line.contains("method=GET"), "{marker_line}");
    assert!(marker_line.contains("status=404"), "{marker_line}");
    assert!(marker_line.contains("latency_ms="), "{marker_line}");
    let token_lines = text
        .lines()
        .filter(|l| l.contains("path=/auth/token") && l.contains("status="))
        .count();
    assert!(token_lines >= 2, "{text}");
    assert!(text
        .lines()
        .any(|l| l.contains("path=/auth/refresh") && l.contains("status=200")));
    let cookie_value = cookie.split_once('=').unwrap().1;
    for (what, secret) in [
        ("client secret", SECRET),
        ("authorisation code", signed.code.as_str()),
        ("PKCE verifier", signed.verifier.as_str()),
        ("access token", access.as_str()),
        ("refreshed access token", second_access.as_str()),
        ("session cookie", cookie_value),
    ] {
        assert!(!text.contains(secret), "the {what} appears in the log");
    }
    // No token the identity server issued (refresh, id, access) appears either.
    let issued = identity.issued_tokens();
    assert!(issued.len() >= 6, "{issued:?}");
    for token in issued {
        assert!(!text.contains(&token), "an issued token appears in the log");
    }
}

#[tokio::test]
async fn a_refused_id_token_is_logged_with_the_failed_check() {
    use crate::common::provider::*;
    use serde_json::json;
    logs::capture();
    let provider = start_provider().await;
    let companion = start_companion(settings(&provider.url)).await;
    for (check, claim, value) in [
        ("aud", "aud", json!("another-app")),
        ("iss", "iss", json!("http://impostor.example")),
        ("exp", "exp", json!(now() - 3600)),
    ] {
        let mut claims = provider.claims("n");
        claims[claim] = value;
        provider.answer_with(mint(&provider_key(), "k1", &claims));
        let body =
            json!({"code": "c", "codeVerifier": "v".repeat(43), "nonce": "n", "redirectUri": HOME});
        let reply = post(&companion, "/auth/token", Some(&body), None).await;
        assert_eq!(reply.error(), "id_token_invalid");
        let needle = format!("check=\"{check}\"");
        assert!(logs::text().contains(&needle), "no {needle} in the log");
    }
}
