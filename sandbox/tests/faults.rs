//! Faults on demand, through the routers: what each fault meets and does, how it heals, what
//! bad input gets (400, nothing changed), the faults of the configuration and of
//! `--token-delay-ms`, and the test routes, which answer only with `enable_test_routes`.

mod common;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use common::*;
use fundraising_sandbox::{Config, TEST_ROUTES};
use serde_json::{json, Value};

fn delete(uri: &str) -> Request<Body> {
    Request::delete(uri).body(Body::empty()).expect("request")
}

/// Adds a fault (on `app`, either listener); panics unless it is taken.
async fn fault(app: &Router, spec: Value) -> Value {
    let reply = call(app, post_json("/_sandbox/faults", &spec)).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{spec}: {}", reply.body);
    reply.json()
}

async fn faults_in_force(app: &Router) -> Vec<Value> {
    call(app, get("/_sandbox/faults")).await.json()["faults"]
        .as_array()
        .expect("faults")
        .clone()
}

const CAMPAIGN: &str = "/demo-app/v1/campaign/byshortname/demo-campaign";

#[tokio::test]
async fn a_status_fault_answers_in_the_services_error_shape_then_heals() {
    let t = open(with_test_routes());
    let api = t.api();
    let added = fault(
        &t.identity(), // either listener takes it
        json!({"endpoint": "pages", "status": 503, "retry_after": 2, "times": 2}),
    )
    .await;
    assert_eq!(added["remaining"], 2);
    let pages = "/demo-app/v1/event/1001/pages?pagesize=5";
    for left in [1, 0] {
        let reply = call(&api, get(pages)).await;
        assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(reply.header("retry-after").as_deref(), Some("2"));
        assert!(reply
            .header("content-type")
            .expect("type")
            .starts_with("application/json"));
        assert!(reply.json()["errorMessage"]
            .as_str()
            .expect("message")
            .contains("Service Unavailable"));
        let listed = faults_in_force(&api).await;
        if left == 0 {
            assert!(listed.is_empty(), "{listed:?}");
        } else {
            assert_eq!(listed[0]["remaining"], left);
        }
    }
    assert_eq!(call(&api, get(pages)).await.status, StatusCode::OK);
    // Other endpoints never met it.
    assert_eq!(call(&api, get(CAMPAIGN)).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_fault_meets_only_its_application_and_path_and_lasts_until_removed() {
    let t = open(with_test_routes());
    let api = t.api();
    let other = "/other-app/v1/campaign/byshortname/demo-campaign";
    let added = fault(
        &api,
        json!({"endpoint": "campaign", "app_id": "other-app", "status": 500}),
    )
    .await;
    let by_path = fault(
        &api,
        json!({"endpoint": "donation", "path": "/demo-app/v1/donation/ref/demo-ref-2", "status": 502, "body": "html"}),
    )
    .await;
    for _ in 0..3 {
        assert_eq!(
            call(&api, get(other)).await.status,
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
    assert_eq!(call(&api, get(CAMPAIGN)).await.status, StatusCode::OK);
    let html = call(&api, get("/demo-app/v1/donation/ref/demo-ref-2")).await;
    assert_eq!(html.status, StatusCode::BAD_GATEWAY);
    assert!(html
        .header("content-type")
        .expect("type")
        .starts_with("text/html"));
    assert!(
        html.body.contains("<h1>502 Bad Gateway</h1>"),
        "{}",
        html.body
    );
    assert_eq!(
        call(&api, get("/demo-app/v1/donation/ref/demo-ref-1"))
            .await
            .status,
        StatusCode::OK
    );

    let id = added["id"].as_u64().expect("id");
    assert_eq!(
        call(&api, delete(&format!("/_sandbox/faults/{id}")))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(call(&api, get(other)).await.status, StatusCode::OK);
    assert_eq!(
        call(&api, delete(&format!("/_sandbox/faults/{id}")))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    let cleared = call(&t.identity(), delete("/_sandbox/faults")).await.json();
    assert_eq!(cleared["removed"], 1, "{by_path}");
    assert_eq!(
        call(&api, get("/demo-app/v1/donation/ref/demo-ref-2"))
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn event_creation_and_identity_endpoints_fault_in_their_own_shapes() {
    let t = open(with_test_routes());
    let (api, identity) = (t.api(), t.identity());
    fault(
        &api,
        json!({"endpoint": "create_event", "status": 429, "retry_after": 1, "times": 1}),
    )
    .await;
    let event = Request::post("/demo-app/v1/event/")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(r#"{"name":"Swim","eventType":"Swimming"}"#))
        .expect("request");
    let reply = call(&api, event).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(reply.header("retry-after").as_deref(), Some("1"));
    assert!(reply.json()["errorMessage"].is_string());

    fault(
        &identity,
        json!({"endpoint": "token", "grant_type": "refresh_token", "status": 503, "times": 1}),
    )
    .await;
    fault(
        &identity,
        json!({"endpoint": "authorize", "status": 500, "times": 1}),
    )
    .await;
    fault(
        &identity,
        json!({"endpoint": "jwks", "status": 502, "body": "empty", "times": 1}),
    )
    .await;
    let page = call(&identity, get(&authorize_uri(&[]))).await;
    assert_eq!(page.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(page.body.contains("<!doctype html>"), "{}", page.body);
    let jwks = call(&identity, get("/.well-known/jwks.json")).await;
    assert_eq!(
        (jwks.status, jwks.body.as_str()),
        (StatusCode::BAD_GATEWAY, "")
    );
    // The sign-in's code exchange is not a refresh: it passes; the refresh meets the fault.
    let code = code(&identity, &authorize_uri(&[])).await;
    let tokens = exchange(&identity, &code, Some(VERIFIER)).await;
    assert_eq!(tokens.status, StatusCode::OK, "{}", tokens.body);
    let rt = tokens.json()["refresh_token"]
        .as_str()
        .expect("rt")
        .to_owned();
    let refused = refresh(&identity, &rt).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.json()["error"], "temporarily_unavailable");
    // The token was not used: it refreshes once the fault is spent.
    assert_eq!(refresh(&identity, &rt).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_delay_fault_slows_the_endpoint_and_then_answers_it() {
    let t = open(with_test_routes());
    let api = t.api();
    fault(
        &api,
        json!({"endpoint": "campaign", "delay_ms": 300, "times": 1}),
    )
    .await;
    let started = std::time::Instant::now();
    assert_eq!(call(&api, get(CAMPAIGN)).await.status, StatusCode::OK);
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
    let started = std::time::Instant::now();
    call(&api, get(CAMPAIGN)).await;
    assert!(started.elapsed() < std::time::Duration::from_millis(300));
}

#[tokio::test]
async fn a_truncated_answer_is_the_endpoints_own_cut_in_half() {
    let t = open(with_test_routes());
    let api = t.api();
    let whole = call(&api, get(CAMPAIGN)).await.body;
    fault(
        &api,
        json!({"endpoint": "campaign", "body": "truncated", "times": 1}),
    )
    .await;
    let cut = call(&api, get(CAMPAIGN)).await;
    assert_eq!(cut.status, StatusCode::OK);
    assert_eq!(cut.body, whole[..whole.len() / 2]);
    assert!(serde_json::from_str::<Value>(&cut.body).is_err());
}

/// Bad input to the fault routes gets a 400 that says what is wrong, and changes nothing.
#[tokio::test]
async fn bad_faults_are_400_and_change_nothing() {
    let t = open(with_test_routes());
    let api = t.api();
    fault(&api, json!({"endpoint": "pages", "status": 503})).await;
    let before = faults_in_force(&api).await;
    for (spec, says) in [
        (
            json!({"endpoint": "nowhere", "status": 503}),
            "unknown endpoint",
        ),
        (
            json!({"endpoint": "pages", "status": 503, "times": -1}),
            "times",
        ),
        (
            json!({"endpoint": "pages", "status": 503, "times": 0}),
            "times must be 1 to 4294967295",
        ),
        (
            json!({"endpoint": "pages", "status": 503, "times": 4_294_967_296_i64}),
            "times must be 1 to 4294967295",
        ),
        (json!({"endpoint": "pages", "status": 302}), "status 302"),
        (
            json!({"endpoint": "pages", "status": 503, "colour": "red"}),
            "colour",
        ),
        (json!({"endpoint": "pages"}), "does nothing"),
        (
            json!({"endpoint": "pages", "retry_after": 3}),
            "retry_after",
        ),
        (
            json!({"endpoint": "pages", "drop": true, "status": 500}),
            "drop",
        ),
        (
            json!({"endpoint": "pages", "status": 500, "body": "truncated"}),
            "truncated",
        ),
        (
            json!({"endpoint": "pages", "body": "html"}),
            "needs a status",
        ),
        (
            json!({"endpoint": "pages", "status": 500, "body": "xml"}),
            "xml",
        ),
        (
            json!({"endpoint": "pages", "delay_ms": 10_000_000}),
            "delay_ms",
        ),
        (
            json!({"endpoint": "pages", "app_id": "nobody", "status": 500}),
            "nobody",
        ),
        (
            json!({"endpoint": "jwks", "app_id": "demo-app", "status": 500}),
            "names no application",
        ),
        (
            json!({"endpoint": "pages", "grant_type": "refresh_token", "status": 500}),
            "token endpoint",
        ),
        (
            json!({"endpoint": "token", "grant_type": "password", "status": 500}),
            "grant_type",
        ),
        (
            json!({"endpoint": "token", "id_token": "pretty"}),
            "unknown id_token fault",
        ),
        (
            json!({"endpoint": "token", "id_token": "wrong_aud", "status": 500}),
            "cannot be combined",
        ),
        (json!({"endpoint": "token", "expires_in": 0}), "expires_in"),
        (
            json!({"endpoint": "campaign", "expires_in": 5}),
            "token endpoint",
        ),
    ] {
        let reply = call(&api, post_json("/_sandbox/faults", &spec)).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{spec}: {}",
            reply.body
        );
        let message = reply.json()["errorMessage"]
            .as_str()
            .expect("message")
            .to_owned();
        assert!(message.contains(says), "{spec}: {message}");
    }
    let not_json = Request::post("/_sandbox/faults")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{not json"))
        .expect("request");
    assert_eq!(call(&api, not_json).await.status, StatusCode::BAD_REQUEST);
    let not_typed = Request::post("/_sandbox/faults")
        .body(Body::from(r#"{"endpoint":"pages","status":503}"#))
        .expect("request");
    assert_eq!(
        call(&api, not_typed).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(faults_in_force(&api).await, before);
    // Too many faults: the one beyond the cap is refused, the others stay.
    for _ in before.len()..fundraising_sandbox::MAX_FAULTS {
        fault(
            &api,
            json!({"endpoint": "pages", "status": 503, "app_id": "other-app"}),
        )
        .await;
    }
    let full = faults_in_force(&api).await;
    let reply = call(
        &api,
        post_json(
            "/_sandbox/faults",
            &json!({"endpoint": "pages", "status": 503}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.body);
    assert!(reply.body.contains("at most"), "{}", reply.body);
    assert_eq!(faults_in_force(&api).await, full);
}

#[test]
fn faults_in_the_configuration_are_in_force_from_the_start_and_checked() {
    let config = Config::from_toml(
        r#"[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "http://127.0.0.1:8080/"

[[faults]]
endpoint = "campaign"
status = 503
times = 1
"#,
    )
    .expect("config");
    let t = open(config);
    let list = t.sandbox.faults().list();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].spec.status, Some(503));
    for (bad, says) in [
        ("[[faults]]\nendpoint = \"campaign\"\n", "does nothing"),
        (
            "[[faults]]\nendpoint = \"campaign\"\nstatus = 503\nspeed = 1\n",
            "speed",
        ),
        (
            "[[faults]]\nendpoint = \"token\"\napp_id = \"ghost\"\nstatus = 503\n",
            "ghost",
        ),
    ] {
        let e = Config::from_toml(bad).expect_err(bad).to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

/// The configuration's faults work without test routes (they are declared on purpose); the
/// routes themselves, the request log among them, do not answer.
#[tokio::test]
async fn without_test_routes_no_test_route_answers_on_either_listener() {
    for enabled in [false, true] {
        let mut config = two_app_config();
        config.enable_test_routes = enabled;
        let t = open(config);
        for app in [t.api(), t.identity()] {
            for (method, path) in TEST_ROUTES {
                let path = path.replace("{id}", "1");
                let request = Request::builder()
                    .method(Method::from_bytes(method.as_bytes()).expect("method"))
                    .uri(&path)
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(Body::from("{}"))
                    .expect("request");
                let status = call(&app, request).await.status;
                if enabled {
                    assert!(
                        status != StatusCode::NOT_FOUND || path.starts_with("/_sandbox/faults/"),
                        "{method} {path}: {status}"
                    );
                    assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
                } else {
                    assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}");
                }
            }
        }
    }
}

/// Every test route is in the docs, by path.
#[test]
fn the_docs_list_every_test_route() {
    let docs = include_str!("../../docs/sandbox.md");
    for (method, path) in TEST_ROUTES {
        let row = format!("`{method} {path}`");
        assert!(docs.contains(&row), "docs/sandbox.md does not list {row}");
    }
}
