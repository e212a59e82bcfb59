//! Health, CORS and static files.

use crate::common::*;

#[tokio::test]
async fn healthz_answers_ok_and_the_version_without_the_identity_server() {
    let companion = start_companion(settings("http://127.0.0.1:9")).await;
    let reply = get(&companion, "/healthz", None).await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.json(),
        serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")})
    );
}

#[tokio::test]
async fn cors_allows_listed_origins_with_credentials_and_the_csrf_header() {
    let companion = start_companion(settings("http://127.0.0.1:9")).await;
    let preflight = |origin: &'static str| {
        client()
            .request(
                reqwest::Method::OPTIONS,
                format!("{}/auth/token", companion.url()),
            )
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "content-type,x-fundraising-client",
            )
            .send()
    };
    let ok = Reply::from(preflight(ORIGIN).await.unwrap()).await;
    assert!(ok.status < 300, "{}", ok.status);
    assert_eq!(
        ok.header("access-control-allow-origin").as_deref(),
        Some(ORIGIN)
    );
    assert_eq!(
        ok.header("access-control-allow-credentials").as_deref(),
        Some("true")
    );
    let headers = ok
        .header("access-control-allow-headers")
        .unwrap()
        .to_lowercase();
    assert!(
        headers.contains("x-fundraising-client") && headers.contains("content-type"),
        "{headers}"
    );
    assert!(ok
        .header("access-control-allow-methods")
        .unwrap()
        .contains("POST"));

    let evil = Reply::from(preflight("http://evil.example").await.unwrap()).await;
    assert!(evil.header("access-control-allow-origin").is_none());

    // Actual answers carry the CORS headers for allowed origins only.
    let answer = Reply::from(
        client()
            .get(format!("{}/auth/session", companion.url()))
            .header("origin", ORIGIN)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        answer.header("access-control-allow-origin").as_deref(),
        Some(ORIGIN)
    );
    assert_eq!(
        answer.header("access-control-allow-credentials").as_deref(),
        Some("true")
    );
}

#[tokio::test]
async fn the_site_and_the_package_are_served_with_the_right_types() {
    let site = tempfile::tempdir().unwrap();
    let pkg = tempfile::tempdir().unwrap();
    std::fs::write(
        site.path().join("index.html"),
        "<!doctype html><title>demo</title>",
    )
    .unwrap();
    std::fs::write(site.path().join("app.js"), "export const x = 1;").unwrap();
    std::fs::write(
        pkg.path().join("fundraising_client.js"),
        "export default 1;",
    )
    .unwrap();
    std::fs::write(
        pkg.path().join("fundraising_client_bg.wasm"),
        b"\0asm\x01\0\0\0",
    )
    .unwrap();
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(site.path().to_path_buf());
    s.pkg_dir = Some(pkg.path().to_path_buf());
    let companion = start_companion(s).await;

    let home = get(&companion, "/?code=abc&state=xyz", None).await;
    assert_eq!(home.status, 200);
    assert!(home.body.contains("<title>demo</title>"));
    assert!(home
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    let js = get(&companion, "/pkg/fundraising_client.js", None).await;
    assert_eq!(js.status, 200);
    assert!(
        js.header("content-type").unwrap().contains("javascript"),
        "{:?}",
        js.header("content-type")
    );
    let wasm = client()
        .get(format!(
            "{}/pkg/fundraising_client_bg.wasm",
            companion.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(wasm.status(), 200);
    assert_eq!(wasm.headers()["content-type"], "application/wasm");
    assert_eq!(wasm.bytes().await.unwrap().as_ref(), b"\0asm\x01\0\0\0");
    assert_eq!(get(&companion, "/app.js", None).await.status, 200);
    assert_eq!(get(&companion, "/missing.js", None).await.status, 404);
    assert_eq!(get(&companion, "/../Cargo.toml", None).await.status, 404);
    // The auth routes win over the static folder.
    assert_eq!(
        get(&companion, "/healthz", None).await.json()["status"],
        "ok"
    );
}

#[tokio::test]
async fn a_pkg_folder_inside_the_static_folder_is_served_too() {
    let site = tempfile::tempdir().unwrap();
    std::fs::create_dir(site.path().join("pkg")).unwrap();
    std::fs::write(
        site.path().join("pkg/fundraising_client_bg.wasm"),
        b"\0asm\x01\0\0\0",
    )
    .unwrap();
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(site.path().to_path_buf());
    let companion = start_companion(s).await;
    let wasm = client()
        .get(format!(
            "{}/pkg/fundraising_client_bg.wasm",
            companion.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(wasm.status(), 200);
    assert_eq!(wasm.headers()["content-type"], "application/wasm");
}

/// A companion serving a small site (with a `config/` folder, as the demo has) and a package.
async fn site_companion() -> (Companion, tempfile::TempDir, tempfile::TempDir) {
    let site = tempfile::tempdir().unwrap();
    let pkg = tempfile::tempdir().unwrap();
    std::fs::write(
        site.path().join("index.html"),
        "<!doctype html><title>demo</title>",
    )
    .unwrap();
    std::fs::write(site.path().join("widget.js"), "export const x = 1;").unwrap();
    std::fs::write(site.path().join("styles.css"), "body{}").unwrap();
    std::fs::create_dir(site.path().join("config")).unwrap();
    std::fs::write(site.path().join("config/a.json"), "{}").unwrap();
    std::fs::write(
        pkg.path().join("fundraising_client.js"),
        "export default 1;",
    )
    .unwrap();
    std::fs::write(
        pkg.path().join("fundraising_client_bg.wasm"),
        b"\0asm\x01\0\0\0",
    )
    .unwrap();
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(site.path().to_path_buf());
    s.pkg_dir = Some(pkg.path().to_path_buf());
    (start_companion(s).await, site, pkg)
}

/// Sends `GET {path}` as raw bytes (no client normalises the path) and returns the status
/// and the `Location` header.
async fn raw_get(companion: &Companion, path: &str) -> (u16, Option<String>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(companion.addr())
        .await
        .unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        companion.addr()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_to_end(&mut answer),
    )
    .await
    .expect("answered in time")
    .unwrap();
    let text = String::from_utf8_lossy(&answer);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let location = text.lines().take_while(|l| !l.is_empty()).find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("location")
            .then(|| value.trim().to_owned())
    });
    (status, location)
}

#[tokio::test]
async fn static_paths_never_redirect_off_the_site() {
    let (companion, _site, _pkg) = site_companion().await;
    for path in [
        "//config",
        "//config/",
        "//evil.example/x",
        "//evil.example",
        "/\\evil.example",
        "/\\evil.example/config",
        "/%5Cevil.example",
        "/%5cevil.example",
        "/%2F%2Fevil.example",
        "/%2fconfig",
        "/pkg//evil.example",
        "/config//",
    ] {
        let (status, location) = raw_get(&companion, path).await;
        assert_eq!(status, 404, "{path}: {location:?}");
        assert!(location.is_none(), "{path}: {location:?}");
    }
    // A folder without its slash still redirects, to a path of this site.
    let (status, location) = raw_get(&companion, "/config").await;
    assert!((300..400).contains(&status), "{status}");
    assert_eq!(location.as_deref(), Some("/config/"));
    assert_eq!(raw_get(&companion, "/config/a.json").await.0, 200);
}

#[tokio::test]
async fn public_assets_are_embeddable_from_any_origin_and_auth_keeps_its_allowlist() {
    let (companion, _site, _pkg) = site_companion().await;
    let foreign = "http://partner.example";
    let fetch = |path: &str| {
        client()
            .get(format!("{}{path}", companion.url()))
            .header("origin", foreign)
            .send()
    };
    for (path, content_type) in [
        ("/widget.js", "text/javascript"),
        ("/pkg/fundraising_client.js", "text/javascript"),
        ("/pkg/fundraising_client_bg.wasm", "application/wasm"),
        ("/styles.css", "text/css"),
    ] {
        let reply = Reply::from(fetch(path).await.unwrap()).await;
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(
            reply.header("access-control-allow-origin").as_deref(),
            Some("*"),
            "{path}"
        );
        assert!(
            reply.header("access-control-allow-credentials").is_none(),
            "{path}"
        );
        assert_eq!(
            reply.header("cross-origin-resource-policy").as_deref(),
            Some("cross-origin"),
            "{path}"
        );
        assert_eq!(
            reply.header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{path}"
        );
        let ct = reply.header("content-type").unwrap();
        assert_eq!(ct.split(';').next(), Some(content_type), "{path}: {ct}");
        // Cache validators: a conditional request with the validator is answered 304.
        let modified = reply.header("last-modified").expect("Last-Modified");
        let again = Reply::from(
            client()
                .get(format!("{}{path}", companion.url()))
                .header("origin", foreign)
                .header("if-modified-since", &modified)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty());
    }
    // A module-script preflight (if a browser sends one) is granted without credentials.
    let preflight = Reply::from(
        client()
            .request(
                reqwest::Method::OPTIONS,
                format!("{}/pkg/fundraising_client_bg.wasm", companion.url()),
            )
            .header("origin", foreign)
            .header("access-control-request-method", "GET")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        preflight.header("access-control-allow-origin").as_deref(),
        Some("*")
    );
    assert!(preflight
        .header("access-control-allow-credentials")
        .is_none());

    // The auth endpoints grant nothing to that origin, and keep credentials for the allowed.
    for path in ["/auth/session", "/healthz"] {
        let reply = Reply::from(fetch(path).await.unwrap()).await;
        assert!(
            reply.header("access-control-allow-origin").is_none(),
            "{path}"
        );
    }
    let evil = Reply::from(
        client()
            .request(
                reqwest::Method::OPTIONS,
                format!("{}/auth/token", companion.url()),
            )
            .header("origin", foreign)
            .header("access-control-request-method", "POST")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(evil.header("access-control-allow-origin").is_none());
    let own = Reply::from(
        client()
            .get(format!("{}/auth/session", companion.url()))
            .header("origin", ORIGIN)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        own.header("access-control-allow-origin").as_deref(),
        Some(ORIGIN)
    );
    assert_eq!(
        own.header("access-control-allow-credentials").as_deref(),
        Some("true")
    );
}

#[tokio::test]
async fn pages_carry_a_csp_that_allows_the_package_and_no_inline_code() {
    let (companion, _site, _pkg) = site_companion().await;
    let page = get(&companion, "/", None).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.header("x-frame-options").as_deref(), Some("DENY"));
    assert_eq!(
        page.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );
    let csp = page
        .header("content-security-policy")
        .expect("a Content-Security-Policy");
    let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
    assert!(
        directives.contains(&"script-src 'self' 'wasm-unsafe-eval'"),
        "{csp}"
    );
    assert!(directives.contains(&"default-src 'self'"), "{csp}");
    assert!(directives.contains(&"frame-ancestors 'none'"), "{csp}");
    assert!(
        directives
            .iter()
            .any(|d| d.starts_with("connect-src 'self'")),
        "{csp}"
    );
    assert!(
        !csp.contains("'unsafe-inline'") && !csp.contains("'unsafe-eval'"),
        "{csp}"
    );
    // Scripts carry it too: a worker started from one runs under it.
    let js = get(&companion, "/widget.js", None).await;
    assert_eq!(
        js.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );
    assert_eq!(js.header("content-security-policy"), Some(csp));
}
