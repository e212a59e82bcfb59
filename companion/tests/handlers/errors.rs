//! The request-side error codes: invalid_request, forbidden_origin, csrf_header_missing.

use crate::common::*;
use serde_json::json;

fn good_body() -> serde_json::Value {
    json!({
        "code": "some-code",
        "codeVerifier": "v".repeat(43),
        "nonce": "n-1",
        "redirectUri": HOME,
    })
}

async fn raw_post(companion: &Companion, headers: &[(&str, &str)], body: Vec<u8>) -> Reply {
    let mut request = client()
        .post(format!("{}/auth/token", companion.url()))
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    Reply::from(request.send().await.expect("send")).await
}

/// What is wrong, the request headers, the body.
type Case = (&'static str, Vec<(&'static str, &'static str)>, Vec<u8>);

const BROWSER: [(&str, &str); 3] = [
    ("origin", ORIGIN),
    ("x-fundraising-client", "1"),
    ("content-type", "application/json"),
];

#[tokio::test]
async fn malformed_requests_are_invalid_request() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let calls = identity.token_calls();
    let mut cases: Vec<Case> = Vec::new();
    for field in ["code", "codeVerifier", "nonce", "redirectUri"] {
        let mut body = good_body();
        body.as_object_mut().unwrap().remove(field);
        cases.push((
            "missing field",
            BROWSER.to_vec(),
            body.to_string().into_bytes(),
        ));
        let mut body = good_body();
        body[field] = json!(42);
        cases.push((
            "mistyped field",
            BROWSER.to_vec(),
            body.to_string().into_bytes(),
        ));
    }
    let mut body = good_body();
    body["codeVerifier"] = json!("too-short");
    cases.push((
        "short verifier",
        BROWSER.to_vec(),
        body.to_string().into_bytes(),
    ));
    let mut body = good_body();
    body["redirectUri"] = json!("not a url");
    cases.push((
        "bad redirect uri",
        BROWSER.to_vec(),
        body.to_string().into_bytes(),
    ));
    let mut body = good_body();
    body["code"] = json!("");
    cases.push((
        "empty code",
        BROWSER.to_vec(),
        body.to_string().into_bytes(),
    ));
    cases.push(("not JSON", BROWSER.to_vec(), b"{not json".to_vec()));
    let mut big = good_body();
    big["padding"] = json!("x".repeat(17 * 1024));
    cases.push((
        "over 16 KiB",
        BROWSER.to_vec(),
        big.to_string().into_bytes(),
    ));
    let text = vec![
        ("origin", ORIGIN),
        ("x-fundraising-client", "1"),
        ("content-type", "text/plain"),
    ];
    cases.push((
        "wrong content type",
        text,
        good_body().to_string().into_bytes(),
    ));
    let none = vec![("origin", ORIGIN), ("x-fundraising-client", "1")];
    cases.push((
        "no content type",
        none,
        good_body().to_string().into_bytes(),
    ));
    for (what, headers, body) in cases {
        let reply = raw_post(&companion, &headers, body).await;
        assert_eq!(
            (reply.status, reply.error().as_str()),
            (400, "invalid_request"),
            "{what}: {}",
            reply.body
        );
    }
    assert_eq!(
        identity.token_calls(),
        calls,
        "nothing malformed reaches the identity server"
    );

    // Just under the limit is read (and then refused upstream as an unknown code).
    let mut fits = good_body();
    fits["padding"] = json!("x".repeat(15 * 1024));
    let reply = raw_post(&companion, &BROWSER, fits.to_string().into_bytes()).await;
    assert_eq!(reply.error(), "invalid_grant", "{}", reply.body);
}

#[tokio::test]
async fn origin_and_csrf_header_are_required_on_every_post() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let body = good_body().to_string().into_bytes();
    for path in ["/auth/token", "/auth/refresh", "/auth/logout"] {
        let url = format!("{}{path}", companion.url());
        let send = |headers: Vec<(&'static str, &'static str)>| {
            let mut request = client().post(&url).body(body.clone());
            for (n, v) in headers {
                request = request.header(n, v);
            }
            async move { Reply::from(request.send().await.expect("send")).await }
        };
        let no_origin = send(vec![
            ("x-fundraising-client", "1"),
            ("content-type", "application/json"),
        ])
        .await;
        assert_eq!(
            (no_origin.status, no_origin.error().as_str()),
            (403, "forbidden_origin"),
            "{path}"
        );
        let evil = send(vec![
            ("origin", "http://evil.example"),
            ("x-fundraising-client", "1"),
            ("content-type", "application/json"),
        ])
        .await;
        assert_eq!(
            (evil.status, evil.error().as_str()),
            (403, "forbidden_origin"),
            "{path}"
        );
        let no_csrf = send(vec![
            ("origin", ORIGIN),
            ("content-type", "application/json"),
        ])
        .await;
        assert_eq!(
            (no_csrf.status, no_csrf.error().as_str()),
            (403, "csrf_header_missing"),
            "{path}"
        );
        let wrong_csrf = send(vec![
            ("origin", ORIGIN),
            ("x-fundraising-client", "yes"),
            ("content-type", "application/json"),
        ])
        .await;
        assert_eq!(wrong_csrf.error(), "csrf_header_missing", "{path}");
    }
    // A second allowed origin is accepted.
    let mut s = settings(&identity.url);
    s.allow_origin("http://localhost:3000").unwrap();
    let other = start_companion(s).await;
    let reply = client()
        .post(format!("{}/auth/refresh", other.url()))
        .header("origin", "http://localhost:3000")
        .header("x-fundraising-client", "1")
        .send()
        .await
        .unwrap();
    assert_eq!(Reply::from(reply).await.error(), "session_expired");
}
