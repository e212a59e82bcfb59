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

/// The key file is written without ever being readable by others and without following a link
/// placed at its name or beside it: the victim of a link stays untouched, the key is a regular
/// file of mode 0600.
#[cfg(unix)]
#[test]
fn the_key_file_is_private_and_follows_no_link() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("dir");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "").unwrap();
    let path = dir.path().join("signing-key.pem");
    // Where a writer that names its temporary file after the key would write.
    std::os::unix::fs::symlink(&victim, dir.path().join("signing-key.pem.tmp")).unwrap();
    std::os::unix::fs::symlink(&victim, &path).unwrap();
    test_key().save(&path).expect("save");
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "",
        "wrote through a link"
    );
    let meta = std::fs::symlink_metadata(&path).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        test_key().to_pem().unwrap()
    );
    // Nothing else is left beside it but the links the test made.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
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
        .tokens()
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
        .tokens()
        .access(&access2, t.sandbox.clock().now_millis())
        .is_none());
}

/// A refresh request as RFC 6749 §6 has it (no `redirect_uri`), or with one as the spec's
/// example sends it: then it must be the registered home page.
#[tokio::test]
async fn refresh_follows_rfc6749_section_6_and_a_redirect_uri_must_be_the_registered_one() {
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let rt = exchange(&app, &code, Some(VERIFIER)).await.json()["refresh_token"]
        .as_str()
        .expect("rt")
        .to_owned();
    let refresh_with = |token: String, redirect_uri: Option<&'static str>| {
        let mut pairs = vec![("grant_type", "refresh_token"), ("refresh_token", &*token)];
        if let Some(uri) = redirect_uri {
            pairs.push(("redirect_uri", uri));
        }
        token_request(Some(&basic("demo-app", "demo-secret")), &pairs)
    };
    // Without redirect_uri: the new pair, an id_token for the same user.
    let plain = call(&app, refresh_with(rt.clone(), None)).await;
    assert_eq!(plain.status, StatusCode::OK, "{}", plain.body);
    let rt2 = plain.json()["refresh_token"]
        .as_str()
        .expect("rotated")
        .to_owned();
    assert_ne!(rt2, rt);
    assert!(plain.json()["id_token"].is_string());
    // Another redirect_uri is refused and changes nothing: the token still works after.
    let wrong = call(
        &app,
        refresh_with(rt2.clone(), Some("http://127.0.0.1:8080/other")),
    )
    .await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert_eq!(wrong.json()["error"], "invalid_grant");
    assert!(
        wrong.json()["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("redirect_uri")),
        "{}",
        wrong.body
    );
    // The registered one, as the spec's example and our clients send it.
    let spec = call(&app, refresh_with(rt2, Some(HOME))).await;
    assert_eq!(spec.status, StatusCode::OK, "{}", spec.body);
}

/// Another client's refresh token or code gets exactly the answer an unknown one gets: the
/// token endpoint does not tell a client that a token it does not own exists.
#[tokio::test]
async fn a_foreign_refresh_token_or_code_is_answered_as_an_unknown_one() {
    let t = open(two_app_config());
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let rt = exchange(&app, &code, Some(VERIFIER)).await.json()["refresh_token"]
        .as_str()
        .expect("rt")
        .to_owned();
    let as_other =
        |pairs: &[(&str, &str)]| token_request(Some(&basic("other-app", "other-secret")), pairs);
    let other_home = "http://127.0.0.1:9999/callback";
    let foreign = call(
        &app,
        as_other(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", &rt),
            ("redirect_uri", other_home),
        ]),
    )
    .await;
    let unknown = call(
        &app,
        as_other(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", "no-such-refresh-token"),
            ("redirect_uri", other_home),
        ]),
    )
    .await;
    assert_eq!(foreign.status, StatusCode::BAD_REQUEST);
    assert_eq!(foreign.json()["error"], "invalid_grant");
    assert_eq!(
        (foreign.status, &foreign.body),
        (unknown.status, &unknown.body)
    );
    assert!(!foreign.body.contains("another client"), "{}", foreign.body);
    // The owner's token still works.
    assert_eq!(refresh(&app, &rt).await.status, StatusCode::OK);

    let code = code_for_fresh_request(&app).await;
    let exchange_as_other = |code: String| {
        let pairs = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", other_home),
            ("code_verifier", VERIFIER),
        ];
        as_other(&pairs)
    };
    let foreign = call(&app, exchange_as_other(code.clone())).await;
    let unknown = call(&app, exchange_as_other("no-such-code".into())).await;
    assert_eq!(foreign.json()["error"], "invalid_grant");
    assert_eq!(
        (foreign.status, &foreign.body),
        (unknown.status, &unknown.body)
    );
    // The owner's code still works.
    assert_eq!(
        exchange(&app, &code, Some(VERIFIER)).await.status,
        StatusCode::OK
    );
}

/// A code of demo-app from a new authorize request (logging in again).
async fn code_for_fresh_request(app: &axum::Router) -> String {
    code(app, &authorize_uri(&[])).await
}

/// `with_token_delay` (`--token-delay-ms`) is a shorthand for a fault on the token endpoint
/// until removed: every answer is slow, the fault is listed, and removing it heals.
#[tokio::test]
async fn token_delay_slows_every_token_answer_until_removed() {
    let t = open_default();
    let app = fundraising_sandbox::identity_app(
        t.sandbox
            .clone()
            .with_token_delay(Duration::from_millis(300)),
    );
    for _ in 0..2 {
        let started = std::time::Instant::now();
        let reply = call(&app, token_request(None, &[("grant_type", "x")])).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
        assert!(started.elapsed() >= Duration::from_millis(300));
    }
    let faults = t.sandbox.faults().list();
    assert_eq!(faults.len(), 1);
    assert_eq!(faults[0].spec.endpoint, "token");
    assert_eq!(faults[0].spec.delay_ms, Some(300));
    assert_eq!(faults[0].remaining, None);
    t.sandbox.faults().clear();
    let started = std::time::Instant::now();
    call(&app, token_request(None, &[("grant_type", "x")])).await;
    assert!(started.elapsed() < Duration::from_millis(300));
}

#[tokio::test]
async fn unknown_paths_are_404() {
    let t = open_default();
    let reply = call(&t.identity(), get("/nothing-here")).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
}

// ---------------------------------------------------------------- id_tokens as standard JWT libraries read them

#[tokio::test]
async fn id_tokens_validate_with_jsonwebtoken_by_kid() {
    use jsonwebtoken::{decode, decode_header, jwk::JwkSet, Algorithm, DecodingKey, Validation};
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let answer = exchange(&app, &code, Some(VERIFIER)).await.json();
    let id_token = answer["id_token"].as_str().expect("id_token");
    let header = decode_header(id_token).expect("header");
    assert_eq!(header.alg, Algorithm::RS256);
    let kid = header.kid.expect("kid in the header");
    assert_eq!(kid, test_key().kid());
    let jwks: JwkSet =
        serde_json::from_str(&call(&app, get("/.well-known/jwks.json")).await.body).expect("JWKS");
    let jwk = jwks.find(&kid).expect("the token's key in the JWKS");
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_audience(&["demo-app"]);
    validation.set_issuer(&[t.sandbox.issuer()]);
    let claims = decode::<serde_json::Value>(
        id_token,
        &DecodingKey::from_jwk(jwk).expect("key"),
        &validation,
    )
    .expect("a valid RS256 id_token")
    .claims;
    assert_eq!(claims["nonce"], "nonce-456");
}

/// RFC 6749 appendix B: `application/x-www-form-urlencoded` of one value.
fn form_encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

fn odd_credentials_config() -> Config {
    Config::from_toml(
        r#"
[[applications]]
app_id = "ünï:app%+1"
secret = "s:3 c%+rét"
home_page = "http://127.0.0.1:7001/cb"

[[applications]]
app_id = "raw%+app-é"
secret = "p:a ss%2B+wörd"
home_page = "http://127.0.0.1:7002/cb"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"
"#,
    )
    .expect("config")
}

/// 400 `invalid_grant` (the client was authenticated) or 401 `invalid_client`.
async fn authenticated(app: &axum::Router, auth: &str) -> bool {
    let reply = call(
        app,
        token_request(
            Some(auth),
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", "not-a-token"),
                ("redirect_uri", "http://127.0.0.1:7002/cb"),
            ],
        ),
    )
    .await;
    match reply.json()["error"].as_str() {
        Some("invalid_grant") => true,
        Some("invalid_client") => {
            assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
            false
        }
        other => panic!("unexpected {other:?}: {}", reply.body),
    }
}

#[tokio::test]
async fn basic_credentials_are_form_urlencoded_as_rfc6749_says_and_raw_still_works() {
    let t = open(odd_credentials_config());
    let app = t.identity();
    // A whole code flow for an id holding ':', '%', '+' and non-ASCII and a secret holding
    // ':', ' ', '%', '+' and non-ASCII, encoded as a certified RP library does.
    let (id, secret, home) = ("ünï:app%+1", "s:3 c%+rét", "http://127.0.0.1:7001/cb");
    let code = code(
        &app,
        &authorize_uri(&[("client_id", Some(id)), ("redirect_uri", Some(home))]),
    )
    .await;
    let encoded = basic(&form_encode(id), &form_encode(secret));
    assert!(encoded.len() > 6);
    let reply = call(
        &app,
        token_request(
            Some(&encoded),
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", home),
                ("code_verifier", VERIFIER),
            ],
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.json()["token_type"], "Bearer");

    // The second application, encoded and raw (its id has no ':', so the raw form can carry it).
    let (id, secret) = ("raw%+app-é", "p:a ss%2B+wörd");
    assert!(authenticated(&app, &basic(&form_encode(id), &form_encode(secret))).await);
    assert!(authenticated(&app, &basic(id, secret)).await);
    // A wrong secret stays invalid_client in both forms.
    for wrong in ["p:a ss%2B+wörd!", "p:a ss+ wörd", "p:a ss%2B%2Bwörd"] {
        assert!(!authenticated(&app, &basic(&form_encode(id), &form_encode(wrong))).await);
        assert!(!authenticated(&app, &basic(id, wrong)).await, "{wrong}");
    }
    assert!(!authenticated(&app, &basic(&form_encode("ünï:app%+1"), secret)).await);
}

// ---------------------------------------------------------------- token revocation (RFC 7009)

async fn revoke(app: &axum::Router, auth: Option<&str>, pairs: &[(&str, &str)]) -> Reply {
    let mut request = token_request(auth, pairs);
    *request.uri_mut() = "/connect/revocation".parse().expect("uri");
    call(app, request).await
}

fn live(t: &TestSandbox, access_token: &str) -> bool {
    t.sandbox
        .grants()
        .tokens()
        .access(access_token, t.sandbox.clock().now_millis())
        .is_some()
}

async fn tokens(app: &axum::Router) -> (String, String) {
    let code = code(app, &authorize_uri(&[])).await;
    let answer = exchange(app, &code, Some(VERIFIER)).await.json();
    (
        answer["access_token"].as_str().expect("at").to_owned(),
        answer["refresh_token"].as_str().expect("rt").to_owned(),
    )
}

#[tokio::test]
async fn revocation_is_listed_and_ends_a_refresh_chain_or_one_access_token() {
    let t = open(two_app_config());
    let app = t.identity();
    let doc = call(&app, get("/.well-known/openid-configuration"))
        .await
        .json();
    assert_eq!(
        doc["revocation_endpoint"],
        format!("{}/connect/revocation", t.sandbox.issuer())
    );
    let demo = basic("demo-app", "demo-secret");

    // A refresh token: its whole chain ends (the rotated tokens too).
    let (at1, rt1) = tokens(&app).await;
    let second = refresh(&app, &rt1).await.json();
    let at2 = second["access_token"].as_str().expect("at2").to_owned();
    let rt2 = second["refresh_token"].as_str().expect("rt2").to_owned();
    let reply = revoke(
        &app,
        Some(&demo),
        &[("token", &rt2), ("token_type_hint", "refresh_token")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    assert!(!live(&t, &at1) && !live(&t, &at2));
    assert_eq!(refresh(&app, &rt2).await.json()["error"], "invalid_grant");

    // An access token (with no hint): that token ends, the chain's refresh token still works.
    let (at, rt) = tokens(&app).await;
    let reply = revoke(&app, Some(&demo), &[("token", &at)]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(!live(&t, &at));
    assert_eq!(refresh(&app, &rt).await.status, StatusCode::OK);

    // A wrong hint does not stop the search.
    let (at, rt) = tokens(&app).await;
    let reply = revoke(
        &app,
        Some(&demo),
        &[("token", &rt), ("token_type_hint", "access_token")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(!live(&t, &at));
}

#[tokio::test]
async fn revoking_an_unknown_or_foreign_token_answers_200_and_changes_nothing() {
    let t = open(two_app_config());
    let app = t.identity();
    let (at, rt) = tokens(&app).await;
    let other = basic("other-app", "other-secret");
    for token in [at.as_str(), rt.as_str(), "never-issued"] {
        let reply = revoke(&app, Some(&other), &[("token", token)]).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    }
    assert!(live(&t, &at));
    assert_eq!(refresh(&app, &rt).await.status, StatusCode::OK);

    // The token endpoint's client authentication and RFC 6749 errors.
    let no_client = revoke(&app, None, &[("token", &at)]).await;
    assert_eq!(no_client.status, StatusCode::UNAUTHORIZED);
    assert_eq!(no_client.json()["error"], "invalid_client");
    let wrong = revoke(&app, Some(&basic("demo-app", "nope")), &[("token", &at)]).await;
    assert_eq!(wrong.json()["error"], "invalid_client");
    let missing = revoke(&app, Some(&basic("demo-app", "demo-secret")), &[]).await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST);
    assert_eq!(missing.json()["error"], "invalid_request");
    assert!(live(&t, &at));
    let get_it = call(&app, get("/connect/revocation")).await;
    assert_eq!(get_it.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(get_it.json()["error"], "invalid_request");
}

// ---------------------------------------------------------------- bounded growth: parameter caps, pending authorizations

#[tokio::test]
async fn authorize_parameters_are_capped() {
    let t = open_default();
    let app = t.identity();
    let cap = fundraising_sandbox::MAX_AUTHORIZE_PARAM_LEN;
    let long = "x".repeat(cap + 1);
    let at_cap = "y".repeat(cap);
    // A long state: invalid_request, and the state is not echoed.
    let reply = call(&app, get(&authorize_uri(&[("state", Some(&long))]))).await;
    assert_eq!(reply.status, StatusCode::FOUND);
    let q = query_of(&reply.location());
    assert_eq!(q["error"], "invalid_request");
    assert!(q["error_description"].contains("state"), "{q:?}");
    assert!(!q.contains_key("state"));
    // Any other long parameter, known or not: invalid_request with the state.
    for name in ["nonce", "scope", "code_challenge", "prompt", "anything"] {
        let reply = call(&app, get(&authorize_uri(&[(name, Some(&long))]))).await;
        let q = query_of(&reply.location());
        assert_eq!(q["error"], "invalid_request", "{name}");
        assert!(q["error_description"].contains(name), "{q:?}");
        assert_eq!(q["state"], "state-123");
    }
    // An untrusted one is the error page.
    for name in ["client_id", "redirect_uri"] {
        let reply = call(&app, get(&authorize_uri(&[(name, Some(&long))]))).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{name}");
        assert!(reply.header("location").is_none());
        assert!(reply.body.contains("longer than"), "{}", reply.body);
    }
    // At the cap it is accepted.
    let reply = call(
        &app,
        get(&authorize_uri(&[
            ("state", Some(&at_cap)),
            ("nonce", Some(&at_cap)),
        ])),
    )
    .await;
    assert!(reply.location().starts_with("/connect/login?"));
}

#[tokio::test]
async fn a_flood_of_authorize_calls_keeps_pending_requests_bounded() {
    let t = open_default();
    let app = t.identity();
    let cap = fundraising_sandbox::MAX_AUTHORIZE_PARAM_LEN;
    let max = fundraising_sandbox::MAX_PENDING_REQUESTS;
    let now = || t.sandbox.clock().now_millis();
    // Oversized ones store nothing.
    let huge = "h".repeat(16 * 1024);
    for _ in 0..200 {
        let reply = call(
            &app,
            get(&authorize_uri(&[
                ("state", Some(&huge)),
                ("nonce", Some(&huge)),
            ])),
        )
        .await;
        assert_eq!(reply.status, StatusCode::FOUND);
    }
    assert_eq!(t.sandbox.grants().requests().pending(now()).0, 0);
    // The largest accepted ones: the count stops at the cap, the oldest is evicted.
    let state = "s".repeat(cap);
    let nonce = "n".repeat(cap);
    let mut first = None;
    let mut last = String::new();
    for _ in 0..max + 300 {
        let reply = call(
            &app,
            get(&authorize_uri(&[
                ("state", Some(&state)),
                ("nonce", Some(&nonce)),
            ])),
        )
        .await;
        last = reply.location();
        first.get_or_insert_with(|| last.clone());
    }
    let (count, bytes) = t.sandbox.grants().requests().pending(now());
    assert_eq!(count, max);
    assert!(bytes <= max * (2 * cap + 512), "{bytes} bytes");
    let oldest = call(&app, get(&first.expect("first"))).await;
    assert_eq!(oldest.status, StatusCode::BAD_REQUEST);
    // The newest one still completes.
    let request = query_of(&last)["request"].clone();
    let login = call(
        &app,
        post_form(
            "/connect/login",
            &[
                ("request", &request),
                ("username", "demo@example.org"),
                ("password", "demo-password"),
            ],
            None,
        ),
    )
    .await;
    assert_eq!(login.status, StatusCode::SEE_OTHER, "{}", login.body);
    let allow = call(
        &app,
        post_form(
            "/connect/consent",
            &[("request", &request), ("allow", "1")],
            Some(&cookie_of(&login)),
        ),
    )
    .await;
    let q = query_of(&allow.location());
    assert_eq!(q["state"], state);
    let reply = exchange(&app, &q["code"], Some(VERIFIER)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
}

// ---------------------------------------------------------------- codes bound to their client

#[tokio::test]
async fn another_clients_used_code_is_invalid_grant_and_revokes_nothing() {
    let t = open(two_app_config());
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let first = exchange(&app, &code, Some(VERIFIER)).await.json();
    let at = first["access_token"].as_str().expect("at").to_owned();
    let rt = first["refresh_token"].as_str().expect("rt").to_owned();
    let foreign = call(
        &app,
        token_request(
            Some(&basic("other-app", "other-secret")),
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", "http://127.0.0.1:9999/callback"),
                ("code_verifier", VERIFIER),
            ],
        ),
    )
    .await;
    assert_eq!(foreign.status, StatusCode::BAD_REQUEST);
    assert_eq!(foreign.json()["error"], "invalid_grant");
    assert!(live(&t, &at));
    assert_eq!(refresh(&app, &rt).await.status, StatusCode::OK);
}

// ---------------------------------------------------------------- login pages: cross-site posts, wrong passwords, headers

#[tokio::test]
async fn a_cross_site_login_or_consent_post_is_refused() {
    let t = open_default();
    let sandbox = t.sandbox.clone().with_issuer("http://id.example:9");
    let app = fundraising_sandbox::identity_app(sandbox);
    let request = new_request(&app).await;
    let with = |headers: &[(&str, &str)]| {
        let mut r = login_form(&request, "demo@example.org", "demo-password");
        for (n, v) in headers {
            r.headers_mut().insert(
                axum::http::HeaderName::from_bytes(n.as_bytes()).expect("name"),
                v.parse().expect("value"),
            );
        }
        r
    };
    for headers in [
        vec![("origin", "http://evil.example")],
        vec![("origin", "null")],
        vec![
            ("origin", "http://id.example:9"),
            ("sec-fetch-site", "cross-site"),
        ],
        vec![("sec-fetch-site", "same-site")],
        vec![("origin", "http://evil.example"), ("host", "id.example:9")],
    ] {
        let reply = call(&app, with(&headers)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{headers:?}");
        assert!(reply.header("set-cookie").is_none());
        assert!(reply.body.contains("another site"), "{}", reply.body);
    }
    // The identity server's own page: by Sec-Fetch-Site, by the issuer's origin, or by Host.
    for headers in [
        vec![("sec-fetch-site", "same-origin")],
        vec![("origin", "http://id.example:9")],
        vec![
            ("origin", "http://127.0.0.1:5555"),
            ("host", "127.0.0.1:5555"),
        ],
    ] {
        let request = new_request(&app).await;
        let mut r = login_form(&request, "demo@example.org", "demo-password");
        for (n, v) in &headers {
            r.headers_mut().insert(
                axum::http::HeaderName::from_bytes(n.as_bytes()).expect("name"),
                v.parse().expect("value"),
            );
        }
        let reply = call(&app, r).await;
        assert_eq!(reply.status, StatusCode::SEE_OTHER, "{headers:?}");
    }
    // Consent too.
    let (cookie, consent) = login(&app, &authorize_uri(&[])).await;
    let request = query_of(&consent)["request"].clone();
    let mut r = post_form(
        "/connect/consent",
        &[("request", &request), ("allow", "1")],
        Some(&cookie),
    );
    r.headers_mut()
        .insert("origin", "http://evil.example".parse().expect("value"));
    assert_eq!(call(&app, r).await.status, StatusCode::FORBIDDEN);
}

/// Wrong passwords end the sign-in request they are sent on, and nothing more: the sandbox
/// locks no account, so a fresh request with the right password signs in at once, however
/// many wrong passwords came before (a throttled sign-in is a `login` fault).
#[tokio::test]
async fn wrong_passwords_end_the_request_and_never_lock_the_account() {
    let t = open_default();
    let app = t.identity();
    let per_request = fundraising_sandbox::MAX_LOGIN_FAILURES_PER_REQUEST;
    let request = new_request(&app).await;
    for _ in 1..per_request {
        let reply = call(&app, login_form(&request, "demo@example.org", "nope")).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert!(reply.body.contains("not correct"));
    }
    let last = call(&app, login_form(&request, "demo@example.org", "nope")).await;
    assert_eq!(last.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(
        last.body.contains("Too many wrong passwords"),
        "{}",
        last.body
    );
    // The request is over, even with the right password.
    let after = call(
        &app,
        login_form(&request, "demo@example.org", "demo-password"),
    )
    .await;
    assert_eq!(after.status, StatusCode::BAD_REQUEST);
    assert!(after.header("set-cookie").is_none());

    // Many more wrong passwords, over many requests: the account is not locked.
    for _ in 0..20 {
        let request = new_request(&app).await;
        for _ in 0..per_request {
            call(&app, login_form(&request, "demo@example.org", "nope")).await;
        }
    }
    let request = new_request(&app).await;
    let ok = call(
        &app,
        login_form(&request, "DEMO@example.org", "demo-password"),
    )
    .await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER, "{}", ok.body);
    assert!(ok.header("retry-after").is_none());
}

fn assert_page_headers(reply: &Reply) {
    let csp = reply.header("content-security-policy").expect("CSP");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(reply.header("x-frame-options").as_deref(), Some("DENY"));
    assert_eq!(
        reply.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );
    for inline in ["<script", "<style", " style=", "onclick", "javascript:"] {
        assert!(!reply.body.contains(inline), "{inline} in {}", reply.body);
    }
}

#[tokio::test]
async fn identity_pages_send_csp_frame_and_nosniff_headers_with_nothing_inline() {
    let t = open_default();
    let app = t.identity();
    let login_path = call(&app, get(&authorize_uri(&[]))).await.location();
    let login_page = call(&app, get(&login_path)).await;
    assert_page_headers(&login_page);
    let (cookie, consent) = login(&app, &authorize_uri(&[])).await;
    assert_page_headers(&call(&app, get_with_cookie(&consent, &cookie)).await);
    assert_page_headers(&call(&app, get("/connect/authorize?client_id=nobody")).await);
    assert_page_headers(&call(&app, get("/no/such/page")).await);
    let wrong = new_request(&app).await;
    assert_page_headers(&call(&app, login_form(&wrong, "demo@example.org", "x")).await);
    // The style sheet the pages link to is served.
    assert!(login_page
        .body
        .contains("<link rel=\"stylesheet\" href=\"/connect/sandbox.css\">"));
    let css = call(&app, get("/connect/sandbox.css")).await;
    assert_eq!(css.status, StatusCode::OK);
    assert!(css
        .header("content-type")
        .is_some_and(|c| c.starts_with("text/css")));
    assert_eq!(
        css.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );
    assert!(css.body.contains("font-family"));
    // So is the icon they name (and browsers ask for on their own): no 404 in a pop-up.
    assert!(login_page
        .body
        .contains("<link rel=\"icon\" href=\"/favicon.ico\" type=\"image/svg+xml\">"));
    let icon = call(&app, get("/favicon.ico")).await;
    assert_eq!(icon.status, StatusCode::OK);
    assert_eq!(
        icon.header("content-type").as_deref(),
        Some("image/svg+xml")
    );
    assert!(icon.body.starts_with("<svg"));
}

// ---------------------------------------------------------------- token endpoint errors in RFC 6749 form

#[tokio::test]
async fn every_token_endpoint_failure_is_rfc6749_json() {
    let t = open_default();
    let app = t.identity();
    let auth = basic("demo-app", "demo-secret");
    let check = |reply: &Reply, status: StatusCode| {
        assert_eq!(reply.status, status, "{}", reply.body);
        assert!(reply
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/json")));
        let body = reply.json();
        assert!(body["error"].is_string() && body["error_description"].is_string());
    };
    for path in ["/connect/token", "/connect/revocation"] {
        // Wrong content type.
        let request = axum::http::Request::post(path)
            .header("authorization", &auth)
            .header("content-type", "text/plain")
            .body(axum::body::Body::from("grant_type=refresh_token"))
            .expect("request");
        let reply = call(&app, request).await;
        check(&reply, StatusCode::BAD_REQUEST);
        assert_eq!(reply.json()["error"], "invalid_request");
        // An oversized body, declared or streamed without a length.
        let big = "a=".to_owned() + &"b".repeat(fundraising_sandbox::MAX_TOKEN_BODY_BYTES);
        let mut request = token_request(Some(&auth), &[("a", big.as_str())]);
        *request.uri_mut() = path.parse().expect("uri");
        let reply = call(&app, request).await;
        check(&reply, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(reply.json()["error"], "invalid_request");
        let chunks = futures_chunks(big.clone());
        let request = axum::http::Request::post(path)
            .header("authorization", &auth)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(chunks)
            .expect("request");
        check(&call(&app, request).await, StatusCode::PAYLOAD_TOO_LARGE);
        // Other methods.
        for method in ["GET", "PUT", "DELETE"] {
            let request = axum::http::Request::builder()
                .method(method)
                .uri(path)
                .body(axum::body::Body::empty())
                .expect("request");
            let reply = call(&app, request).await;
            check(&reply, StatusCode::METHOD_NOT_ALLOWED);
            assert_eq!(reply.header("allow").as_deref(), Some("POST"));
        }
    }
}

/// A body streamed in chunks, without `Content-Length`.
fn futures_chunks(text: String) -> axum::body::Body {
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = text
        .into_bytes()
        .chunks(1024)
        .map(|c| Ok(c.to_vec()))
        .collect();
    axum::body::Body::from_stream(futures_util::stream::iter(chunks))
}

/// A refresh with demo-app's credentials asking for `scope`.
async fn refresh_with_scope(app: &axum::Router, refresh_token: &str, scope: &str) -> Reply {
    call(
        app,
        token_request(
            Some(&basic("demo-app", "demo-secret")),
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token),
                ("scope", scope),
            ],
        ),
    )
    .await
}

/// RFC 6749 §6: a refresh may narrow the scope, never widen it. A scope the grant lacks (or
/// one the server does not know) is `invalid_scope` and the token stays usable; a narrower
/// scope gives an access token with those scopes only, while the new refresh token keeps the
/// whole grant.
#[tokio::test]
async fn refresh_refuses_a_wider_scope_and_honours_a_narrower_one() {
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let rt = exchange(&app, &code, Some(VERIFIER)).await.json()["refresh_token"]
        .as_str()
        .expect("rt")
        .to_owned();
    for wider in [
        "openid profile email offline_access fundraise",
        "openid profile made-up-scope",
    ] {
        let refused = refresh_with_scope(&app, &rt, wider).await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{wider}: {}",
            refused.body
        );
        assert_eq!(refused.json()["error"], "invalid_scope", "{}", refused.body);
    }
    // Refused without being used: the token still refreshes, narrowed now.
    let narrow = refresh_with_scope(&app, &rt, "openid profile").await;
    assert_eq!(narrow.status, StatusCode::OK, "{}", narrow.body);
    let narrow = narrow.json();
    assert_eq!(narrow["scope"], "openid profile");
    let now = t.sandbox.clock().now_millis();
    let access = narrow["access_token"].as_str().expect("access token");
    let info = t
        .sandbox
        .grants()
        .tokens()
        .access(access, now)
        .expect("live");
    assert_eq!(info.scopes, ["openid", "profile"]);
    let claims = verify_jwt(
        &call(&app, get("/.well-known/jwks.json")).await.json(),
        narrow["id_token"].as_str().expect("id_token"),
    );
    assert!(
        claims.get("email").is_none(),
        "email was not asked: {claims}"
    );
    // The rotated refresh token holds the whole grant: without scope, all of it again.
    let rt2 = narrow["refresh_token"].as_str().expect("rotated");
    let whole = refresh(&app, rt2).await;
    assert_eq!(whole.status, StatusCode::OK, "{}", whole.body);
    assert_eq!(whole.json()["scope"], "openid profile email offline_access");
}

/// One session refreshed thousands of times keeps the store bounded: each chain holds at most
/// a fixed number of access tokens and of used refresh tokens, and a used token it still
/// remembers is detected as reused (the chain is revoked).
#[tokio::test]
async fn a_session_refreshed_thousands_of_times_keeps_the_token_store_bounded() {
    use fundraising_sandbox::{MAX_ACCESS_TOKENS_PER_CHAIN, MAX_USED_REFRESH_TOKENS_PER_CHAIN};
    let t = open_default();
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    let mut rt = exchange(&app, &code, Some(VERIFIER)).await.json()["refresh_token"]
        .as_str()
        .expect("rt")
        .to_owned();
    let mut used = Vec::new();
    for _ in 0..2000 {
        let next = refresh(&app, &rt).await;
        assert_eq!(next.status, StatusCode::OK, "{}", next.body);
        used.push(std::mem::replace(
            &mut rt,
            next.json()["refresh_token"]
                .as_str()
                .expect("rt")
                .to_owned(),
        ));
    }
    let now = t.sandbox.clock().now_millis();
    let (refresh_tokens, access_tokens, _) = t.sandbox.grants().tokens().counts(now);
    assert!(
        refresh_tokens <= MAX_USED_REFRESH_TOKENS_PER_CHAIN + 1,
        "{refresh_tokens} refresh tokens kept for one session"
    );
    assert!(
        access_tokens <= MAX_ACCESS_TOKENS_PER_CHAIN,
        "{access_tokens} access tokens kept for one session"
    );
    // The last used token is remembered: presenting it revokes the chain.
    let reused = refresh(&app, used.last().expect("used")).await;
    assert_eq!(reused.json()["error"], "invalid_grant");
    assert!(
        reused.json()["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("already been used")),
        "{}",
        reused.body
    );
    assert_eq!(refresh(&app, &rt).await.json()["error"], "invalid_grant");
    assert_eq!(t.sandbox.grants().tokens().counts(now), (0, 0, 0));
}

/// `identity_opener_policy` makes every page of the identity server send that
/// `Cross-Origin-Opener-Policy` (as an identity provider may), to test a sign-in pop-up
/// severed from its opener; nothing else carries it, and without it no page does.
#[tokio::test]
async fn an_opener_policy_is_sent_on_the_identity_pages_when_asked() {
    let config = Config::from_toml(&format!(
        "identity_opener_policy = \"same-origin\"\n{}",
        fundraising_sandbox::DEFAULT_CONFIG_TOML
    ))
    .expect("config");
    let t = open(config);
    let app = t.identity();
    let login_path = call(&app, get(&authorize_uri(&[]))).await.location();
    let login_page = call(&app, get(&login_path)).await;
    assert_eq!(
        login_page.header("cross-origin-opener-policy").as_deref(),
        Some("same-origin")
    );
    let (cookie, consent) = login(&app, &authorize_uri(&[])).await;
    let consent_page = call(&app, get_with_cookie(&consent, &cookie)).await;
    assert_eq!(
        consent_page.header("cross-origin-opener-policy").as_deref(),
        Some("same-origin")
    );
    let discovery = call(&app, get("/.well-known/openid-configuration")).await;
    assert!(discovery.header("cross-origin-opener-policy").is_none());

    let plain = open_default();
    let app = plain.identity();
    let login_path = call(&app, get(&authorize_uri(&[]))).await.location();
    assert!(call(&app, get(&login_path))
        .await
        .header("cross-origin-opener-policy")
        .is_none());
    assert!(Config::from_toml("identity_opener_policy = \"sometimes\"").is_err());
}
