//! `POST /auth/refresh` (rotation, single flight, refusals) and `POST /auth/logout`.

use crate::common::browser::{sign_in, FULL_SCOPE};
use crate::common::*;
use fundraising_companion::CookieKey;

/// Signs in through `companion`; returns the session cookie (`name=value`) and access token.
async fn signed_in(identity: &Identity, companion: &Companion) -> (String, String) {
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    (
        reply.cookie(),
        reply.json()["accessToken"].as_str().unwrap().to_owned(),
    )
}

fn assert_cleared(reply: &Reply) {
    let set = reply.set_cookie().expect("a clearing Set-Cookie");
    assert!(set.starts_with("fundraising_session=;"), "{set}");
    assert!(
        set.contains("Max-Age=0") && set.contains("Path=/auth"),
        "{set}"
    );
}

#[tokio::test]
async fn refresh_returns_a_new_token_and_rotates_the_cookie() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let (cookie, access) = signed_in(&identity, &companion).await;
    let calls_before = identity.token_calls();

    let reply = post(&companion, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let json = reply.json();
    assert_token_answer_members(&json);
    assert_ne!(json["accessToken"], access.as_str());
    assert_eq!(json["profile"]["name"], "Demo Fundraiser");
    let rotated = reply.cookie();
    assert_ne!(
        rotated, cookie,
        "the cookie carries the rotated refresh token"
    );
    assert_eq!(identity.token_calls(), calls_before + 1);

    // The rotated cookie refreshes again (a new upstream call with the new token).
    let again = post(&companion, "/auth/refresh", None, Some(&rotated)).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_ne!(again.json()["accessToken"], json["accessToken"]);
    assert_eq!(identity.token_calls(), calls_before + 2);
}

#[tokio::test]
async fn concurrent_refreshes_of_one_session_share_one_upstream_call() {
    // A slow token endpoint, so that all refreshes arrive while the first is in flight.
    let delay = std::time::Duration::from_millis(400);
    let identity = start_identity_with(|s| s.with_token_delay(delay), None).await;
    let companion = start_companion(settings(&identity.url)).await;
    let (cookie, _) = signed_in(&identity, &companion).await;
    let calls_before = identity.token_calls();

    let started = std::time::Instant::now();
    let replies = futures_join_all((0..8).map(|_| {
        let (companion_url, cookie) = (companion.url().clone(), cookie.clone());
        tokio::spawn(async move {
            let response = client()
                .post(format!("{companion_url}/auth/refresh"))
                .header("origin", ORIGIN)
                .header("x-fundraising-client", "1")
                .header("cookie", cookie)
                .send()
                .await
                .expect("send");
            Reply::from(response).await
        })
    }))
    .await;
    // Sequential upstream calls would take 8 x 400 ms.
    let elapsed = started.elapsed();
    assert!(elapsed < delay * 5, "the refreshes overlapped: {elapsed:?}");
    assert_eq!(
        identity.token_calls(),
        calls_before + 1,
        "one upstream call for 8 refreshes"
    );
    let first = replies[0].json()["accessToken"].clone();
    for reply in &replies {
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(
            reply.json()["accessToken"],
            first,
            "all share the one new token"
        );
    }
    // The shared outcome's cookie works for the next refresh.
    let next = post(
        &companion,
        "/auth/refresh",
        None,
        Some(&replies[3].cookie()),
    )
    .await;
    assert_eq!(next.status, 200, "{}", next.body);
}

async fn futures_join_all(
    handles: impl Iterator<Item = tokio::task::JoinHandle<Reply>>,
) -> Vec<Reply> {
    let mut out = Vec::new();
    for handle in handles.collect::<Vec<_>>() {
        out.push(handle.await.expect("task"));
    }
    out
}

#[tokio::test]
async fn no_cookie_or_a_tampered_one_is_session_expired() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let (cookie, _) = signed_in(&identity, &companion).await;
    let calls = identity.token_calls();

    let none = post(&companion, "/auth/refresh", None, None).await;
    assert_eq!(
        (none.status, none.error().as_str()),
        (401, "session_expired")
    );
    assert_cleared(&none);

    let (name, value) = cookie.split_once('=').unwrap();
    let mut bytes = value.as_bytes().to_vec();
    let i = bytes.len() / 2;
    bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
    let tampered = format!("{name}={}", String::from_utf8(bytes).unwrap());
    let reply = post(&companion, "/auth/refresh", None, Some(&tampered)).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (401, "session_expired")
    );
    assert_cleared(&reply);

    // A cookie sealed by another key (another deployment) does not open either.
    let other = start_companion({
        let mut s = settings(&identity.url);
        s.cookie_key = CookieKey::random();
        s
    })
    .await;
    let foreign = post(&other, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(
        (foreign.status, foreign.error().as_str()),
        (401, "session_expired")
    );
    assert_eq!(
        identity.token_calls(),
        calls,
        "refused without calling upstream"
    );

    let session = get(&companion, "/auth/session", Some(&tampered)).await;
    assert_eq!(session.json()["active"], false);
    assert_cleared(&session);
}

#[tokio::test]
async fn instances_sharing_the_key_serve_any_request_and_a_reused_token_ends_the_session() {
    let identity = start_identity().await;
    let key = CookieKey::from_material(b"shared-cookie-key-material-0123456789").unwrap();
    let instance = |key: CookieKey| {
        let mut s = settings(&identity.url);
        s.cookie_key = key;
        s
    };
    let a = start_companion(instance(key.clone())).await;
    let b = start_companion(instance(key)).await;
    let (cookie, _) = signed_in(&identity, &a).await;

    // Instance B refreshes a session started on A.
    let on_b = post(&b, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(on_b.status, 200, "{}", on_b.body);
    let rotated = on_b.cookie();
    // ... and A refreshes the cookie B rotated.
    let on_a = post(&a, "/auth/refresh", None, Some(&rotated)).await;
    assert_eq!(on_a.status, 200, "{}", on_a.body);

    // The first cookie's refresh token was used already: presenting it to A (which never saw
    // it refreshed, so nothing is shared) makes the identity server revoke the chain.
    let replay = post(&a, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(
        (replay.status, replay.error().as_str()),
        (401, "session_expired")
    );
    assert_cleared(&replay);
    let after = post(&b, "/auth/refresh", None, Some(&on_a.cookie())).await;
    assert_eq!(
        (after.status, after.error().as_str()),
        (401, "session_expired"),
        "the chain is revoked"
    );
}

#[tokio::test]
async fn logout_clears_the_cookie() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let (cookie, _) = signed_in(&identity, &companion).await;
    let reply = post(&companion, "/auth/logout", None, Some(&cookie)).await;
    assert_eq!(reply.status, 204);
    assert!(reply.body.is_empty());
    assert_cleared(&reply);
    // Logging out twice, or without a session, is fine.
    assert_eq!(
        post(&companion, "/auth/logout", None, None).await.status,
        204
    );
    // The browser, having dropped the cookie, has no session.
    let session = get(&companion, "/auth/session", None).await;
    assert_eq!(session.json()["active"], false);
    let refresh = post(&companion, "/auth/refresh", None, None).await;
    assert_eq!(refresh.error(), "session_expired");
}

#[tokio::test]
async fn a_late_request_within_the_grace_window_gets_the_newest_session() {
    let identity = start_identity().await;
    let key = CookieKey::from_material(b"grace-window-cookie-key-material-0123").unwrap();
    let instance = |key: CookieKey| {
        let mut s = settings(&identity.url);
        s.cookie_key = key;
        s
    };
    let a = start_companion(instance(key.clone())).await;
    let (cookie1, _) = signed_in(&identity, &a).await;

    // Two refreshes in a row: cookie 1 gives cookie 2, cookie 2 gives cookie 3.
    let second = post(&a, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(second.status, 200, "{}", second.body);
    let cookie2 = second.cookie();
    let third = post(&a, "/auth/refresh", None, Some(&cookie2)).await;
    assert_eq!(third.status, 200, "{}", third.body);
    let newest_access = third.json()["accessToken"].clone();
    let calls = identity.token_calls();

    // Late requests (another tab) still carrying cookie 1 or 2, within the grace window, get
    // the newest state of the session without any upstream call.
    let late1 = post(&a, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(late1.status, 200, "{}", late1.body);
    assert_eq!(late1.json()["accessToken"], newest_access);
    let late2 = post(&a, "/auth/refresh", None, Some(&cookie2)).await;
    assert_eq!(late2.status, 200, "{}", late2.body);
    assert_eq!(late2.json()["accessToken"], newest_access);
    assert_eq!(identity.token_calls(), calls, "nothing replayed upstream");

    // The cookie handed to the late request holds the newest, unused refresh token: another
    // instance (which shares no grace memory) refreshes with it. Had it held the already
    // used second token, the identity server would see a replay and revoke the session.
    let b = start_companion(instance(key)).await;
    let on_b = post(&b, "/auth/refresh", None, Some(&late1.cookie())).await;
    assert_eq!(on_b.status, 200, "{}", on_b.body);
    let still = post(&b, "/auth/refresh", None, Some(&on_b.cookie())).await;
    assert_eq!(still.status, 200, "the session lives on: {}", still.body);
}

#[tokio::test]
async fn a_cookie_in_the_former_format_is_session_expired_and_cleared() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let calls = identity.token_calls();
    // The hand-sealed format before the private cookie jar: base64url(nonce || AES-GCM output).
    let old = "fundraising_session=q83vEjRWeJq83vEjAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    let reply = post(&companion, "/auth/refresh", None, Some(old)).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (401, "session_expired")
    );
    assert_cleared(&reply);
    let session = get(&companion, "/auth/session", Some(old)).await;
    assert_eq!(session.json()["active"], false);
    assert_cleared(&session);
    assert_eq!(
        identity.token_calls(),
        calls,
        "refused without calling upstream"
    );
}

/// The grace window counts from the end of the refresh, not its start: with a slow identity
/// server (a 2 s refresh), a request still carrying the old cookie 3 s after the answer (on the
/// companion's clock), inside a 4 s window, gets the new session without any upstream call;
/// counted from the start (5 s) it would have replayed a used refresh token and ended the
/// session. 2 s later on that clock, past the window, the old cookie goes upstream. (The same
/// at full scale, a 3 s refresh and 8 s within 10 s, is the single-flight unit test.)
#[tokio::test]
async fn the_grace_window_counts_from_the_end_of_a_slow_refresh() {
    let refresh_time = std::time::Duration::from_secs(2);
    let identity = start_identity_with(|s| s.with_token_delay(refresh_time), None).await;
    let mut s = settings(&identity.url);
    s.refresh_grace = std::time::Duration::from_secs(4);
    let clock = s.clock.clone();
    let companion = start_companion(s).await;
    let (cookie1, _) = signed_in(&identity, &companion).await;

    let started = std::time::Instant::now();
    let first = post(&companion, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(started.elapsed() >= refresh_time, "the refresh was slow");
    let calls = identity.token_calls();

    // Another tab, 3 s after the answer.
    clock.advance(std::time::Duration::from_secs(3));
    let late = post(&companion, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(late.status, 200, "{}", late.body);
    assert_eq!(late.json()["accessToken"], first.json()["accessToken"]);
    assert_eq!(identity.token_calls(), calls, "no used token replayed");
    // The newest cookie still works: the session was not revoked.
    let next = post(&companion, "/auth/refresh", None, Some(&first.cookie())).await;
    assert_eq!(next.status, 200, "{}", next.body);
    // 5 s after the first answer, the window is over for the first cookie: it goes upstream.
    clock.advance(std::time::Duration::from_secs(2));
    let calls = identity.token_calls();
    let replayed = post(&companion, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(
        identity.token_calls(),
        calls + 1,
        "past the window it goes upstream"
    );
    assert_eq!(replayed.status, 401, "{}", replayed.body);
}
