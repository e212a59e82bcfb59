//! The OpenID faults a relying party must refuse, on demand, and the other switches of the
//! identity server's test routes: key rotation, revoking a user's refresh chains, short-lived
//! access tokens, the headless sign-in and the clock.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use common::*;
use fundraising_sandbox::OTHER_AUDIENCE;
use serde_json::{json, Value};

async fn post(app: &Router, uri: &str, body: Value) -> Reply {
    call(app, post_json(uri, &body)).await
}

/// The decoded header and claims of a compact JWT (no check of its signature).
fn parts(token: &str) -> (Value, Value) {
    let mut it = token.split('.');
    let decode = |part: Option<&str>| -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part.expect("part")).expect("b64"))
            .expect("JSON")
    };
    (decode(it.next()), decode(it.next()))
}

/// A sign-in of the demo user through the pages, and the token answer.
async fn signed_in(app: &Router) -> Value {
    let code = code(app, &authorize_uri(&[])).await;
    let reply = exchange(app, &code, Some(VERIFIER)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    reply.json()
}

/// For the next sign-in of demo-app, each id_token fault gives the token it names; the sign-in
/// after it gets a valid one again.
#[tokio::test]
async fn each_id_token_fault_issues_the_token_it_names_for_the_next_sign_in() {
    let t = open(with_test_routes());
    let app = t.identity();
    let jwks = call(&app, get("/.well-known/jwks.json")).await.json();
    let kid = jwks["keys"][0]["kid"].clone();
    let now = t.sandbox.clock().now_secs();
    for kind in [
        "unknown_key",
        "alg_none",
        "hs256",
        "wrong_iss",
        "wrong_aud",
        "missing_azp",
        "wrong_azp",
        "expired",
        "wrong_nonce",
    ] {
        let added = post(
            &app,
            "/_sandbox/faults",
            json!({"endpoint": "token", "app_id": "demo-app", "grant_type": "authorization_code", "id_token": kind, "times": 1}),
        )
        .await;
        assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);
        let token = signed_in(&app).await["id_token"]
            .as_str()
            .expect("id_token")
            .to_owned();
        let (header, claims) = parts(&token);
        match kind {
            "unknown_key" => {
                assert_eq!(header["alg"], "RS256");
                assert_ne!(header["kid"], kid);
                assert!(jwks["keys"]
                    .as_array()
                    .expect("keys")
                    .iter()
                    .all(|k| k["kid"] != header["kid"]));
            }
            "alg_none" => {
                assert_eq!(header["alg"], "none");
                assert!(token.ends_with('.'));
            }
            "hs256" => {
                use jsonwebtoken::{decode, Algorithm, DecodingKey, Validation};
                assert_eq!(header["alg"], "HS256");
                // Keyed with the public key: what a library that trusts `alg` would accept.
                let pem = t.sandbox.signing_key().public_pem().expect("pem");
                let mut validation = Validation::new(Algorithm::HS256);
                validation.set_audience(&["demo-app"]);
                decode::<Value>(
                    &token,
                    &DecodingKey::from_secret(pem.as_bytes()),
                    &validation,
                )
                .expect("HMAC with the public key");
            }
            _ => {
                let claims = verify_jwt(&jwks, &token);
                match kind {
                    "wrong_iss" => assert_ne!(claims["iss"], t.sandbox.issuer()),
                    "wrong_aud" => assert_eq!(claims["aud"], OTHER_AUDIENCE),
                    "missing_azp" => {
                        assert_eq!(claims["aud"], json!(["demo-app", OTHER_AUDIENCE]));
                        assert!(claims.get("azp").is_none());
                    }
                    "wrong_azp" => {
                        assert_eq!(claims["aud"], json!(["demo-app", OTHER_AUDIENCE]));
                        assert_eq!(claims["azp"], OTHER_AUDIENCE);
                    }
                    "expired" => assert!(claims["exp"].as_i64().expect("exp") < now - 60),
                    "wrong_nonce" => assert_ne!(claims["nonce"], "nonce-456"),
                    _ => unreachable!(),
                }
            }
        }
        assert_eq!(
            claims["sub"].as_str().map(str::is_empty),
            Some(false),
            "{kind}"
        );
        // Healed: the next sign-in's id_token is valid.
        let next = signed_in(&app).await;
        let claims = verify_jwt(&jwks, next["id_token"].as_str().expect("id_token"));
        assert_eq!(
            (claims["aud"].clone(), claims["nonce"].clone()),
            (json!("demo-app"), json!("nonce-456"))
        );
    }
}

/// A fault for refreshes leaves sign-ins alone, and another application's are untouched.
#[tokio::test]
async fn id_token_faults_meet_only_their_grant_and_application() {
    let t = open(with_test_routes());
    let app = t.identity();
    let jwks = call(&app, get("/.well-known/jwks.json")).await.json();
    post(
        &app,
        "/_sandbox/faults",
        json!({"endpoint": "token", "app_id": "demo-app", "grant_type": "refresh_token", "id_token": "wrong_aud", "times": 1}),
    )
    .await;
    let tokens = signed_in(&app).await;
    assert_eq!(
        verify_jwt(&jwks, tokens["id_token"].as_str().expect("id")).get("aud"),
        Some(&json!("demo-app"))
    );
    let refreshed = refresh(&app, tokens["refresh_token"].as_str().expect("rt"))
        .await
        .json();
    assert_eq!(
        verify_jwt(&jwks, refreshed["id_token"].as_str().expect("id"))["aud"],
        OTHER_AUDIENCE
    );
}

/// `expires_in` gives access tokens that really live that long: the resource API refuses them
/// afterwards.
#[tokio::test]
async fn a_short_expires_in_is_the_access_tokens_real_lifetime() {
    let t = open(with_test_routes());
    let (app, api) = (t.identity(), t.api());
    post(
        &app,
        "/_sandbox/faults",
        json!({"endpoint": "token", "expires_in": 5, "times": 1}),
    )
    .await;
    let tokens = signed_in(&app).await;
    assert_eq!(tokens["expires_in"], 5);
    let (_, claims) = parts(tokens["id_token"].as_str().expect("id"));
    assert_eq!(
        claims["exp"].as_i64().expect("exp") - claims["iat"].as_i64().expect("iat"),
        5
    );
    let owned = || {
        Request::get("/demo-app/v1/donation/ref/demo-ref-1")
            .header(
                header::AUTHORIZATION,
                format!("Bearer {}", tokens["access_token"].as_str().expect("at")),
            )
            .body(Body::empty())
            .expect("request")
    };
    assert_eq!(call(&api, owned()).await.status, StatusCode::OK);
    let moved = post(&api, "/_sandbox/clock", json!({"advance_secs": 6})).await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.body);
    assert_eq!(call(&api, owned()).await.status, StatusCode::UNAUTHORIZED);
    // The refresh token still works, and the next access token has the usual hour.
    let next = refresh(&app, tokens["refresh_token"].as_str().expect("rt"))
        .await
        .json();
    assert_eq!(next["expires_in"], 3600);
}

/// Rotating the key: new id_tokens carry the new `kid`; the JWKS keeps the old key or drops it.
#[tokio::test]
async fn the_signing_key_rotates_keeping_or_dropping_the_old_one() {
    let t = open(with_test_routes());
    let app = t.identity();
    let old = signed_in(&app).await["id_token"]
        .as_str()
        .expect("id")
        .to_owned();
    let old_kid = parts(&old).0["kid"].clone();
    let rotated = post(&app, "/_sandbox/keys/rotate", json!({})).await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.body);
    let new_kid = rotated.json()["kid"].clone();
    assert_ne!(new_kid, old_kid);
    let jwks = call(&app, get("/.well-known/jwks.json")).await.json();
    let kids: Vec<&Value> = jwks["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .map(|k| &k["kid"])
        .collect();
    assert_eq!(kids, [&new_kid, &old_kid]);
    verify_jwt(&jwks, &old);
    let new = signed_in(&app).await["id_token"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_eq!(parts(&new).0["kid"], new_kid);
    verify_jwt(&jwks, &new);

    let dropped = post(&app, "/_sandbox/keys/rotate", json!({"keep_old": false}))
        .await
        .json();
    let jwks = call(&app, get("/.well-known/jwks.json")).await.json();
    assert_eq!(jwks["keys"].as_array().expect("keys").len(), 1);
    assert_eq!(jwks["keys"][0]["kid"], dropped["kid"]);
}

/// Revoking a user's refresh chains: that user's next refresh is `invalid_grant`; another
/// user's session goes on.
#[tokio::test]
async fn revoking_a_users_chains_ends_that_users_refreshes_only() {
    let t = open(with_test_routes());
    let app = t.identity();
    let tokens = signed_in(&app).await;
    let reply = post(
        &app,
        "/_sandbox/revocations",
        json!({"user": "DEMO@example.org", "app_id": "demo-app"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.json()["revoked_chains"], 1);
    let refused = refresh(&app, tokens["refresh_token"].as_str().expect("rt")).await;
    assert_eq!(refused.json()["error"], "invalid_grant");
    for (body, says) in [
        (
            json!({"user": "ghost@example.org"}),
            "not a configured user",
        ),
        (
            json!({"user": "demo@example.org", "app_id": "ghost"}),
            "not a registered application",
        ),
        (json!({}), "user"),
    ] {
        let reply = post(&app, "/_sandbox/revocations", body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert!(reply.body.contains(says), "{body}: {}", reply.body);
    }
}

/// The headless sign-in runs the client's own authorize request (its state, nonce and PKCE
/// challenge) as a configured user, and hands back the callback address; the code works as
/// one from the pages does.
#[tokio::test]
async fn the_headless_sign_in_runs_the_real_authorize_and_code_path() {
    let t = open(with_test_routes());
    let app = t.identity();
    let authorize = format!(
        "http://id.example{}",
        authorize_uri(&[("login_hint", Some("demo@example.org"))])
    );
    let reply = post(
        &app,
        "/_sandbox/sign-in",
        json!({"authorize_url": authorize}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let callback = reply.json()["callback_url"]
        .as_str()
        .expect("callback")
        .to_owned();
    assert!(callback.starts_with(HOME), "{callback}");
    let query = query_of(&callback);
    assert_eq!(query["state"], "state-123");
    let tokens = exchange(&app, &query["code"], Some(VERIFIER)).await;
    assert_eq!(tokens.status, StatusCode::OK, "{}", tokens.body);
    let jwks = call(&app, get("/.well-known/jwks.json")).await.json();
    let claims = verify_jwt(&jwks, tokens.json()["id_token"].as_str().expect("id"));
    assert_eq!(claims["email"], "demo@example.org");
    assert_eq!(claims["nonce"], "nonce-456");
    // The PKCE challenge is the client's: another verifier is refused.
    let again = post(
        &app,
        "/_sandbox/sign-in",
        json!({"authorize_url": authorize, "user": "other@example.org"}),
    )
    .await;
    let code = query_of(again.json()["callback_url"].as_str().expect("callback"))["code"].clone();
    let wrong = exchange(
        &app,
        &code,
        Some("another-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"),
    )
    .await;
    assert_eq!(wrong.json()["error"], "invalid_grant");

    // Deny, and an OAuth error of the request itself, come back as the pages send them.
    let denied = post(
        &app,
        "/_sandbox/sign-in",
        json!({"authorize_url": authorize, "consent": "deny"}),
    )
    .await
    .json();
    assert_eq!(
        query_of(denied["callback_url"].as_str().expect("callback"))["error"],
        "access_denied"
    );
    let bad_scope = format!(
        "http://id.example{}",
        authorize_uri(&[("scope", Some("openid"))])
    );
    let refused = post(
        &app,
        "/_sandbox/sign-in",
        json!({"authorize_url": bad_scope, "user": "demo@example.org"}),
    )
    .await
    .json();
    assert_eq!(
        query_of(refused["callback_url"].as_str().expect("callback"))["error"],
        "invalid_scope"
    );
    // What the pages would show as an error page, or a user who does not exist: 400.
    let untrusted = format!(
        "http://id.example{}",
        authorize_uri(&[("redirect_uri", Some("http://evil.example/"))])
    );
    for (body, says) in [
        (
            json!({"authorize_url": untrusted, "user": "demo@example.org"}),
            "redirect_uri",
        ),
        (
            json!({"authorize_url": authorize, "user": "ghost@example.org"}),
            "not a configured user",
        ),
        (
            json!({"authorize_url": format!("http://id.example{}", authorize_uri(&[]))}),
            "login_hint",
        ),
        (json!({"authorize_url": "not a url"}), "absolute URL"),
        (
            json!({"authorize_url": authorize, "consent": "maybe"}),
            "allow or deny",
        ),
    ] {
        let reply = post(&app, "/_sandbox/sign-in", body.clone()).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{body}: {}",
            reply.body
        );
        assert!(reply.body.contains(says), "{body}: {}", reply.body);
    }
}

#[tokio::test]
async fn the_clock_moves_forward_only_and_within_a_year() {
    let t = open(with_test_routes());
    let api = t.api();
    let before = t.sandbox.clock().now_millis();
    let moved = post(&api, "/_sandbox/clock", json!({"advance_secs": 3600}))
        .await
        .json();
    assert!(moved["now_ms"].as_i64().expect("now") >= before + 3_600_000);
    for body in [
        json!({"advance_secs": -5}),
        json!({"advance_secs": 400 * 86400}),
        json!({"seconds": 1}),
    ] {
        assert_eq!(
            post(&api, "/_sandbox/clock", body.clone()).await.status,
            StatusCode::BAD_REQUEST,
            "{body}"
        );
    }
    assert!(t.sandbox.clock().now_millis() < before + 3_600_000 + 60_000);
}
