//! The browsers' way to `wasm-bindgen-test-runner`'s test page: an HTTP proxy that sends each
//! request upstream on a connection of its own, closed after the answer, and the
//! `webdriver.json` that points Chromium and Firefox at it.
//!
//! The runner serves its page with tiny_http 0.12, whose pool starts four threads and adds one
//! only when none is waiting; it counts a thread woken but not yet at work as waiting. A page
//! that fetches five or more modules at once (the bindings' JS snippets of a UI framework and
//! of this client) leaves a connection queued with no thread to read it, while the four sit on
//! the browser's idle keep-alive connections: Chromium keeps them 300 s, and chromedriver gives
//! up on the page after its 300 s load timeout. Through this proxy the browser's connections
//! stay alive, but every tiny_http thread is free again as soon as its file is sent.
//!
//! Only `http://` addresses go through it (`https` is left to the browser), and the sandbox's
//! own servers are reached directly.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{self, HeaderName, HeaderValue};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper_util::rt::TokioIo;
use serde_json::{json, Map, Value};
use tokio::net::{TcpListener, TcpStream};

use crate::error::{Result, SandboxError};

/// Headers of one hop, never forwarded (RFC 9110 §7.6.1, and the proxy's own).
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Binds the proxy on a free loopback port; serve it with [`app`].
pub(super) async fn bind() -> Result<TcpListener> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .map_err(|e| {
            SandboxError::Exec(format!(
                "cannot listen on 127.0.0.1 for the test runner's proxy: {e}"
            ))
        })
}

/// The proxy: every request, whatever its path, is forwarded.
pub(super) fn app() -> Router {
    Router::new().fallback(forward)
}

async fn forward(request: Request) -> Response {
    match relay(request).await {
        Ok(response) => response,
        Err((status, why)) => (status, why).into_response(),
    }
}

async fn relay(request: Request) -> std::result::Result<Response, (StatusCode, String)> {
    // A proxy is sent the absolute form (http://host:port/path); the server wants the path.
    let uri = request.uri();
    let (Some("http"), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err((
            StatusCode::BAD_REQUEST,
            format!("a proxy request names an http:// address, not {uri}"),
        ));
    };
    let target = format!(
        "{}:{}",
        authority.host(),
        authority.port_u16().unwrap_or(80)
    );
    let path = uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .parse::<Uri>()
        .map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))?;
    let upstream = TcpStream::connect(&target).await.map_err(|e| {
        (
            StatusCode::BAD_GATEWAY,
            format!("cannot reach {target}: {e}"),
        )
    })?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(upstream))
        .await
        .map_err(|e| (StatusCode::BAD_GATEWAY, format!("{target}: {e}")))?;
    tokio::spawn(connection);

    let (mut parts, body) = request.into_parts();
    parts.uri = path;
    strip_hop_by_hop(&mut parts.headers);
    parts
        .headers
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    let answer = sender
        .send_request(Request::from_parts(parts, body))
        .await
        .map_err(|e| (StatusCode::BAD_GATEWAY, format!("{target}: {e}")))?;
    let (mut parts, body) = answer.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    Ok(Response::from_parts(parts, Body::new(body)))
}

fn strip_hop_by_hop(headers: &mut axum::http::HeaderMap) {
    for name in HOP_BY_HOP {
        headers.remove(HeaderName::from_static(name));
    }
}

/// The runner's browser capabilities: `user`'s (the `webdriver.json` the runner would have
/// read), with Chromium's and Firefox's `http://` traffic sent through the proxy at `proxy`,
/// but for `direct` (host:port each), unless the user's already set a proxy.
pub(super) fn webdriver_json(proxy: SocketAddr, direct: &[String], user: Option<Value>) -> Value {
    let mut capabilities = match user {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let chrome = object(&mut capabilities, "goog:chromeOptions");
    let args = chrome.entry("args").or_insert_with(|| json!([]));
    if let Value::Array(args) = args {
        let set = |a: &Value| {
            a.as_str()
                .is_some_and(|a| a.trim_start_matches('-').starts_with("proxy-"))
        };
        if !args.iter().any(set) {
            let bypass = std::iter::once("<-loopback>".to_owned())
                .chain(direct.iter().cloned())
                .collect::<Vec<_>>()
                .join(";");
            args.push(json!(format!("proxy-server=http={proxy}")));
            args.push(json!(format!("proxy-bypass-list={bypass}")));
        }
    }
    let firefox = object(&mut capabilities, "moz:firefoxOptions");
    if let Value::Object(prefs) = firefox.entry("prefs").or_insert_with(|| json!({})) {
        if !prefs.keys().any(|k| k.starts_with("network.proxy.")) {
            prefs.insert("network.proxy.type".into(), json!(1));
            prefs.insert("network.proxy.http".into(), json!(proxy.ip().to_string()));
            prefs.insert("network.proxy.http_port".into(), json!(proxy.port()));
            prefs.insert(
                "network.proxy.no_proxies_on".into(),
                json!(direct.join(", ")),
            );
            prefs.insert(
                "network.proxy.allow_hijacking_localhost".into(),
                json!(true),
            );
        }
    }
    Value::Object(capabilities)
}

/// `map[key]` as an object, made one if it is absent or something else.
fn object<'a>(map: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let entry = map.entry(key).or_insert_with(|| json!({}));
    if !entry.is_object() {
        *entry = json!({});
    }
    entry.as_object_mut().expect("made an object above")
}

/// The `webdriver.json` the runner would read without exec: `WASM_BINDGEN_TEST_WEBDRIVER_JSON`,
/// else `webdriver.json` in the working folder. `Ok(None)` when there is none; `Err` with why
/// when it cannot be read or is not JSON (the runner, reading it itself, will say so too).
pub(super) fn users_webdriver_json() -> std::result::Result<Option<Value>, String> {
    let path = std::env::var_os("WASM_BINDGEN_TEST_WEBDRIVER_JSON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new("webdriver.json").to_path_buf());
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxy() -> SocketAddr {
        "127.0.0.1:4000".parse().unwrap()
    }

    #[test]
    fn chromium_and_firefox_send_http_through_the_proxy_but_for_the_servers() {
        let direct = ["127.0.0.1:81".to_owned(), "127.0.0.1:82".to_owned()];
        let caps = webdriver_json(proxy(), &direct, None);
        assert_eq!(
            caps["goog:chromeOptions"]["args"],
            json!([
                "proxy-server=http=127.0.0.1:4000",
                "proxy-bypass-list=<-loopback>;127.0.0.1:81;127.0.0.1:82"
            ])
        );
        let prefs = &caps["moz:firefoxOptions"]["prefs"];
        assert_eq!(prefs["network.proxy.http_port"], 4000);
        assert_eq!(
            prefs["network.proxy.no_proxies_on"],
            "127.0.0.1:81, 127.0.0.1:82"
        );
        assert_eq!(prefs["network.proxy.allow_hijacking_localhost"], true);
    }

    #[test]
    fn the_users_capabilities_are_kept_and_their_own_proxy_wins() {
        let user = json!({
            "goog:chromeOptions": {"args": ["--proxy-server=http://10.0.0.1:3128", "window-size=800,600"]},
            "moz:firefoxOptions": {"prefs": {"intl.accept_languages": "cy"}},
            "acceptInsecureCerts": true,
        });
        let caps = webdriver_json(proxy(), &[], Some(user));
        assert_eq!(
            caps["goog:chromeOptions"]["args"],
            json!(["--proxy-server=http://10.0.0.1:3128", "window-size=800,600"])
        );
        assert_eq!(caps["acceptInsecureCerts"], true);
        let prefs = &caps["moz:firefoxOptions"]["prefs"];
        assert_eq!(prefs["intl.accept_languages"], "cy");
        assert_eq!(prefs["network.proxy.http"], "127.0.0.1");
    }
}
