//! `POST /auth/token` and `GET /auth/session` against the sandbox.

use crate::common::browser::{sign_in, FULL_SCOPE};
use crate::common::*;
use std::time::{SystemTime, UNIX_EPOCH};

#[tokio::test]
async fn a_code_becomes_an_access_token_a_profile_and_a_sealed_cookie() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let json = reply.json();
    assert_token_answer_members(&json);
    assert!(json["accessToken"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(json["tokenType"], "Bearer");
    assert_eq!(json["expiresIn"], 3600);
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let expires_at = json["expiresAt"].as_i64().expect("ms since epoch");
    assert!(
        (expires_at - (now_ms + 3_600_000)).abs() < 10_000,
        "expiresAt {expires_at} vs now {now_ms}"
    );
    assert_eq!(json["profile"]["name"], "Demo Fundraiser");
    assert_eq!(json["profile"]["email"], "demo@example.org");
    assert!(json["profile"]["sub"]
        .as_str()
        .is_some_and(|s| !s.is_empty()));
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));

    // The refresh token and the id_token are not in the answer; the cookie is sealed.
    assert!(!reply.body.contains("refresh"), "{}", reply.body);
    assert!(
        !reply.body.contains("eyJ"),
        "no JWT in the answer: {}",
        reply.body
    );
    let set = reply.set_cookie().expect("session cookie");
    let attributes: Vec<&str> = set.split("; ").skip(1).collect();
    assert!(attributes.contains(&"HttpOnly"), "{set}");
    assert!(attributes.contains(&"SameSite=Strict"), "{set}");
    assert!(attributes.contains(&"Path=/auth"), "{set}");
    assert!(
        !attributes.contains(&"Secure"),
        "plain http public origin: {set}"
    );
    let value = reply.cookie();
    let sealed = value.split_once('=').unwrap().1;
    assert!(
        sealed.len() > 40 && !sealed.contains('.'),
        "opaque value: {sealed}"
    );
    assert!(!sealed.contains("eyJ"));

    // The session endpoint sees it, without tokens.
    let session = get(&companion, "/auth/session", Some(&value)).await;
    assert_eq!(session.status, 200);
    let session = session.json();
    assert_eq!(session["active"], true);
    assert_eq!(session["profile"]["name"], "Demo Fundraiser");
    assert_eq!(session.as_object().unwrap().len(), 2, "{session}");
    let none = get(&companion, "/auth/session", None).await;
    assert_eq!(none.json(), serde_json::json!({"active": false}));
}

#[tokio::test]
async fn an_https_public_origin_makes_the_cookie_secure() {
    let identity = start_identity().await;
    let mut s = settings(&identity.url);
    s.public_origin = "https://partner.example".into();
    s.allow_origin(ORIGIN).unwrap();
    let companion = start_companion(s).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply
        .set_cookie()
        .unwrap()
        .split("; ")
        .any(|a| a == "Secure"));
}

/// Over https the session cookie is `__Host-fundraising_session`: `Secure`, `Path=/` and no
/// `Domain`, which the prefix makes browsers enforce (no sibling subdomain receives it or may
/// set one that is taken for it), on every answer that sets it; a plain-named cookie is no
/// session there.
#[tokio::test]
async fn over_https_the_session_cookie_is_a_host_prefixed_cookie() {
    let identity = start_identity().await;
    let mut s = settings(&identity.url);
    s.public_origin = "https://partner.example".into();
    s.allow_origin(ORIGIN).unwrap();
    let companion = start_companion(s).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let exchanged = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(exchanged.status, 200, "{}", exchanged.body);
    let refreshed = post(&companion, "/auth/refresh", None, Some(&exchanged.cookie())).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    let logout = post(&companion, "/auth/logout", None, Some(&refreshed.cookie())).await;
    for reply in [&exchanged, &refreshed, &logout] {
        let cookies: Vec<&str> = reply
            .headers
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(cookies.len(), 1, "{cookies:?}");
        let attributes: Vec<String> = cookies[0]
            .split("; ")
            .skip(1)
            .map(str::to_ascii_lowercase)
            .collect();
        assert!(
            !attributes.iter().any(|a| a.starts_with("domain")),
            "{cookies:?}"
        );
        assert!(
            cookies[0].starts_with("__Host-fundraising_session="),
            "{cookies:?}"
        );
        assert!(attributes.contains(&"path=/".to_owned()), "{cookies:?}");
        for needed in ["secure", "httponly", "samesite=strict"] {
            assert!(attributes.contains(&needed.to_owned()), "{cookies:?}");
        }
    }
    // A live session's sealed value under the plain name (as a sibling host could set it) is
    // no session over https.
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let live = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    let session = get(&companion, "/auth/session", Some(&live.cookie())).await;
    assert_eq!(session.json()["active"], true, "{}", session.body);
    let shadow = live.cookie().replacen("__Host-", "", 1);
    let session = get(&companion, "/auth/session", Some(&shadow)).await;
    assert_eq!(session.json()["active"], false, "{}", session.body);
}

/// A sign-in that asked for fewer scopes gets an answer, and later refreshes, with no more
/// than those: the companion never asks the identity server for more than the page did.
#[tokio::test]
async fn no_answer_holds_wider_scopes_than_the_sign_in_asked() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let signed = sign_in(&identity.url, "openid profile offline_access").await;
    let exchanged = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(exchanged.status, 200, "{}", exchanged.body);
    let refreshed = post(&companion, "/auth/refresh", None, Some(&exchanged.cookie())).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    for reply in [&exchanged, &refreshed] {
        let scope = reply.json()["scope"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let granted: Vec<&str> = scope.split(' ').collect();
        assert!(!granted.contains(&"email"), "{scope}");
        assert!(
            granted
                .iter()
                .all(|s| ["openid", "profile", "offline_access"].contains(s)),
            "{scope}"
        );
        assert!(reply.json()["profile"]["email"].is_null());
    }
}

#[tokio::test]
async fn without_offline_access_no_session_is_kept() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let signed = sign_in(&identity.url, "openid profile").await;
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["profile"]["name"], "Demo Fundraiser");
    assert!(reply.json()["profile"]["email"].is_null(), "no email scope");
    let set = reply.set_cookie().expect("the old session is cleared");
    assert!(set.contains("Max-Age=0"), "{set}");
}

#[tokio::test]
async fn a_used_code_or_a_wrong_verifier_is_invalid_grant() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    assert_eq!(
        post(&companion, "/auth/token", Some(&token_body(&signed)), None)
            .await
            .status,
        200
    );
    let again = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(
        (again.status, again.error().as_str()),
        (400, "invalid_grant")
    );
    assert!(again.set_cookie().is_none());

    let mut other = sign_in(&identity.url, FULL_SCOPE).await;
    other.verifier = "x".repeat(64);
    let wrong = post(&companion, "/auth/token", Some(&token_body(&other)), None).await;
    assert_eq!(
        (wrong.status, wrong.error().as_str()),
        (400, "invalid_grant")
    );
}

#[tokio::test]
async fn an_expired_code_is_invalid_grant() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    identity
        .sandbox
        .clock()
        .advance(std::time::Duration::from_secs(61));
    let late = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!((late.status, late.error().as_str()), (400, "invalid_grant"));
}

#[tokio::test]
async fn another_nonce_is_refused() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let mut signed = sign_in(&identity.url, FULL_SCOPE).await;
    signed.nonce = "a-nonce-from-another-sign-in".into();
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (400, "nonce_mismatch")
    );
    assert!(
        reply.set_cookie().is_none(),
        "no session for a refused sign-in"
    );
}
