//! Starts the binary on ports it picks and completes the whole code flow over real HTTP.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{challenge, query_of, verify_jwt, HOME, VERIFIER};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, LOCATION, SET_COOKIE};
use reqwest::{Client, Response, StatusCode};
use serde_json::Value;

/// The running binary; killed when dropped.
struct Server {
    child: Child,
    api: String,
    identity: String,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(extra: &[&str]) -> Server {
    let dir = tempfile::tempdir().expect("dir");
    let mut server = start_in(dir.path(), extra);
    server._dir = Some(dir);
    server
}

fn start_in(dir: &std::path::Path, extra: &[&str]) -> Server {
    // Reuse the fixture key so the debug binary does not spend time generating one.
    std::fs::create_dir_all(dir).expect("data dir");
    if !dir.join("signing-key.pem").exists() {
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/signing-key.pem"
            ),
            dir.join("signing-key.pem"),
        )
        .expect("copy key");
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_fundraising-sandbox"))
        .args([
            "--api-listen",
            "127.0.0.1:0",
            "--identity-listen",
            "127.0.0.1:0",
            "--data-dir",
        ])
        .arg(dir)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the sandbox binary");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut api, mut identity) = (None, None);
    while api.is_none() || identity.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .expect("the sandbox announces its addresses");
        if let Some(url) = line.strip_prefix("sandbox api listening on ") {
            api = Some(url.to_owned());
        }
        if let Some(url) = line.strip_prefix("sandbox identity listening on ") {
            identity = Some(url.to_owned());
        }
    }
    Server {
        child,
        api: api.expect("api"),
        identity: identity.expect("identity"),
        _dir: None,
    }
}

fn client() -> Client {
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client")
}

fn location(response: &Response) -> String {
    response
        .headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no Location ({})", response.status()))
        .to_owned()
}

/// The value of the hidden input `name` in an HTML form.
fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("{name} in {html}"))
        + marker.len();
    let end = html[start..].find('"').expect("closing quote") + start;
    html[start..end].to_owned()
}

fn form_body(pairs: &[(&str, &str)]) -> String {
    serde_urlencoded::to_string(pairs).expect("form")
}

async fn token_call(
    client: &Client,
    server: &Server,
    pairs: &[(&str, &str)],
) -> (StatusCode, Value) {
    let response = client
        .post(format!("{}/connect/token", server.identity))
        .header(AUTHORIZATION, common::basic("demo-app", "demo-secret"))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form_body(pairs))
        .send()
        .await
        .expect("token call");
    let status = response.status();
    let body = response.text().await.expect("body");
    (status, serde_json::from_str(&body).expect("JSON"))
}

#[tokio::test]
async fn full_code_flow_over_http() {
    let server = start(&[]);
    let http = client();
    let nonce = "3f2a7c9e-1b4d-4e8f-a6c5-0d9e8f7a6b5c";
    let challenge = challenge(VERIFIER);
    let query = serde_urlencoded::to_string([
        ("client_id", "demo-app"),
        ("response_type", "code"),
        ("scope", "openid profile email offline_access"),
        ("redirect_uri", HOME),
        ("state", "e2e-state"),
        ("nonce", nonce),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ])
    .expect("query");

    // Discovery points at the bound identity address.
    let discovery: Value = serde_json::from_str(
        &http
            .get(format!(
                "{}/.well-known/openid-configuration",
                server.identity
            ))
            .send()
            .await
            .expect("discovery")
            .text()
            .await
            .expect("body"),
    )
    .expect("JSON");
    assert_eq!(discovery["issuer"], server.identity.as_str());

    // authorize -> login page
    let authorize = http
        .get(format!("{}/connect/authorize?{query}", server.identity))
        .send()
        .await
        .expect("authorize");
    assert!(authorize.status().is_redirection());
    let login_url = format!("{}{}", server.identity, location(&authorize));
    let login_page = http.get(&login_url).send().await.expect("login page");
    assert_eq!(login_page.status(), StatusCode::OK);
    let html = login_page.text().await.expect("html");
    assert!(html.contains("name=\"username\"") && html.contains("name=\"password\""));
    let request = hidden(&html, "request");

    // login form -> session cookie, consent page
    let logged_in = http
        .post(format!("{}/connect/login", server.identity))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form_body(&[
            ("request", &request),
            ("username", "demo@example.org"),
            ("password", "demo-password"),
        ]))
        .send()
        .await
        .expect("login");
    assert_eq!(logged_in.status(), StatusCode::SEE_OTHER);
    let cookie = logged_in
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("session cookie")
        .to_owned();
    let consent_url = format!("{}{}", server.identity, location(&logged_in));
    let consent_page = http
        .get(&consent_url)
        .header(COOKIE, &cookie)
        .send()
        .await
        .expect("consent page");
    let html = consent_page.text().await.expect("html");
    assert!(
        html.contains("name=\"allow\"") && html.contains("name=\"deny\""),
        "{html}"
    );

    // consent -> redirect with code
    let allowed = http
        .post(format!("{}/connect/consent", server.identity))
        .header(COOKIE, &cookie)
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form_body(&[
            ("request", &hidden(&html, "request")),
            ("allow", "1"),
        ]))
        .send()
        .await
        .expect("consent");
    let back = location(&allowed);
    assert!(back.starts_with(HOME), "{back}");
    let params = query_of(&back);
    assert_eq!(params["state"], "e2e-state");
    let code = params["code"].clone();

    // token call with Basic
    let (status, tokens) = token_call(
        &http,
        &server,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", HOME),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 3600);

    // id_token signature against the JWKS the discovery names, and the nonce
    let jwks: Value = serde_json::from_str(
        &http
            .get(discovery["jwks_uri"].as_str().expect("jwks_uri"))
            .send()
            .await
            .expect("jwks")
            .text()
            .await
            .expect("body"),
    )
    .expect("JSON");
    let claims = verify_jwt(&jwks, tokens["id_token"].as_str().expect("id_token"));
    assert_eq!(claims["nonce"], nonce);
    assert_eq!(claims["iss"], server.identity.as_str());
    assert_eq!(claims["aud"], "demo-app");
    assert_eq!(claims["name"], "Demo Fundraiser");
    assert_eq!(claims["email"], "demo@example.org");

    // The access token works on the resource API (shared state).
    let donation: Value = serde_json::from_str(
        &http
            .get(format!(
                "{}/demo-app/v1/donation/ref/demo-ref-1",
                server.api
            ))
            .bearer_auth(tokens["access_token"].as_str().expect("access_token"))
            .send()
            .await
            .expect("donation")
            .text()
            .await
            .expect("body"),
    )
    .expect("JSON");
    assert!(donation["donorRealName"].is_string(), "{donation}");

    // refresh -> new pair; the old refresh token is refused
    let old = tokens["refresh_token"]
        .as_str()
        .expect("refresh_token")
        .to_owned();
    let refresh = [
        ("grant_type", "refresh_token"),
        ("refresh_token", old.as_str()),
        ("redirect_uri", HOME),
    ];
    let (status, renewed) = token_call(&http, &server, &refresh).await;
    assert_eq!(status, StatusCode::OK, "{renewed}");
    assert_ne!(renewed["refresh_token"], tokens["refresh_token"]);
    assert_ne!(renewed["access_token"], tokens["access_token"]);
    verify_jwt(&jwks, renewed["id_token"].as_str().expect("id_token"));
    let (status, refused) = token_call(&http, &server, &refresh).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["error"], "invalid_grant");
}

#[tokio::test]
async fn config_file_token_delay_and_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let config = dir.path().join("sandbox.toml");
    std::fs::write(
        &config,
        "[[applications]]\napp_id = \"demo-app\"\nsecret = \"demo-secret\"\nhome_page = \"http://127.0.0.1:8080/\"\n\
         [[applications]]\napp_id = \"shop\"\nsecret = \"s\"\nhome_page = \"https://shop.example/cb\"\n",
    )
    .expect("config");
    let config = config.to_str().expect("path");
    let data = dir.path().join("data");
    let extra = [
        "--config",
        config,
        "--token-delay-ms",
        "400",
        "--public-base-url",
        "https://api.example/",
    ];
    let mut server = start_in(&data, &extra);
    let http = client();
    let campaign = http
        .get(format!(
            "{}/shop/v1/campaign/byshortname/demo-campaign",
            server.api
        ))
        .send()
        .await
        .expect("campaign");
    assert_eq!(campaign.status(), StatusCode::OK);
    let created = http
        .post(format!("{}/shop/v1/event/", server.api))
        .header(CONTENT_TYPE, "application/json")
        .body(r#"{"name":"Swim","eventType":"Swimming"}"#)
        .send()
        .await
        .expect("create");
    assert_eq!(created.status(), StatusCode::CREATED);
    let created: Value = serde_json::from_str(&created.text().await.expect("body")).expect("JSON");
    let id = created["id"].as_i64().expect("id");
    assert_eq!(
        created["next"]["uri"],
        format!("https://api.example/shop/v1/event/{id}")
    );
    let started = Instant::now();
    let (status, _) = token_call(&http, &server, &[("grant_type", "refresh_token")]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(started.elapsed() >= Duration::from_millis(400));

    // SIGTERM stops it gracefully; the event is still there after a restart.
    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let exit = loop {
        if let Some(exit) = server.child.try_wait().expect("wait") {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "the sandbox did not stop on SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(exit.success(), "{exit:?}");
    let again = start_in(&data, &extra);
    let pages = http
        .get(format!("{}/shop/v1/event/{id}/pages", again.api))
        .send()
        .await
        .expect("pages");
    assert_eq!(pages.status(), StatusCode::OK);
}

#[tokio::test]
async fn login_csrf_headers_revocation_and_json_errors_over_http() {
    // A public issuer other than the bound address: a same-origin form is recognised by Host.
    let server = start(&["--issuer", "https://id.example"]);
    let http = client();
    let challenge = challenge(VERIFIER);
    let query = serde_urlencoded::to_string([
        ("client_id", "demo-app"),
        ("response_type", "code"),
        ("scope", "openid profile offline_access"),
        ("redirect_uri", HOME),
        ("nonce", "e2e-nonce"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ])
    .expect("query");
    let discovery: Value = serde_json::from_str(
        &http
            .get(format!(
                "{}/.well-known/openid-configuration",
                server.identity
            ))
            .send()
            .await
            .expect("discovery")
            .text()
            .await
            .expect("body"),
    )
    .expect("JSON");
    assert_eq!(
        discovery["revocation_endpoint"],
        "https://id.example/connect/revocation"
    );
    let authorize = http
        .get(format!("{}/connect/authorize?{query}", server.identity))
        .send()
        .await
        .expect("authorize");
    let login_page = http
        .get(format!("{}{}", server.identity, location(&authorize)))
        .send()
        .await
        .expect("login page");
    let headers = login_page.headers().clone();
    assert!(headers
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("default-src 'none'")));
    assert_eq!(headers.get("x-frame-options").expect("XFO"), "DENY");
    assert_eq!(
        headers.get("x-content-type-options").expect("nosniff"),
        "nosniff"
    );
    let request = hidden(&login_page.text().await.expect("html"), "request");
    let form = form_body(&[
        ("request", &request),
        ("username", "demo@example.org"),
        ("password", "demo-password"),
    ]);
    let post = |origin: &str| {
        http.post(format!("{}/connect/login", server.identity))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("origin", origin)
            .body(form.clone())
            .send()
    };
    let cross = post("http://evil.example").await.expect("cross-site login");
    assert_eq!(cross.status(), StatusCode::FORBIDDEN);
    assert!(cross.headers().get(SET_COOKIE).is_none());
    let same = post(&server.identity).await.expect("same-origin login");
    assert_eq!(same.status(), StatusCode::SEE_OTHER);

    // Revocation answers 200 for an unknown token; the token endpoint answers JSON to GET.
    let revoked = http
        .post(format!("{}/connect/revocation", server.identity))
        .header(AUTHORIZATION, common::basic("demo-app", "demo-secret"))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form_body(&[("token", "never-issued")]))
        .send()
        .await
        .expect("revocation");
    assert_eq!(revoked.status(), StatusCode::OK);
    let wrong_method = http
        .get(format!("{}/connect/token", server.identity))
        .send()
        .await
        .expect("GET token");
    assert_eq!(wrong_method.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body: Value =
        serde_json::from_str(&wrong_method.text().await.expect("body")).expect("JSON");
    assert_eq!(body["error"], "invalid_request");
}

/// Over real sockets: wrong passwords lock nothing (the sandbox is no identity provider's
/// defence): after many from one address, the right password from that very address signs
/// in. A throttled sign-in is asked for: a `login` fault answers `429` with `Retry-After`,
/// and the next attempt goes through.
#[tokio::test]
async fn wrong_passwords_lock_nothing_and_a_login_fault_answers_429_with_retry_after() {
    let dir = tempfile::tempdir().expect("dir");
    let config = dir.path().join("sandbox.toml");
    std::fs::write(
        &config,
        format!(
            "enable_test_routes = true\n{}",
            fundraising_sandbox::DEFAULT_CONFIG_TOML
        ),
    )
    .expect("config");
    let server = start(&["--config", config.to_str().expect("path")]);
    let http = client();
    let authorize = format!(
        "{}/connect/authorize?{}",
        server.identity,
        serde_urlencoded::to_string([
            ("client_id", "demo-app"),
            ("response_type", "code"),
            ("scope", "openid profile"),
            ("redirect_uri", HOME),
            ("nonce", "throttle-nonce"),
        ])
        .expect("query")
    );
    // A fresh sign-in request's id, from the login page.
    let new_request = || {
        let (http, authorize, identity) =
            (http.clone(), authorize.clone(), server.identity.clone());
        async move {
            let to_login = http.get(&authorize).send().await.expect("authorize");
            let page = http
                .get(format!("{identity}{}", location(&to_login)))
                .send()
                .await
                .expect("login page");
            hidden(&page.text().await.expect("html"), "request")
        }
    };
    let login = |request: String, password: &'static str| {
        let (http, identity) = (http.clone(), server.identity.clone());
        async move {
            http.post(format!("{identity}/connect/login"))
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(form_body(&[
                    ("request", &request),
                    ("username", "demo@example.org"),
                    ("password", password),
                ]))
                .send()
                .await
                .expect("login")
        }
    };
    for _ in 0..30 {
        let wrong = login(new_request().await, "wrong").await;
        assert_eq!(wrong.status(), StatusCode::OK);
    }
    let signed = login(new_request().await, "demo-password").await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER);
    assert!(signed.headers().get(SET_COOKIE).is_some());

    let request = new_request().await;
    let added = http
        .post(format!("{}/_sandbox/faults", server.identity))
        .header(CONTENT_TYPE, "application/json")
        .body(r#"{"endpoint":"login","status":429,"retry_after":7,"times":1}"#)
        .send()
        .await
        .expect("add");
    assert_eq!(added.status(), StatusCode::CREATED);
    let throttled = login(request.clone(), "demo-password").await;
    assert_eq!(throttled.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(throttled.headers()["retry-after"], "7");
    assert!(throttled.headers().get(SET_COOKIE).is_none());
    let after = login(request, "demo-password").await;
    assert_eq!(after.status(), StatusCode::SEE_OTHER);
    assert!(after.headers().get(SET_COOKIE).is_some());
}

/// Over real HTTP: a `drop` fault closes the connection before any byte of an answer (the
/// client sees a connection error, not a status), the request log says so, and
/// `--token-delay-ms` stands in the fault list as a delay of the token endpoint.
#[tokio::test]
async fn a_dropped_connection_is_no_answer_at_all_and_the_token_delay_is_a_fault() {
    let dir = tempfile::tempdir().expect("dir");
    let config = dir.path().join("sandbox.toml");
    std::fs::write(
        &config,
        format!(
            "enable_test_routes = true\n{}",
            fundraising_sandbox::DEFAULT_CONFIG_TOML
        ),
    )
    .expect("config");
    let config = config.to_str().expect("path").to_owned();
    let server = start(&["--config", &config, "--token-delay-ms", "150"]);
    let http = client();
    let faults = http
        .get(format!("{}/_sandbox/faults", server.identity))
        .send()
        .await
        .expect("faults")
        .text()
        .await
        .expect("text");
    let faults: Value = serde_json::from_str(&faults).expect("JSON");
    assert_eq!(faults["faults"][0]["endpoint"], "token");
    assert_eq!(faults["faults"][0]["delay_ms"], 150);

    let added = http
        .post(format!("{}/_sandbox/faults", server.api))
        .header(CONTENT_TYPE, "application/json")
        .body(r#"{"endpoint":"campaign","drop":true,"times":1}"#)
        .send()
        .await
        .expect("add");
    assert_eq!(added.status(), StatusCode::CREATED);
    let campaign = format!(
        "{}/demo-app/v1/campaign/byshortname/demo-campaign",
        server.api
    );
    let dropped = http.get(&campaign).send().await;
    assert!(
        dropped.is_err(),
        "an answer came: {:?}",
        dropped.map(|r| r.status())
    );
    assert_eq!(
        http.get(&campaign).send().await.expect("healed").status(),
        StatusCode::OK
    );
    let log = http
        .get(format!(
            "{}/_sandbox/requests?endpoint=campaign",
            server.api
        ))
        .send()
        .await
        .expect("log")
        .text()
        .await
        .expect("text");
    let log: Value = serde_json::from_str(&log).expect("JSON");
    let statuses: Vec<&Value> = log["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .map(|r| &r["status"])
        .collect();
    assert_eq!(statuses, [&Value::Null, &Value::from(200)]);
    assert!(log["requests"][0]["fault"].is_u64());
}

/// Without `--data-dir` the data (with the signing key) goes to the user's data folder, never
/// into the folder the sandbox is started from (an application's source tree): the key file
/// there is its owner's alone.
#[cfg(unix)]
#[test]
fn the_default_data_folder_is_outside_the_current_folder() {
    use std::os::unix::fs::PermissionsExt;
    let app = tempfile::tempdir().expect("app dir");
    let home = tempfile::tempdir().expect("home");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fundraising-sandbox"))
        .args([
            "--api-listen",
            "127.0.0.1:0",
            "--identity-listen",
            "127.0.0.1:0",
        ])
        .current_dir(app.path())
        .env("HOME", home.path())
        .env_remove("XDG_DATA_HOME")
        .env_remove("SANDBOX_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the sandbox binary");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let started = stdout
        .lines()
        .map_while(Result::ok)
        .any(|line| line.starts_with("sandbox identity listening on "));
    let _ = child.kill();
    let _ = child.wait();
    assert!(started, "the sandbox did not start");
    let key = home
        .path()
        .join(".local/share/fundraising-sandbox/signing-key.pem");
    let mode = std::fs::metadata(&key)
        .expect("the key file")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = std::fs::metadata(key.parent().unwrap())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    assert_eq!(
        std::fs::read_dir(app.path()).unwrap().count(),
        0,
        "the sandbox wrote into the current folder"
    );
}
