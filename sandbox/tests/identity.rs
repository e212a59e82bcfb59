//! The identity server through its router: discovery, authorize, login, consent, token.

mod common;

use std::time::Duration;

use axum::http::StatusCode;
use common::*;
use fundraising_sandbox::{Config, SESSION_COOKIE};

#[tokio::test]
async fn discovery_names_every_endpoint_and_the_jwks_holds_the_key() {
    let t = open_default();
    let sandbox = t.sandbox.clone().with_issuer("http://id.example:9/");
    let app = fundraising_sandbox::identity_app(sandbox);
    let doc = call(&app, get("/.well-known/openid-configuration")).await;
    assert_eq!(doc.status, StatusCode::OK);
    let doc = doc.json();
    assert_eq!(doc["issuer"], "http://id.example:9");
    assert_eq!(
        doc["authorization_endpoint"],
        "http://id.example:9/connect/authorize"
    );
    assert_eq!(doc["token_endpoint"], "http://id.example:9/connect/token");
    assert_eq!(doc["jwks_uri"], "http://id.example:9/.well-known/jwks.json");
    assert_eq!(doc["response_types_supported"], serde_json::json!(["code"]));
    assert_eq!(
        doc["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    assert_eq!(
        doc["token_endpoint_auth_methods_supported"],
        serde_json::json!(["client_secret_basic"])
    );
    assert_eq!(
        doc["id_token_signing_alg_values_supported"],
        serde_json::json!(["RS256"])
    );
    assert!(doc["subject_types_supported"]
        .as_array()
        .is_some_and(|a| !a.is_empty()));
    let scopes = doc["scopes_supported"].as_array().expect("scopes");
    for s in ["openid", "profile", "email", "offline_access"] {
        assert!(scopes.iter().any(|x| x == s), "{s}");
    }
    let jwks = call(&app, get("/.well-known/jwks.json")).await;
    assert_eq!(jwks.status, StatusCode::OK);
    let key = &jwks.json()["keys"][0];
    assert_eq!(key["kty"], "RSA");
    assert_eq!(key["alg"], "RS256");
    assert_eq!(key["kid"], test_key().kid());
    let signed = test_key()
        .sign_jwt(&serde_json::json!({"x": 1}))
        .expect("sign");
    assert_eq!(verify_jwt(&jwks.json(), &signed)["x"], 1);
}

#[tokio::test]
async fn key_is_generated_on_first_start_and_kept() {
    let dir = tempfile::tempdir().expect("dir");
    let first = fundraising_sandbox::Sandbox::open(Config::default(), dir.path()).expect("open");
    let pem = std::fs::read_to_string(dir.path().join("signing-key.pem")).expect("key file");
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"), "PKCS#8 PEM");
    let kid = first.signing_key().kid().to_owned();
    drop(first);
    let second = fundraising_sandbox::Sandbox::open(Config::default(), dir.path()).expect("reopen");
    assert_eq!(second.signing_key().kid(), kid);
}

async fn page_error(uri: &str) {
    let t = open_default();
    let reply = call(&t.identity(), get(uri)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{uri}");
    assert!(
        reply.header("location").is_none(),
        "nothing redirected for {uri}"
    );
    assert!(reply
        .header("content-type")
        .unwrap_or_default()
        .starts_with("text/html"));
    assert!(reply.body.contains("Sign-in error"), "{}", reply.body);
}

#[tokio::test]
async fn untrusted_client_or_redirect_uri_shows_an_error_page() {
    page_error(&authorize_uri(&[("client_id", Some("nobody"))])).await;
    page_error(&authorize_uri(&[("client_id", None)])).await;
    page_error(&authorize_uri(&[(
        "redirect_uri",
        Some("http://127.0.0.1:8080/evil"),
    )]))
    .await;
    page_error(&authorize_uri(&[(
        "redirect_uri",
        Some("http://127.0.0.1:8080"),
    )]))
    .await;
    page_error(&authorize_uri(&[("redirect_uri", None)])).await;
}

async fn redirected_error(overrides: &[(&str, Option<&str>)], error: &str, description: &str) {
    let t = open_default();
    let reply = call(&t.identity(), get(&authorize_uri(overrides))).await;
    assert!(
        reply.status.is_redirection(),
        "{overrides:?}: {}",
        reply.status
    );
    let location = reply.location();
    assert!(location.starts_with(HOME), "{location}");
    let q = query_of(&location);
    assert_eq!(q["error"], error, "{overrides:?}");
    assert!(q["error_description"].contains(description), "{q:?}");
    assert_eq!(q["state"], "state-123");
    assert!(!q.contains_key("code"));
}

#[tokio::test]
async fn authorize_errors_go_back_to_the_application_with_state() {
    redirected_error(
        &[("response_type", Some("token"))],
        "unsupported_response_type",
        "token",
    )
    .await;
    redirected_error(
        &[("response_type", None)],
        "invalid_request",
        "response_type",
    )
    .await;
    redirected_error(
        &[("scope", Some("openid email"))],
        "invalid_scope",
        "openid and profile",
    )
    .await;
    redirected_error(
        &[("scope", Some("profile"))],
        "invalid_scope",
        "openid and profile",
    )
    .await;
    redirected_error(&[("scope", None)], "invalid_request", "scope").await;
    redirected_error(
        &[("scope", Some("openid profile social"))],
        "invalid_scope",
        "not yet available",
    )
    .await;
    redirected_error(
        &[("scope", Some("openid profile crowdfunding"))],
        "invalid_scope",
        "not yet available",
    )
    .await;
    redirected_error(
        &[("scope", Some("openid profile admin"))],
        "invalid_scope",
        "unknown",
    )
    .await;
    redirected_error(&[("nonce", None)], "invalid_request", "nonce").await;
    redirected_error(&[("nonce", Some(""))], "invalid_request", "nonce").await;
    redirected_error(
        &[("code_challenge_method", Some("plain"))],
        "invalid_request",
        "S256",
    )
    .await;
    redirected_error(
        &[("code_challenge_method", None)],
        "invalid_request",
        "S256",
    )
    .await;
    redirected_error(
        &[("code_challenge", Some("short"))],
        "invalid_request",
        "code_challenge",
    )
    .await;
    redirected_error(
        &[("code_challenge", None)],
        "invalid_request",
        "code_challenge",
    )
    .await;
}

#[tokio::test]
async fn error_without_state_has_no_state() {
    let t = open_default();
    let reply = call(
        &t.identity(),
        get(&authorize_uri(&[("state", None), ("nonce", None)])),
    )
    .await;
    let q = query_of(&reply.location());
    assert_eq!(q["error"], "invalid_request");
    assert!(!q.contains_key("state"));
}

#[tokio::test]
async fn login_page_is_a_real_form_and_a_wrong_password_shows_it_again() {
    let t = open_default();
    let app = t.identity();
    let reply = call(&app, get(&authorize_uri(&[]))).await;
    let login = reply.location();
    assert!(login.starts_with("/connect/login?request="), "{login}");
    let page = call(&app, get(&login)).await;
    assert_eq!(page.status, StatusCode::OK);
    for needle in [
        "<form method=\"post\" action=\"/connect/login\"",
        "name=\"username\"",
        "name=\"password\"",
        "type=\"submit\"",
    ] {
        assert!(page.body.contains(needle), "{needle} in {}", page.body);
    }
    let request = query_of(&login)["request"].clone();
    let wrong = call(
        &app,
        post_form(
            "/connect/login",
            &[
                ("request", &request),
                ("username", "demo@example.org"),
                ("password", "nope"),
            ],
            None,
        ),
    )
    .await;
    assert_eq!(wrong.status, StatusCode::OK);
    assert!(wrong.header("set-cookie").is_none());
    assert!(wrong.body.contains("not correct"), "{}", wrong.body);
    assert!(wrong.body.contains("name=\"password\""));
    assert!(wrong.body.contains("value=\"demo@example.org\""));
    let unknown = call(
        &app,
        post_form(
            "/connect/login",
            &[
                ("request", &request),
                ("username", "who@example.org"),
                ("password", "demo-password"),
            ],
            None,
        ),
    )
    .await;
    assert!(unknown.body.contains("not correct"));
    let expired = call(
        &app,
        post_form(
            "/connect/login",
            &[
                ("request", "made-up"),
                ("username", "demo@example.org"),
                ("password", "demo-password"),
            ],
            None,
        ),
    )
    .await;
    assert_eq!(expired.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn consent_lists_scopes_in_plain_words_and_deny_is_access_denied() {
    let t = open_default();
    let app = t.identity();
    let (cookie, consent) = login(&app, &authorize_uri(&[])).await;
    assert!(cookie.starts_with(&format!("{SESSION_COOKIE}=")));
    let page = call(&app, get_with_cookie(&consent, &cookie)).await;
    assert_eq!(page.status, StatusCode::OK);
    for needle in [
        "name=\"allow\"",
        "name=\"deny\"",
        "See your name",
        "See your email address",
        "Keep this access while you are not using the application",
        "Demo Fundraiser",
        "demo-app",
    ] {
        assert!(page.body.contains(needle), "{needle} in {}", page.body);
    }
    // Without the session cookie the consent page sends the browser back to login.
    let anonymous = call(&app, get(&consent)).await;
    assert!(anonymous.location().starts_with("/connect/login?"));
    let request = query_of(&consent)["request"].clone();
    let denied = call(
        &app,
        post_form(
            "/connect/consent",
            &[("request", &request), ("deny", "1")],
            Some(&cookie),
        ),
    )
    .await;
    let q = query_of(&denied.location());
    assert!(denied.location().starts_with(HOME));
    assert_eq!(q["error"], "access_denied");
    assert_eq!(q["state"], "state-123");
    assert!(!q.contains_key("code"));
    // The request is finished: deciding again is refused.
    let again = call(
        &app,
        post_form(
            "/connect/consent",
            &[("request", &request), ("allow", "1")],
            Some(&cookie),
        ),
    )
    .await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_session_cookie_skips_the_login_on_a_second_authorize() {
    let t = open_default();
    let app = t.identity();
    let (cookie, _) = login(&app, &authorize_uri(&[])).await;
    let reply = call(
        &app,
        get_with_cookie(&authorize_uri(&[("state", Some("second"))]), &cookie),
    )
    .await;
    let consent = reply.location();
    assert!(
        consent.starts_with("/connect/consent?request="),
        "{consent}"
    );
    let request = query_of(&consent)["request"].clone();
    let allowed = call(
        &app,
        post_form(
            "/connect/consent",
            &[("request", &request), ("allow", "1")],
            Some(&cookie),
        ),
    )
    .await;
    let q = query_of(&allowed.location());
    assert_eq!(q["state"], "second");
    assert!(!q["code"].is_empty());
    // A made-up cookie does not count as a session.
    let reply = call(
        &app,
        get_with_cookie(&authorize_uri(&[]), &format!("{SESSION_COOKIE}=forged")),
    )
    .await;
    assert!(reply.location().starts_with("/connect/login?"));
}

#[tokio::test]
async fn code_exchange_answers_tokens_and_a_signed_id_token() {
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let reply = exchange(&app, &code, Some(VERIFIER)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    let body = reply.json();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 3600);
    assert!(body["access_token"].as_str().is_some_and(|s| s.len() >= 32));
    assert!(body["refresh_token"]
        .as_str()
        .is_some_and(|s| s.len() >= 32));
    let jwks = call(&app, get("/.well-known/jwks.json")).await.json();
    let claims = verify_jwt(&jwks, body["id_token"].as_str().expect("id_token"));
    assert_eq!(claims["iss"], "http://127.0.0.1:8082");
    assert_eq!(claims["aud"], "demo-app");
    assert_eq!(claims["nonce"], "nonce-456");
    assert_eq!(claims["name"], "Demo Fundraiser");
    assert_eq!(claims["email"], "demo@example.org");
    assert!(claims["sub"]
        .as_str()
        .is_some_and(|s| s.starts_with("user-")));
    let iat = claims["iat"].as_i64().expect("iat");
    assert_eq!(claims["exp"].as_i64(), Some(iat + 3600));
    let now = t.sandbox.clock().now_secs();
    assert!((iat - now).abs() <= 5);
}

#[tokio::test]
async fn no_refresh_token_without_offline_access_and_no_email_without_email_scope() {
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[("scope", Some("openid profile"))])).await;
    let body = exchange(&app, &code, Some(VERIFIER)).await.json();
    assert!(body.get("refresh_token").is_none(), "{body}");
    let jwks = call(&app, get("/.well-known/jwks.json")).await.json();
    let claims = verify_jwt(&jwks, body["id_token"].as_str().expect("id_token"));
    assert_eq!(claims["name"], "Demo Fundraiser");
    assert!(claims.get("email").is_none());
}

#[tokio::test]
async fn a_code_works_once() {
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let first = exchange(&app, &code, Some(VERIFIER)).await;
    assert_eq!(first.status, StatusCode::OK);
    let second = exchange(&app, &code, Some(VERIFIER)).await;
    assert_eq!(second.status, StatusCode::BAD_REQUEST);
    assert_eq!(second.json()["error"], "invalid_grant");
    // Replaying the code revokes what its first use issued.
    let refresh_token = first.json()["refresh_token"]
        .as_str()
        .expect("rt")
        .to_owned();
    let after = refresh(&app, &refresh_token).await;
    assert_eq!(after.json()["error"], "invalid_grant");
}

#[tokio::test]
async fn a_code_expires_after_60_seconds() {
    let t = open_default();
    let app = t.identity();
    let late = code(&app, &authorize_uri(&[])).await;
    let in_time = code(&app, &authorize_uri(&[])).await;
    t.sandbox.clock().advance(Duration::from_secs(59));
    assert_eq!(
        exchange(&app, &in_time, Some(VERIFIER)).await.status,
        StatusCode::OK
    );
    t.sandbox.clock().advance(Duration::from_secs(2));
    let reply = exchange(&app, &late, Some(VERIFIER)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json()["error"], "invalid_grant");
}

#[tokio::test]
async fn a_code_is_bound_to_client_redirect_uri_and_verifier() {
    let t = open(two_app_config());
    let app = t.identity();
    let code1 = code(&app, &authorize_uri(&[])).await;
    // Another client, authenticated correctly, cannot redeem demo-app's code.
    let other = call(
        &app,
        token_request(
            Some(&basic("other-app", "other-secret")),
            &[
                ("grant_type", "authorization_code"),
                ("code", &code1),
                ("redirect_uri", "http://127.0.0.1:9999/callback"),
                ("code_verifier", VERIFIER),
            ],
        ),
    )
    .await;
    assert_eq!(other.json()["error"], "invalid_grant");
    // Another redirect_uri.
    let wrong_uri = call(
        &app,
        token_request(
            Some(&basic("demo-app", "demo-secret")),
            &[
                ("grant_type", "authorization_code"),
                ("code", &code1),
                ("redirect_uri", "http://127.0.0.1:8080/other"),
                ("code_verifier", VERIFIER),
            ],
        ),
    )
    .await;
    assert_eq!(wrong_uri.json()["error"], "invalid_grant");
    // Wrong and missing verifier.
    let wrong = exchange(
        &app,
        &code1,
        Some("another-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"),
    )
    .await;
    assert_eq!(wrong.json()["error"], "invalid_grant");
    let missing = exchange(&app, &code1, None).await;
    assert_eq!(missing.json()["error"], "invalid_grant");
    // The right combination still works.
    assert_eq!(
        exchange(&app, &code1, Some(VERIFIER)).await.status,
        StatusCode::OK
    );
    // Without PKCE in the request, no verifier is needed, and one sent is refused.
    let plain = authorize_uri(&[("code_challenge", None), ("code_challenge_method", None)]);
    let code2 = code(&app, &plain).await;
    assert_eq!(
        exchange(&app, &code2, Some(VERIFIER)).await.json()["error"],
        "invalid_grant"
    );
    let code3 = code(&app, &plain).await;
    assert_eq!(exchange(&app, &code3, None).await.status, StatusCode::OK);
}

#[tokio::test]
async fn client_authentication_is_basic_only() {
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let pairs = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", HOME),
        ("code_verifier", VERIFIER),
    ];
    let mut with_secret_in_body = pairs.to_vec();
    with_secret_in_body.extend([("client_id", "demo-app"), ("client_secret", "demo-secret")]);
    for (auth, body) in [
        (None, pairs.to_vec()),
        (None, with_secret_in_body),
        (Some(basic("demo-app", "wrong")), pairs.to_vec()),
        (Some(basic("nobody", "demo-secret")), pairs.to_vec()),
        (Some("Basic !!!not-base64".to_owned()), pairs.to_vec()),
        (Some("Bearer demo-secret".to_owned()), pairs.to_vec()),
    ] {
        let reply = call(&app, token_request(auth.as_deref(), &body)).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(reply.json()["error"], "invalid_client");
        assert!(reply
            .header("www-authenticate")
            .is_some_and(|h| h.starts_with("Basic")));
        assert!(reply.json()["error_description"].is_string());
    }
    // The failures did not consume the code.
    assert_eq!(
        exchange(&app, &code, Some(VERIFIER)).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn malformed_token_requests_get_rfc6749_errors() {
    let t = open_default();
    let app = t.identity();
    let auth = basic("demo-app", "demo-secret");
    for (pairs, error) in [
        (vec![("code", "x")], "invalid_request"),
        (
            vec![("grant_type", "password"), ("username", "u")],
            "unsupported_grant_type",
        ),
        (
            vec![("grant_type", "authorization_code"), ("redirect_uri", HOME)],
            "invalid_request",
        ),
        (
            vec![("grant_type", "authorization_code"), ("code", "x")],
            "invalid_request",
        ),
        (
            vec![
                ("grant_type", "authorization_code"),
                ("code", "made-up"),
                ("redirect_uri", HOME),
            ],
            "invalid_grant",
        ),
        (
            vec![("grant_type", "refresh_token"), ("redirect_uri", HOME)],
            "invalid_request",
        ),
        (
            vec![
                ("grant_type", "refresh_token"),
                ("refresh_token", "made-up"),
                ("redirect_uri", HOME),
            ],
            "invalid_grant",
        ),
        (
            vec![
                ("grant_type", "refresh_token"),
                ("grant_type", "refresh_token"),
            ],
            "invalid_request",
        ),
        (
            vec![
                ("grant_type", "authorization_code"),
                ("client_id", "other"),
                ("code", "x"),
                ("redirect_uri", HOME),
            ],
            "invalid_request",
        ),
    ] {
        let reply = call(&app, token_request(Some(&auth), &pairs)).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{pairs:?}");
        assert_eq!(reply.json()["error"], error, "{pairs:?}");
        assert!(reply.json()["error_description"]
            .as_str()
            .is_some_and(|d| !d.is_empty()));
    }
    let json_body = axum::http::Request::post("/connect/token")
        .header("authorization", &auth)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(
            r#"{"grant_type":"authorization_code"}"#,
        ))
        .expect("request");
    let reply = call(&app, json_body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json()["error"], "invalid_request");
}

#[tokio::test]
async fn refresh_rotates_and_a_reused_token_revokes_the_chain() {
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let first = exchange(&app, &code, Some(VERIFIER)).await.json();
    let rt1 = first["refresh_token"].as_str().expect("rt1").to_owned();
    let second = refresh(&app, &rt1).await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    let second = second.json();
    let rt2 = second["refresh_token"].as_str().expect("rt2").to_owned();
    assert_ne!(rt1, rt2);
    assert_ne!(first["access_token"], second["access_token"]);
    assert_eq!(second["token_type"], "Bearer");
    assert_eq!(second["expires_in"], 3600);
    let jwks = call(&app, get("/.well-known/jwks.json")).await.json();
    let claims = verify_jwt(&jwks, second["id_token"].as_str().expect("id_token"));
    assert_eq!(claims["aud"], "demo-app");
    assert_eq!(claims["nonce"], "nonce-456");
    let access2 = second["access_token"].as_str().expect("at2").to_owned();
    assert!(t
        .sandbox
        .grants()
        .access(&access2, t.sandbox.clock().now_millis())
        .is_some());
    // The old refresh token is refused, and presenting it revokes the whole chain.
    let reused = refresh(&app, &rt1).await;
    assert_eq!(reused.status, StatusCode::BAD_REQUEST);
    assert_eq!(reused.json()["error"], "invalid_grant");
    assert_eq!(refresh(&app, &rt2).await.json()["error"], "invalid_grant");
    assert!(t
        .sandbox
        .grants()
        .access(&access2, t.sandbox.clock().now_millis())
        .is_none());
}

#[tokio::test]
async fn refresh_needs_the_registered_redirect_uri_and_the_same_client() {
    let t = open(two_app_config());
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let rt = exchange(&app, &code, Some(VERIFIER)).await.json()["refresh_token"]
        .as_str()
        .expect("rt")
        .to_owned();
    let wrong_uri = call(
        &app,
        token_request(
            Some(&basic("demo-app", "demo-secret")),
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &rt),
                ("redirect_uri", "http://x/"),
            ],
        ),
    )
    .await;
    assert_eq!(wrong_uri.json()["error"], "invalid_grant");
    let other_client = call(
        &app,
        token_request(
            Some(&basic("other-app", "other-secret")),
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &rt),
                ("redirect_uri", "http://127.0.0.1:9999/callback"),
            ],
        ),
    )
    .await;
    assert_eq!(other_client.json()["error"], "invalid_grant");
    assert_eq!(refresh(&app, &rt).await.status, StatusCode::OK);
}

#[tokio::test]
async fn token_delay_slows_every_token_answer() {
    let t = open_default();
    let app = fundraising_sandbox::identity_app(
        t.sandbox
            .clone()
            .with_token_delay(Duration::from_millis(300)),
    );
    let started = std::time::Instant::now();
    let reply = call(&app, token_request(None, &[("grant_type", "x")])).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert!(started.elapsed() >= Duration::from_millis(300));
    let started = std::time::Instant::now();
    call(&t.identity(), token_request(None, &[("grant_type", "x")])).await;
    assert!(started.elapsed() < Duration::from_millis(300));
}

#[tokio::test]
async fn unknown_paths_are_404() {
    let t = open_default();
    let reply = call(&t.identity(), get("/nothing-here")).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
}
