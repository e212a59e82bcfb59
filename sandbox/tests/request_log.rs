//! The request log of the test routes: what it records of each request on both listeners,
//! that it never holds a secret, its bound, its filters, and that it is kept with test routes
//! only.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use common::*;
use fundraising_sandbox::MAX_LOGGED_REQUESTS;
use serde_json::{json, Value};

async fn log(app: &axum::Router, query: &str) -> Vec<Value> {
    let reply = call(app, get(&format!("/_sandbox/requests{query}"))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    reply.json()["requests"]
        .as_array()
        .expect("requests")
        .clone()
}

/// A whole sign-in, a refresh, a revocation and a resource call with the token: each request
/// is logged with its endpoint, application, grant type and status, and nothing secret
/// (secret, password, code, tokens, cookie, verifier, nor any query value) is in the log.
#[tokio::test]
async fn the_log_tells_what_happened_and_holds_no_secret() {
    let t = open(with_test_routes());
    let (identity, api) = (t.identity(), t.api());
    let authorize = authorize_uri(&[]);
    let (cookie, consent) = login(&identity, &authorize).await;
    let request_id = query_of(&consent)["request"].clone();
    let location = {
        let reply = call(
            &identity,
            post_form(
                "/connect/consent",
                &[("request", &request_id), ("allow", "1")],
                Some(&cookie),
            ),
        )
        .await;
        reply.location()
    };
    let code = query_of(&location)["code"].clone();
    let tokens = exchange(&identity, &code, Some(VERIFIER)).await.json();
    let rt = tokens["refresh_token"].as_str().expect("rt").to_owned();
    let refreshed = refresh(&identity, &rt).await.json();
    let access = refreshed["access_token"].as_str().expect("at").to_owned();
    let owned = Request::get("/demo-app/v1/donation/ref/demo-ref-1?x=secret-value")
        .header(header::AUTHORIZATION, format!("Bearer {access}"))
        .body(Body::empty())
        .expect("request");
    assert_eq!(call(&api, owned).await.status, StatusCode::OK);
    // A token request without a grant type: refused, still logged.
    call(
        &identity,
        token_request(
            Some(&basic("demo-app", "demo-secret")),
            &[("token", &access)],
        ),
    )
    .await;
    let revocation = Request::post("/connect/revocation")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::AUTHORIZATION, basic("demo-app", "demo-secret"))
        .body(Body::from(format!("token={rt}")))
        .expect("request");
    call(&identity, revocation).await;

    let entries = log(&api, "").await;
    let seen: Vec<(String, String, Value, Value, Value)> = entries
        .iter()
        .map(|e| {
            (
                e["method"].as_str().expect("method").to_owned(),
                e["endpoint"].as_str().unwrap_or("-").to_owned(),
                e["app_id"].clone(),
                e["grant_type"].clone(),
                e["status"].clone(),
            )
        })
        .collect();
    let app = json!("demo-app");
    assert_eq!(
        seen,
        [
            (
                "GET".into(),
                "authorize".into(),
                app.clone(),
                Value::Null,
                json!(303)
            ),
            (
                "POST".into(),
                "login".into(),
                app.clone(),
                Value::Null,
                json!(303)
            ),
            (
                "POST".into(),
                "consent".into(),
                app.clone(),
                Value::Null,
                json!(303)
            ),
            (
                "POST".into(),
                "token".into(),
                app.clone(),
                json!("authorization_code"),
                json!(200)
            ),
            (
                "POST".into(),
                "token".into(),
                app.clone(),
                json!("refresh_token"),
                json!(200)
            ),
            (
                "GET".into(),
                "donation".into(),
                app.clone(),
                Value::Null,
                json!(200)
            ),
            (
                "POST".into(),
                "token".into(),
                app.clone(),
                Value::Null,
                json!(400)
            ),
            (
                "POST".into(),
                "revocation".into(),
                app.clone(),
                Value::Null,
                json!(200)
            ),
        ],
        "{entries:#?}"
    );
    assert_eq!(
        entries[0]["query"],
        json!([
            "client_id",
            "response_type",
            "scope",
            "redirect_uri",
            "state",
            "nonce",
            "code_challenge",
            "code_challenge_method"
        ])
    );
    assert_eq!(entries[5]["query"], json!(["x"]));
    assert_eq!(entries[5]["listener"], "api");
    assert_eq!(entries[0]["listener"], "identity");
    let text = serde_json::to_string(&entries).expect("JSON");
    let session = cookie.split_once('=').expect("cookie").1;
    for secret in [
        "demo-secret",
        "demo-password",
        &code,
        &rt,
        &access,
        tokens["access_token"].as_str().expect("at"),
        session,
        VERIFIER,
        "state-123",
        "nonce-456",
        "secret-value",
        &request_id,
        &basic("demo-app", "demo-secret")["Basic ".len()..],
    ] {
        assert!(!text.contains(secret), "the log holds {secret:?}: {text}");
    }
}

#[tokio::test]
async fn the_log_is_bounded_filtered_and_cleared() {
    let t = open(with_test_routes());
    let api = t.api();
    for i in 0..MAX_LOGGED_REQUESTS + 20 {
        call(
            &api,
            get(&format!("/demo-app/v1/campaign/byshortname/c{i}")),
        )
        .await;
    }
    let all = call(&api, get("/_sandbox/requests")).await.json();
    let entries = all["requests"].as_array().expect("requests");
    assert_eq!(entries.len(), MAX_LOGGED_REQUESTS);
    assert_eq!(entries[0]["id"], 21);
    assert_eq!(all["last_id"], MAX_LOGGED_REQUESTS + 20);
    assert_eq!(entries[0]["status"], 404);

    let last = all["last_id"].as_u64().expect("last");
    call(&api, get("/demo-app/v1/campaign/byshortname/demo-campaign")).await;
    call(&api, get("/other-app/v1/event/1001/pages")).await;
    let since = log(&api, &format!("?since={last}")).await;
    assert_eq!(since.len(), 2);
    let pages = log(
        &api,
        &format!("?since={last}&endpoint=pages&app_id=other-app"),
    )
    .await;
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0]["path"], "/other-app/v1/event/1001/pages");
    assert_eq!(
        call(&api, get("/_sandbox/requests?colour=red"))
            .await
            .status,
        StatusCode::BAD_REQUEST
    );

    let cleared = call(
        &t.identity(),
        Request::delete("/_sandbox/requests")
            .body(Body::empty())
            .expect("request"),
    )
    .await;
    assert_eq!(cleared.json()["removed"], MAX_LOGGED_REQUESTS);
    assert!(log(&api, "").await.is_empty());
    // The test routes themselves are not logged.
    assert!(log(&api, "").await.is_empty());
}

#[tokio::test]
async fn without_test_routes_nothing_is_logged() {
    let t = open(two_app_config());
    call(
        &t.api(),
        get("/demo-app/v1/campaign/byshortname/demo-campaign"),
    )
    .await;
    let (entries, last) = t.sandbox.requests().read(&Default::default());
    assert!(entries.is_empty());
    assert_eq!(last, 0);
}
