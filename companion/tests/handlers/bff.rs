//! BFF mode: `/api/...` proxied to the real sandbox resource API (in process, on a loopback
//! port) with the bearer token attached on the server, and no token in any answer the page
//! can read.

use crate::common::browser::{sign_in, FULL_SCOPE};
use crate::common::*;
use axum::response::IntoResponse;
use axum::routing::get as route_get;
use axum::Router;
use fundraising_companion::session::{session_cookie, session_from_headers, CookieState};
use fundraising_companion::CookieKey;
use fundraising_sandbox::{api_app, DEMO_REF_OWNED};
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::json;
use std::time::{Duration, Instant};

/// The sandbox (identity server and resource API) and a companion in BFF mode over them.
struct Bff {
    identity: Identity,
    _api: Served,
    companion: Companion,
    key: CookieKey,
}

fn bff_settings(
    identity: &Identity,
    api_url: &str,
) -> (fundraising_companion::Settings, CookieKey) {
    let mut s = settings(&identity.url);
    s.bff = true;
    s.api_url = Some(api_url.parse().expect("api url"));
    let key = CookieKey::from_material(b"bff-test-cookie-key-0123456789abcdef").expect("key");
    s.cookie_key = key.clone();
    (s, key)
}

async fn start_bff() -> Bff {
    let identity = start_identity().await;
    // The resource API's public address is where it is served (its `Location`s point there).
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api_url = format!("http://{}", listener.local_addr().unwrap());
    let sandbox = identity.sandbox.clone().with_public_base_url(&api_url);
    let api = serve(api_app(sandbox), Some(listener)).await;
    let (s, key) = bff_settings(&identity, &api_url);
    let companion = start_companion(s).await;
    Bff {
        identity,
        _api: api,
        companion,
        key,
    }
}

/// Signs in through the BFF companion; returns the `/auth/token` answer.
async fn sign_in_bff(bff: &Bff) -> Reply {
    let signed = sign_in(&bff.identity.url, FULL_SCOPE).await;
    let reply = post(
        &bff.companion,
        "/auth/token",
        Some(&token_body(&signed)),
        None,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply
}

/// A proxied call as the served page makes it (allowed Origin, CSRF header), with `extra`
/// headers on top.
async fn api(
    companion: &Companion,
    method: reqwest::Method,
    path: &str,
    cookie: Option<&str>,
    extra: &[(&str, &str)],
    body: Option<String>,
) -> Reply {
    let mut headers = HeaderMap::new();
    headers.insert("origin", HeaderValue::from_static(ORIGIN));
    headers.insert("x-fundraising-client", HeaderValue::from_static("1"));
    if let Some(cookie) = cookie {
        headers.insert("cookie", HeaderValue::from_str(cookie).unwrap());
    }
    let mut request = client()
        .request(method, format!("{}{path}", companion.url()))
        .headers(headers);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body);
    }
    Reply::from(request.send().await.expect("send")).await
}

async fn api_get(companion: &Companion, path: &str, cookie: Option<&str>) -> Reply {
    api(companion, reqwest::Method::GET, path, cookie, &[], None).await
}

/// Asserts that no token the identity server issued appears in the answer's body or in any
/// header the page's script can read (all but `Set-Cookie`, which is sealed and HttpOnly).
fn assert_no_token(identity: &Identity, reply: &Reply) {
    let issued = identity.issued_tokens();
    assert!(!issued.is_empty(), "tokens were issued");
    for token in &issued {
        assert!(
            !reply.body.contains(token),
            "a token in the body: {}",
            reply.body
        );
        for (name, value) in &reply.headers {
            if name == "set-cookie" {
                // Sealed: the token is not in it either.
                assert!(!String::from_utf8_lossy(value.as_bytes()).contains(token));
                continue;
            }
            assert!(
                !String::from_utf8_lossy(value.as_bytes()).contains(token),
                "a token in header {name}"
            );
        }
    }
}

/// A GET with the path sent byte for byte (no client-side dot-segment resolution); returns
/// the status line and the body.
async fn raw_get(companion: &Companion, path: &str, cookie: &str) -> (String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(companion.addr())
        .await
        .expect("connect");
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nOrigin: {ORIGIN}\r\nX-Fundraising-Client: 1\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n",
        companion.addr()
    );
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("answer in time")
        .expect("read");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.lines().next().unwrap_or_default().to_owned();
    let body = answer
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    (status, body)
}

fn donation_path() -> String {
    format!("/api/donation/ref/{DEMO_REF_OWNED}")
}

#[tokio::test]
async fn a_signed_in_owner_sees_the_donor_name_through_the_proxy_and_an_anonymous_caller_does_not()
{
    let bff = start_bff().await;
    let anonymous = api_get(&bff.companion, &donation_path(), None).await;
    assert_eq!(anonymous.status, 200, "{}", anonymous.body);
    assert!(
        anonymous.json().get("donorRealName").is_none(),
        "{}",
        anonymous.body
    );

    let signed = sign_in_bff(&bff).await;
    assert_session_paths(&signed, false);
    let cookie = signed.cookie();
    let owner = api_get(&bff.companion, &donation_path(), Some(&cookie)).await;
    assert_eq!(owner.status, 200, "{}", owner.body);
    assert_eq!(
        owner.json()["donorRealName"],
        "Alex Smith",
        "{}",
        owner.body
    );
    assert_eq!(owner.header("cache-control").as_deref(), Some("no-store"));
    assert!(owner
        .header("content-type")
        .is_some_and(|t| t.starts_with("application/json")));

    // The other operations go through too, with their upstream answers unchanged.
    let campaign = api_get(
        &bff.companion,
        "/api/campaign/byshortname/demo-campaign",
        Some(&cookie),
    )
    .await;
    assert_eq!(campaign.status, 200, "{}", campaign.body);
    let pages = api_get(
        &bff.companion,
        "/api/event/1001/pages?pagesize=2&page=1",
        Some(&cookie),
    )
    .await;
    assert_eq!(pages.status, 200, "{}", pages.body);
    let missing = api_get(
        &bff.companion,
        "/api/donation/ref/no-such-ref",
        Some(&cookie),
    )
    .await;
    assert_eq!(missing.status, 404, "the upstream 404 passes through");
    let bad_page = api_get(
        &bff.companion,
        "/api/event/1001/pages?pagesize=0",
        Some(&cookie),
    )
    .await;
    assert_eq!(
        bad_page.status, 400,
        "the query reaches upstream: {}",
        bad_page.body
    );
}

#[tokio::test]
async fn an_event_is_created_through_the_proxy_and_its_location_under_the_api_passes() {
    let bff = start_bff().await;
    let cookie = sign_in_bff(&bff).await.cookie();
    let event = json!({
        "name": "BFF run",
        "eventType": "Running_Marathons",
        "startDate": "/Date(1893456000000+0000)/",
        "completionDate": "/Date(1893542400000+0000)/",
        "expiryDate": "/Date(1896134400000+0000)/",
        "description": "through the companion",
        "location": "London"
    });
    for path in ["/api/event", "/api/event/"] {
        let reply = api(
            &bff.companion,
            reqwest::Method::POST,
            path,
            Some(&cookie),
            &[],
            Some(event.to_string()),
        )
        .await;
        assert_eq!(reply.status, 201, "{path}: {}", reply.body);
        let api_url = bff.companion.state.settings().api_url.clone().unwrap();
        let location = reply.header("location").expect("the event's address");
        assert!(
            location.starts_with(&format!("{api_url}demo-app/v1/event/")),
            "{location}"
        );
        assert_no_token(&bff.identity, &reply);
    }
}

#[tokio::test]
async fn no_answer_the_page_can_read_holds_a_token() {
    let bff = start_bff().await;
    let signed = sign_in_bff(&bff).await;
    let json = signed.json();
    assert!(json.get("accessToken").is_none(), "{json}");
    let mut keys: Vec<_> = json.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["expiresAt", "expiresIn", "profile", "scope", "tokenType"]
    );
    assert_no_token(&bff.identity, &signed);
    let cookie = signed.cookie();

    let refreshed = post(&bff.companion, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    assert!(refreshed.json().get("accessToken").is_none());
    assert_eq!(refreshed.json()["profile"]["name"], "Demo Fundraiser");
    assert_no_token(&bff.identity, &refreshed);
    let cookie = refreshed.cookie();

    // The session endpoint describes the session as a page shows it: who, until when (the
    // access token the companion holds, as the refresh answered), the scope; no token.
    let session = get(&bff.companion, "/auth/session", Some(&cookie)).await;
    assert_eq!(session.json()["active"], true);
    assert_eq!(session.json()["profile"]["name"], "Demo Fundraiser");
    assert_eq!(session.json()["expiresAt"], refreshed.json()["expiresAt"]);
    assert_eq!(session.json()["scope"], refreshed.json()["scope"]);
    let mut keys: Vec<_> = session
        .json()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    keys.sort();
    assert_eq!(keys, ["active", "expiresAt", "profile", "scope"]);
    assert_no_token(&bff.identity, &session);
    for path in [
        donation_path(),
        "/api/campaign/byshortname/demo-campaign".into(),
        "/api/event/1001/pages".into(),
        "/api/donation/ref/no-such-ref".into(),
    ] {
        let reply = api_get(&bff.companion, &path, Some(&cookie)).await;
        assert!(reply.status < 500, "{path}: {}", reply.body);
        assert_no_token(&bff.identity, &reply);
    }
    // The access token the proxy attaches is in the sealed cookie, which the page cannot open.
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("cookie", cookie.parse().unwrap());
    let CookieState::Valid(session) = session_from_headers(&bff.key, &headers) else {
        panic!("the cookie opens with the key")
    };
    let access = session
        .access_token
        .expect("the access token is in the session");
    assert!(bff
        .identity
        .issued_tokens()
        .contains(&access.expose().to_owned()));
    assert!(!cookie.contains(access.expose()));

    // Sign-out clears the cookie on the paths it was set on.
    let out = post(&bff.companion, "/auth/logout", None, Some(&cookie)).await;
    assert_eq!(out.status, 204);
    assert_session_paths(&out, true);
}

/// The session `Set-Cookie`s of an answer in BFF mode: the same session for `/auth` and for
/// `/api`, and for no other path (the static files, served to any origin, never see it).
fn assert_session_paths(reply: &Reply, cleared: bool) {
    let set: Vec<String> = reply
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .filter(|v| v.starts_with("fundraising_session="))
        .collect();
    let mut paths: Vec<&str> = set
        .iter()
        .map(|c| {
            c.split("; ")
                .find_map(|a| a.strip_prefix("Path="))
                .expect("a Path")
        })
        .collect();
    paths.sort();
    assert_eq!(paths, ["/api", "/auth"], "{set:?}");
    let values: Vec<&str> = set.iter().map(|c| c.split(';').next().unwrap()).collect();
    assert_eq!(values[0], values[1], "one session on both paths");
    for c in &set {
        assert_eq!(c.contains("Max-Age=0"), cleared, "{c}");
        assert!(
            c.contains("HttpOnly") && c.contains("SameSite=Strict"),
            "{c}"
        );
    }
}

#[tokio::test]
async fn foreign_origins_missing_headers_other_paths_and_smuggled_authorization_are_refused() {
    let bff = start_bff().await;
    let cookie = sign_in_bff(&bff).await.cookie();
    let path = donation_path();
    let url = format!("{}{path}", bff.companion.url());

    let foreign = client()
        .get(&url)
        .header("origin", "http://evil.example")
        .header("x-fundraising-client", "1")
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    let foreign = Reply::from(foreign).await;
    assert_eq!(
        (foreign.status, foreign.error().as_str()),
        (403, "forbidden_origin")
    );
    // A foreign origin's preflight gets no CORS grant either.
    let preflight = client()
        .request(reqwest::Method::OPTIONS, &url)
        .header("origin", "http://evil.example")
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "x-fundraising-client")
        .send()
        .await
        .unwrap();
    assert!(preflight
        .headers()
        .get("access-control-allow-origin")
        .is_none());
    // The allowed origin's preflight allows the CSRF header and Content-Type, with credentials.
    let preflight = client()
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/api/event", bff.companion.url()),
        )
        .header("origin", ORIGIN)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type,x-fundraising-client",
        )
        .send()
        .await
        .unwrap();
    let allowed = |name: &str| {
        preflight
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_ascii_lowercase())
            .unwrap_or_default()
    };
    assert_eq!(allowed("access-control-allow-origin"), ORIGIN);
    assert_eq!(allowed("access-control-allow-credentials"), "true");
    assert!(allowed("access-control-allow-headers").contains("x-fundraising-client"));
    assert!(allowed("access-control-allow-headers").contains("content-type"));

    let no_csrf = Reply::from(
        client()
            .get(&url)
            .header("origin", ORIGIN)
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (no_csrf.status, no_csrf.error().as_str()),
        (403, "csrf_header_missing")
    );

    // No Origin: a GET passes only with Sec-Fetch-Site: same-origin (set by browsers alone);
    // a POST never.
    let bare = |method: reqwest::Method, site: Option<&'static str>, target: String| {
        let mut r = client()
            .request(method, target)
            .header("x-fundraising-client", "1")
            .header("cookie", &cookie);
        if let Some(site) = site {
            r = r.header("sec-fetch-site", site);
        }
        r
    };
    let same_origin = Reply::from(
        bare(reqwest::Method::GET, Some("same-origin"), url.clone())
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(same_origin.status, 200, "{}", same_origin.body);
    assert_eq!(same_origin.json()["donorRealName"], "Alex Smith");
    for site in [None, Some("cross-site"), Some("same-site")] {
        let reply = Reply::from(
            bare(reqwest::Method::GET, site, url.clone())
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(
            (reply.status, reply.error().as_str()),
            (403, "forbidden_origin"),
            "{site:?}"
        );
    }
    let post_no_origin = Reply::from(
        bare(
            reqwest::Method::POST,
            Some("same-origin"),
            format!("{}/api/event", bff.companion.url()),
        )
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(post_no_origin.error(), "forbidden_origin");

    // Paths and methods outside the four: 404 in the companion's shape, nothing forwarded.
    for (method, outside) in [
        (reqwest::Method::GET, "/api/account"),
        (reqwest::Method::GET, "/api/"),
        (reqwest::Method::GET, "/api"),
        (
            reqwest::Method::POST,
            "/api/campaign/byshortname/demo-campaign",
        ),
        (reqwest::Method::DELETE, "/api/donation/ref/demo-ref-1"),
        (reqwest::Method::GET, "/api/event"),
        (
            reqwest::Method::GET,
            "/api/donation/ref/..%2F..%2Fcampaign%2Fbyshortname%2Fdemo-campaign",
        ),
        (reqwest::Method::GET, "/api/donation/ref/%2e%2e"),
        (reqwest::Method::GET, "/api/donation/ref/a%5Cb"),
        (
            reqwest::Method::GET,
            "/api/campaign/byshortname/demo-campaign/extra",
        ),
        (
            reqwest::Method::GET,
            "/api/event/1001/pages/../../donation/ref/demo-ref-1",
        ),
    ] {
        let reply = api(
            &bff.companion,
            method.clone(),
            outside,
            Some(&cookie),
            &[],
            None,
        )
        .await;
        assert_eq!(
            (reply.status, reply.error().as_str()),
            (404, "not_found"),
            "{method} {outside}: {}",
            reply.body
        );
    }

    // Dot segments, which an HTTP client library would resolve, sent as they are.
    for raw in [
        "/api/donation/ref/..",
        "/api/donation/ref/%2e%2e",
        "/api/donation/ref/%2E.",
        "/api/event/1001/pages/../../donation/ref/demo-ref-1",
        "/api/event/../donation/ref/demo-ref-1",
        "/api/event/%2e%2e/pages",
    ] {
        let (status, body) = raw_get(&bff.companion, raw, &cookie).await;
        assert!(status.starts_with("HTTP/1.1 404"), "{raw}: {status} {body}");
        assert!(body.contains("\"not_found\""), "{raw}: {body}");
    }

    // The page's own Authorization header is refused, not forwarded or replaced.
    let smuggled = api(
        &bff.companion,
        reqwest::Method::GET,
        &path,
        None,
        &[("authorization", "Bearer stolen")],
        None,
    )
    .await;
    assert_eq!(
        (smuggled.status, smuggled.error().as_str()),
        (400, "invalid_request")
    );
}

#[tokio::test]
async fn the_browser_cookie_and_authorization_never_go_upstream() {
    // An upstream of the tests' own records the headers it gets.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<axum::http::HeaderMap>::new()));
    let record = seen.clone();
    let upstream = Router::new().route(
        "/demo-app/v1/donation/ref/{reference}",
        route_get(move |headers: axum::http::HeaderMap| {
            let record = record.clone();
            async move {
                record.lock().unwrap().push(headers);
                ([("content-type", "application/json")], "{}")
            }
        }),
    );
    let upstream = serve(upstream, None).await;
    let identity = start_identity().await;
    let (s, _) = bff_settings(&identity, &format!("http://{}", upstream.addr));
    let companion = start_companion(s).await;
    let reply = api(
        &companion,
        reqwest::Method::GET,
        "/api/donation/ref/x",
        Some("other=1; fundraising_session=garbage"),
        &[("x-custom", "1")],
        None,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    // The unreadable session cookie is cleared and the call went anonymously.
    assert!(reply.set_cookie().is_some_and(|c| c.contains("Max-Age=0")));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    for name in [
        "cookie",
        "authorization",
        "origin",
        "x-fundraising-client",
        "x-custom",
    ] {
        assert!(seen[0].get(name).is_none(), "{name} went upstream");
    }
}

#[tokio::test]
async fn a_token_near_expiry_is_refreshed_on_the_server_and_the_cookie_rotates() {
    let bff = start_bff().await;
    let cookie = sign_in_bff(&bff).await.cookie();
    // The session's token has 30 s left (by the companion's clock): under the minute margin.
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("cookie", cookie.parse().unwrap());
    let CookieState::Valid(mut session) = session_from_headers(&bff.key, &headers) else {
        panic!("the cookie opens")
    };
    let old_access = session.access_token.clone().unwrap();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    session.expires_at = Some(now_ms + 30_000);
    let near = session_cookie(
        &bff.key,
        &session,
        bff.companion.state.settings().cookie_scope(),
    );
    let near = near.0[0]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();

    let calls = bff.identity.token_calls();
    let reply = api_get(&bff.companion, &donation_path(), Some(&near)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["donorRealName"], "Alex Smith");
    assert_eq!(
        bff.identity.token_calls(),
        calls + 1,
        "one refresh upstream"
    );
    let rotated = reply.cookie();
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("cookie", rotated.parse().unwrap());
    let CookieState::Valid(fresh) = session_from_headers(&bff.key, &headers) else {
        panic!("the rotated cookie opens")
    };
    assert_ne!(fresh.access_token.unwrap(), old_access);
    assert!(fresh.expires_at.unwrap() > now_ms + 3_000_000);
    assert_no_token(&bff.identity, &reply);

    // With the fresh token there is no further refresh.
    let again = api_get(&bff.companion, &donation_path(), Some(&rotated)).await;
    assert_eq!(again.status, 200);
    assert!(again.set_cookie().is_none());
    assert_eq!(bff.identity.token_calls(), calls + 1);
}

#[tokio::test]
async fn concurrent_calls_with_a_token_near_expiry_share_one_refresh() {
    let bff = start_bff().await;
    let cookie = sign_in_bff(&bff).await.cookie();
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("cookie", cookie.parse().unwrap());
    let CookieState::Valid(mut session) = session_from_headers(&bff.key, &headers) else {
        panic!("the cookie opens")
    };
    session.expires_at = Some(0);
    let near = session_cookie(
        &bff.key,
        &session,
        bff.companion.state.settings().cookie_scope(),
    );
    let near = near.0[0]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let calls = bff.identity.token_calls();
    let mut tasks = Vec::new();
    for i in 0..8 {
        let (url, near) = (bff.companion.url().clone(), near.clone());
        // Half through /api, half through /auth/refresh, as several tabs would.
        tasks.push(tokio::spawn(async move {
            let request = if i % 2 == 0 {
                client().get(format!("{url}/api/donation/ref/{DEMO_REF_OWNED}"))
            } else {
                client().post(format!("{url}/auth/refresh"))
            };
            let response = request
                .header("origin", ORIGIN)
                .header("x-fundraising-client", "1")
                .header("cookie", near)
                .send()
                .await
                .expect("send");
            Reply::from(response).await
        }));
    }
    for task in tasks {
        let reply = task.await.unwrap();
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert!(
            reply.set_cookie().is_some(),
            "each answer carries the rotated cookie"
        );
    }
    assert_eq!(
        bff.identity.token_calls(),
        calls + 1,
        "one upstream refresh"
    );
}

#[tokio::test]
async fn a_token_the_api_says_expired_is_refreshed_and_the_get_retried() {
    let bff = start_bff().await;
    let cookie = sign_in_bff(&bff).await.cookie();
    // The sandbox's clock passes the access token's lifetime (the refresh token lives on).
    bff.identity
        .sandbox
        .clock()
        .advance(Duration::from_secs(3700));
    let calls = bff.identity.token_calls();
    let reply = api_get(&bff.companion, &donation_path(), Some(&cookie)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["donorRealName"], "Alex Smith");
    assert_eq!(bff.identity.token_calls(), calls + 1);
    let rotated = reply.cookie();
    assert_ne!(rotated, cookie);
    let again = api_get(&bff.companion, &donation_path(), Some(&rotated)).await;
    assert_eq!(again.json()["donorRealName"], "Alex Smith");
    assert_eq!(bff.identity.token_calls(), calls + 1);
}

#[tokio::test]
async fn an_ended_session_is_session_expired() {
    let bff = start_bff().await;
    let cookie = sign_in_bff(&bff).await.cookie();
    // Past the refresh token's lifetime too: the refresh is refused upstream.
    bff.identity
        .sandbox
        .clock()
        .advance(Duration::from_secs(31 * 24 * 3600));
    let reply = api_get(&bff.companion, &donation_path(), Some(&cookie)).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (401, "session_expired")
    );
    assert!(reply.set_cookie().is_some_and(|c| c.contains("Max-Age=0")));
}

#[tokio::test]
async fn an_oversize_body_is_413_and_an_oversize_answer_is_502() {
    let bff = start_bff().await;
    let big = format!("{{\"name\":\"{}\"}}", "x".repeat(70 * 1024));
    let reply = api(
        &bff.companion,
        reqwest::Method::POST,
        "/api/event",
        None,
        &[],
        Some(big),
    )
    .await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (413, "payload_too_large")
    );

    let upstream = Router::new().route(
        "/demo-app/v1/campaign/byshortname/{name}",
        route_get(|| async {
            (
                [("content-type", "application/json")],
                "x".repeat(2 * 1024 * 1024),
            )
        }),
    );
    let upstream = serve(upstream, None).await;
    let (s, _) = bff_settings(&bff.identity, &format!("http://{}", upstream.addr));
    let companion = start_companion(s).await;
    let reply = api_get(&companion, "/api/campaign/byshortname/demo-campaign", None).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (502, "upstream_unavailable")
    );
}

#[tokio::test]
async fn a_resource_api_down_or_slow_gives_the_upstream_codes() {
    let identity = start_identity().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed = listener.local_addr().unwrap();
    drop(listener);
    let (s, _) = bff_settings(&identity, &format!("http://{closed}"));
    let companion = start_companion(s).await;
    let reply = api_get(&companion, &donation_path(), None).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (502, "upstream_unavailable")
    );

    // The real resource API behind a layer that holds each answer for 3 s.
    let slow = api_app(identity.sandbox.clone()).layer(axum::middleware::from_fn(
        |req: axum::extract::Request, next: axum::middleware::Next| async move {
            tokio::time::sleep(Duration::from_secs(3)).await;
            next.run(req).await
        },
    ));
    let slow = serve(slow, None).await;
    let (mut s, _) = bff_settings(&identity, &format!("http://{}", slow.addr));
    s.upstream_timeout = Duration::from_millis(300);
    let companion = start_companion(s).await;
    let started = Instant::now();
    let reply = api_get(&companion, &donation_path(), None).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (504, "upstream_timeout")
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn without_bff_there_is_no_proxy_and_the_page_gets_its_token() {
    let identity = start_identity().await;
    let api = serve(api_app(identity.sandbox.clone()), None).await;
    let mut s = settings(&identity.url);
    s.api_url = Some(format!("http://{}", api.addr).parse().unwrap());
    let companion = start_companion(s).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_token_answer_members(&reply.json());
    assert!(reply.set_cookie().unwrap().contains("Path=/auth"));
    let proxied = api_get(&companion, &donation_path(), Some(&reply.cookie())).await;
    assert_eq!(proxied.status, 404);
}

/// Proxied answers stay data. An upstream of the tests' own answers HTML with a `<script>`
/// and a foreign `Location` (also on a 302): the page gets the bytes as `text/plain`, with
/// `nosniff` and a CSP under which nothing loads or runs, and no foreign `Location`. A
/// `Location` under `--api-url` passes; JSON keeps its type and gets the same headers.
#[tokio::test]
async fn proxied_answers_stay_data_and_foreign_locations_are_dropped() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api_url = format!("http://{}", listener.local_addr().unwrap());
    let own = format!("{api_url}/demo-app/v1/event/42");
    let script = "<html><script>alert(document.cookie)</script></html>";
    let upstream = Router::new()
        .route(
            "/demo-app/v1/campaign/byshortname/{name}",
            route_get(
                move |axum::extract::Path(name): axum::extract::Path<String>| async move {
                    let (status, location) = match name.as_str() {
                        "html" => (200, "http://evil.example/x"),
                        "redirect" => (302, "http://evil.example/x"),
                        "relative-escape" => (302, "//evil.example/x"),
                        _ => (200, ""),
                    };
                    let mut response =
                        axum::response::Response::new(axum::body::Body::from(script));
                    *response.status_mut() = axum::http::StatusCode::from_u16(status).unwrap();
                    let headers = response.headers_mut();
                    headers.insert("content-type", "text/html; charset=utf-8".parse().unwrap());
                    if !location.is_empty() {
                        headers.insert("location", location.parse().unwrap());
                    }
                    response
                },
            ),
        )
        .route(
            "/demo-app/v1/donation/ref/{reference}",
            route_get(move || {
                let own = own.clone();
                async move {
                    (
                        axum::http::StatusCode::SEE_OTHER,
                        [
                            ("content-type", "application/json"),
                            ("location", own.as_str()),
                        ],
                        r#"{"id":1}"#,
                    )
                        .into_response()
                }
            }),
        );
    let _upstream = serve(upstream, Some(listener)).await;
    let identity = start_identity().await;
    let (s, _) = bff_settings(&identity, &api_url);
    let companion = start_companion(s).await;

    let assert_data = |reply: &Reply| {
        assert_eq!(
            reply.header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{:?}",
            reply.headers
        );
        let csp = reply.header("content-security-policy").expect("a CSP");
        assert!(csp.contains("default-src 'none'"), "{csp}");
        assert!(csp.contains("sandbox"), "{csp}");
    };
    for (path, status) in [
        ("/api/campaign/byshortname/html", 200),
        ("/api/campaign/byshortname/redirect", 302),
        ("/api/campaign/byshortname/relative-escape", 302),
    ] {
        let reply = api_get(&companion, path, None).await;
        assert_eq!(reply.status, status, "{path}");
        assert_eq!(reply.body, script, "the body is relayed as it came: {path}");
        let content_type = reply.header("content-type").unwrap_or_default();
        assert!(
            content_type.starts_with("text/plain"),
            "{path}: {content_type}"
        );
        assert_eq!(reply.header("location"), None, "{path}");
        assert_data(&reply);
    }
    // A Location under --api-url passes; a JSON answer keeps its type.
    let reply = api_get(&companion, "/api/donation/ref/x", None).await;
    assert_eq!(reply.status, 303);
    assert_eq!(
        reply.header("location").as_deref(),
        Some(format!("{api_url}/demo-app/v1/event/42").as_str())
    );
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json")
    );
    assert_data(&reply);
    // The companion's own errors on /api carry them too.
    let refused = api_get(&companion, "/api/account", None).await;
    assert_eq!(refused.error(), "not_found");
    assert_data(&refused);
}
