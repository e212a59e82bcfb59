//! The sandbox's lock-out as the docs say: wrong passwords slow down the address that sends
//! them and nothing else. One address cannot lock accounts for other addresses, an unknown
//! name is answered exactly as a known one, and one user's sign-ins never evict another
//! user's session.

mod common;

use axum::http::StatusCode;
use common::*;
use fundraising_sandbox::{
    Config, Grant, RefreshRefusal, LOGIN_FAILURES_BEFORE_LOCK, MAX_CHAINS_PER_USER,
};

/// A configuration with `n` users, `user0@example.org` .. (password `pw`), and demo-app.
fn many_users(n: usize) -> Config {
    let mut toml = String::from(
        "[[applications]]\napp_id = \"demo-app\"\nsecret = \"demo-secret\"\nhome_page = \"http://127.0.0.1:8080/\"\n",
    );
    for i in 0..n {
        toml.push_str(&format!(
            "[[users]]\nemail = \"user{i}@example.org\"\npassword = \"pw\"\nname = \"User {i}\"\n"
        ));
    }
    Config::from_toml(&toml).expect("config")
}

/// One address sends wrong passwords for a thousand accounts, locking itself out of each; a
/// user then signs in with the right password from another address at once.
#[tokio::test]
async fn one_address_cannot_lock_accounts_for_other_addresses() {
    let accounts = 1000;
    let t = open(many_users(accounts));
    let app = t.identity();
    let attacker = "203.0.113.7:40000";
    for i in 0..accounts {
        let name = format!("user{i}@example.org");
        for _ in 0..LOGIN_FAILURES_BEFORE_LOCK {
            let request = new_request(&app).await;
            call(&app, login_from(&request, &name, "wrong", attacker)).await;
        }
    }
    // Every account, from a fresh address, with the right password: signed in.
    for (i, peer) in [
        (0, "198.51.100.1:5000"),
        (accounts - 1, "198.51.100.2:5000"),
    ] {
        let request = new_request(&app).await;
        let name = format!("user{i}@example.org");
        let reply = call(&app, login_from(&request, &name, "pw", peer)).await;
        assert_eq!(
            reply.status,
            StatusCode::SEE_OTHER,
            "{name}: {}",
            reply.body
        );
    }
    // The attacker's own address stays slowed down, for a new account too.
    let request = new_request(&app).await;
    let reply = call(
        &app,
        login_from(&request, "user5@example.org", "pw", attacker),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        reply.body
    );
}

/// The answers to wrong passwords do not tell whether an account exists: an unknown name
/// gets the same statuses, `Retry-After` and page text, attempt after attempt, as a known one.
#[tokio::test]
async fn an_unknown_name_is_answered_as_a_known_account_is() {
    let t = open_default();
    let app = t.identity();
    let peer = "203.0.113.9:40000";
    let mut answers = Vec::new();
    for name in ["demo@example.org", "nobody@example.org"] {
        let mut seen = Vec::new();
        for _ in 0..LOGIN_FAILURES_BEFORE_LOCK + 2 {
            let request = new_request(&app).await;
            let reply = call(&app, login_from(&request, name, "wrong", peer)).await;
            seen.push((
                reply.status,
                reply.header("retry-after"),
                reply
                    .body
                    .replace(name, "NAME")
                    .replace(&request, "REQUEST"),
            ));
        }
        answers.push(seen);
    }
    assert_eq!(
        answers[0][LOGIN_FAILURES_BEFORE_LOCK as usize - 1].0,
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(answers[0], answers[1]);
}

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
