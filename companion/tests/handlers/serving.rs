//! Health, CORS and static files.

use crate::common::*;

#[tokio::test]
async fn healthz_answers_ok_without_the_identity_server() {
    let companion = start_companion(settings("http://127.0.0.1:9")).await;
    let reply = get(&companion, "/healthz", None).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json(), serde_json::json!({"status": "ok"}));
}

#[tokio::test]
async fn cors_allows_listed_origins_with_credentials_and_the_csrf_header() {
    let companion = start_companion(settings("http://127.0.0.1:9")).await;
    let preflight = |origin: &'static str| {
        client()
            .request(
                reqwest::Method::OPTIONS,
                format!("{}/auth/token", companion.url),
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
            .get(format!("{}/auth/session", companion.url))
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
        .get(format!("{}/pkg/fundraising_client_bg.wasm", companion.url))
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
        .get(format!("{}/pkg/fundraising_client_bg.wasm", companion.url))
        .send()
        .await
        .unwrap();
    assert_eq!(wasm.status(), 200);
    assert_eq!(wasm.headers()["content-type"], "application/wasm");
}
