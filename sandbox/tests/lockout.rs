//! What one client's sign-ins and refreshes can do to others: a refresh naming no scope is
//! refused without ending the session, and one user's sign-ins never evict another user's
//! session.

mod common;

use axum::http::StatusCode;
use common::*;
use fundraising_sandbox::{Grant, RefreshRefusal, MAX_CHAINS_PER_USER};

/// `scope=" "` names no scope: `invalid_scope`, and the refresh token stays valid.
#[tokio::test]
async fn a_refresh_whose_scope_names_no_scope_is_invalid_scope() {
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let rt = exchange(&app, &code, Some(VERIFIER)).await.json()["refresh_token"]
        .as_str()
        .expect("rt")
        .to_owned();
    for blank in [" ", "   "] {
        let reply = call(
            &app,
            token_request(
                Some(&basic("demo-app", "demo-secret")),
                &[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", &rt),
                    ("scope", blank),
                ],
            ),
        )
        .await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{blank:?}: {}",
            reply.body
        );
        assert_eq!(reply.json()["error"], "invalid_scope", "{}", reply.body);
    }
    assert_eq!(refresh(&app, &rt).await.status, StatusCode::OK);
}

fn grant_of(user: &str) -> Grant {
    Grant {
        client_id: "demo-app".into(),
        redirect_uri: HOME.into(),
        user_email: user.into(),
        scopes: vec!["openid".into(), "profile".into(), "offline_access".into()],
        nonce: "n".into(),
        auth_time: 0,
    }
}

/// A user's refresh token from a fresh sign-in, straight through the stores.
fn sign_in(t: &TestSandbox, user: &str, now: i64) -> String {
    let grants = t.sandbox.grants();
    let code = grants.codes().issue(grant_of(user), None, now);
    let (_, tokens) = grants
        .exchange_code(&code, "demo-app", HOME, None, now)
        .expect("exchange");
    tokens.refresh_token.expect("offline_access")
}

/// One user signing in more times than the store ever held sessions (the former cap over
/// all users was 4,096) revokes only that user's own oldest sessions: another user's session
/// keeps refreshing, and the store stays bounded per user.
#[test]
fn one_users_sign_ins_never_evict_another_users_session() {
    let t = open_default();
    let now = t.sandbox.clock().now_millis();
    let victim = sign_in(&t, "victim@example.org", now);
    let first = sign_in(&t, "attacker@example.org", now);
    let mut last = first.clone();
    for _ in 0..4100 {
        last = sign_in(&t, "attacker@example.org", now);
    }
    let tokens = t.sandbox.grants().tokens();
    assert!(
        tokens.refresh(&victim, "demo-app", None, now).is_ok(),
        "the victim's session was evicted"
    );
    assert_eq!(tokens.counts(now).2, MAX_CHAINS_PER_USER + 1);
    assert!(matches!(
        tokens.refresh(&first, "demo-app", None, now),
        Err(RefreshRefusal::Grant(_))
    ));
    assert!(tokens.refresh(&last, "demo-app", None, now).is_ok());
}
