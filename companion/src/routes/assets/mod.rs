//! The static files (demo site, `widget.js`, the package under `/pkg`): public, credential-free
//! assets that partner pages on any origin may embed, with safe headers, and a path guard
//! that keeps the file service from answering a redirect that leaves the site.
//!
//! What crosses the network is kept small: every text and wasm answer is compressed (brotli
//! when the browser accepts it, else gzip), from the `.br`/`.gz` files the package build
//! writes beside each file, or on the fly for files without them; the package's
//! content-hashed copies are cached for a year as `immutable`, everything else is revalidated.
//!
//! Only files inside the folder are served, each opened beneath the folder's directory handle
//! ([`folder`]): no symbolic link that leads out of it, no name starting with a dot (`.env`,
//! `.git/`), directly or through a link, no `.br`/`.gz` sibling of a file that is not there;
//! every answer carries the Content-Security-Policy, `HEAD` answers with the headers `GET`
//! would, and `Range` is read as RFC 9110 says ([`range`]).

use crate::config::{normalize_origin, Settings};
use axum::body::Body;
use axum::extract::{OriginalUri, Request, State};
use axum::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE,
    LOCATION, VARY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use folder::{Encoding, Lookup, Named};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{Any, CorsLayer};

mod answer;
mod cache;
mod folder;
mod range;

/// `Cross-Origin-Resource-Policy`.
const CORP: HeaderName = HeaderName::from_static("cross-origin-resource-policy");

/// CORS for the assets: any origin may read them, never with credentials (no cookie reaches
/// them: the session cookie is limited to `/auth`).
pub fn asset_cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::HEAD])
}

/// `Cache-Control` of a content-hashed copy: its name changes with its bytes, so a browser may
/// keep it for a year without asking again.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// `Cache-Control` of every other asset (pages, `widget.js`, the package's stable names, the
/// list of hashed names): cached, but revalidated (`Last-Modified`, then `304`) before each use,
/// so a new build reaches every visitor at once.
pub const REVALIDATE: &str = "no-cache";

/// Compression on the fly (brotli, else gzip; tower-http's default predicate: not images, not
/// tiny answers) for what has no precompressed sibling, such as the demo site's own files. An
/// answer already encoded (a precompressed file) passes untouched.
pub fn compression() -> CompressionLayer {
    CompressionLayer::new().no_deflate().no_zstd()
}

/// Whether `path` (the request's full path) names a content-hashed copy of a package file:
/// under `/pkg/`, a file name `stem.<16 lowercase hex digits>.ext`, as `scripts/build-pkg.sh`
/// names them (`fundraising_client_bg.3f0c5a1e6b7d4c3e.wasm`).
pub fn is_content_hashed(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/pkg/") else {
        return false;
    };
    let name = rest.rsplit('/').next().unwrap_or(rest);
    let mut parts = name.rsplit('.');
    let (Some(ext), Some(hash), Some(stem)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !ext.is_empty()
        && !stem.is_empty()
        && hash.len() == 16
        && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether a request path could make the file service answer a `Location` that leaves the
/// site, or names no file in a portable way: an empty segment (`//host/x` is a
/// protocol-relative address), a backslash (browsers read `/\\host` as `//host`), or an
/// encoded slash, backslash or percent sign.
pub fn is_ambiguous_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.contains("//")
        || lower.contains('\\')
        || lower.contains("%2f")
        || lower.contains("%5c")
        || lower.contains("%25")
}

/// Longest request path the file service looks at; longer is `414 URI Too Long`.
pub const MAX_PATH: usize = 2048;

/// The folder a file service serves, by its configured path (opened on each request, see
/// [`folder`]).
#[derive(Debug, Clone)]
pub struct Root {
    folder: Arc<PathBuf>,
    cache: cache::Cache,
}

impl Root {
    /// The root `folder` (while it does not exist, it serves nothing).
    pub fn new(folder: &Path) -> Self {
        Self {
            folder: Arc::new(folder.to_path_buf()),
            cache: cache::Cache::default(),
        }
    }
}

/// The encodings with a precompressed sibling that `Accept-Encoding` takes, best first
/// (brotli before gzip at equal weight; a weight of 0 refuses; `*` stands for any not named).
pub fn accepted_encodings(headers: &HeaderMap) -> Vec<Encoding> {
    let mut br = None;
    let mut gzip = None;
    let mut any = None;
    for value in headers.get_all(ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
            let mut weight = 1.0f32;
            for parameter in parts {
                if let Some((name, q)) = parameter.split_once('=') {
                    if name.trim().eq_ignore_ascii_case("q") {
                        weight = q.trim().parse().unwrap_or(0.0);
                    }
                }
            }
            match coding.as_str() {
                "br" => br = Some(weight),
                "gzip" | "x-gzip" => gzip = Some(weight),
                "*" => any = Some(weight),
                _ => {}
            }
        }
    }
    let mut encodings: Vec<(f32, Encoding)> = [(br, Encoding::Br), (gzip, Encoding::Gzip)]
        .into_iter()
        .filter_map(|(weight, encoding)| weight.or(any).filter(|w| *w > 0.0).map(|w| (w, encoding)))
        .collect();
    // A stable sort keeps brotli first among equals.
    encodings.sort_by(|a, b| b.0.total_cmp(&a.0));
    encodings.into_iter().map(|(_, e)| e).collect()
}

/// The file service of a folder: `GET` (and `HEAD`, through [`head_as_get`]) of a file found
/// beneath it ([`folder::lookup`]), answered by [`answer::answer`]. A path over [`MAX_PATH`]
/// is `414`; a path [`is_ambiguous_path`] flags, a hidden name, a link leading out of the
/// folder or to a hidden name, a missing file (whatever siblings it has) or an over-long
/// segment is `404`. A folder named without its slash is redirected to its full path
/// (`/pkg/light` to `/pkg/light/`), the query kept.
pub async fn serve_file(State(root): State<Root>, request: Request) -> Response {
    let original = request
        .extensions()
        .get::<OriginalUri>()
        .map(|u| u.0.clone())
        .unwrap_or_else(|| request.uri().clone());
    if original.path().len() > MAX_PATH {
        return StatusCode::URI_TOO_LONG.into_response();
    }
    let path = request.uri().path();
    if is_ambiguous_path(path) || is_ambiguous_path(original.path()) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let Some(named) = Named::parse(path) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let accepted = accepted_encodings(request.headers());
    let folder = root.folder.clone();
    let lookup_accepted = accepted.clone();
    let found =
        tokio::task::spawn_blocking(move || folder::lookup(&folder, &named, &lookup_accepted))
            .await
            .unwrap_or(Lookup::Missing);
    match found {
        Lookup::Found(found) => {
            answer::answer(*found, request.headers(), &accepted, &root.cache).await
        }
        Lookup::Folder => {
            let location = match original.query() {
                Some(query) => format!("{}/?{query}", original.path()),
                None => format!("{}/", original.path()),
            };
            match HeaderValue::from_str(&location) {
                Ok(location) => {
                    (StatusCode::TEMPORARY_REDIRECT, [(LOCATION, location)]).into_response()
                }
                Err(_) => StatusCode::NOT_FOUND.into_response(),
            }
        }
        Lookup::Missing => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Answers a `HEAD` as the `GET` of the same file, without its body: the same type,
/// encoding, length (when known) and caching headers.
pub async fn head_as_get(mut request: Request, next: Next) -> Response {
    if request.method() != Method::HEAD {
        return next.run(request).await;
    }
    *request.method_mut() = Method::GET;
    let (parts, _body) = next.run(request).await.into_parts();
    Response::from_parts(parts, Body::empty())
}

/// The headers every asset answer carries, built once from the settings.
#[derive(Debug, Clone)]
pub struct AssetHeaders {
    csp: HeaderValue,
}

impl AssetHeaders {
    /// The headers for `settings` (the CSP names the configured addresses).
    pub fn new(settings: &Settings) -> Arc<Self> {
        let csp = content_security_policy(settings);
        Arc::new(Self {
            csp: HeaderValue::from_str(&csp)
                .unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'")),
        })
    }
}

/// The demo site's Content-Security-Policy: scripts only from the site (and WebAssembly
/// compilation for the package), no inline script or style, connections to the site, the
/// identity server and the resource API (any http(s) address when `--api-url` is not given).
pub fn content_security_policy(settings: &Settings) -> String {
    let connect = match &settings.api_url {
        Some(api) => {
            let mut sources = vec!["'self'".to_owned(), settings.public_origin.clone()];
            for url in [&settings.auth_url, api] {
                if let Ok(origin) = normalize_origin(url.as_str()) {
                    if !sources.contains(&origin) {
                        sources.push(origin);
                    }
                }
            }
            sources.join(" ")
        }
        None => "'self' http: https:".to_owned(),
    };
    [
        "default-src 'self'".to_owned(),
        "script-src 'self' 'wasm-unsafe-eval'".to_owned(),
        "style-src 'self'".to_owned(),
        "img-src 'self' data: http: https:".to_owned(),
        format!("connect-src {connect}"),
        "object-src 'none'".to_owned(),
        "base-uri 'self'".to_owned(),
        "form-action 'self'".to_owned(),
        "frame-ancestors 'none'".to_owned(),
    ]
    .join("; ")
}

/// Adds to every asset answer `X-Content-Type-Options: nosniff`,
/// `Cross-Origin-Resource-Policy: cross-origin`, `Vary: Accept-Encoding`, the
/// Content-Security-Policy and `X-Frame-Options: DENY` (whatever the type: an SVG or XHTML
/// file opened as a page runs no inline script), and a `Cache-Control`: [`IMMUTABLE`] for a
/// content-hashed copy that was found ([`is_content_hashed`]), else [`REVALIDATE`];
/// JavaScript as `text/javascript`. A `416` (a range the file does not have) carries no
/// `Content-Encoding`: it has no body to decode.
pub async fn asset_headers(
    State(headers): State<Arc<AssetHeaders>>,
    request: Request,
    next: Next,
) -> Response {
    let javascript = {
        let path = request.uri().path();
        path.ends_with(".js") || path.ends_with(".mjs")
    };
    let hashed = {
        let path = request
            .extensions()
            .get::<OriginalUri>()
            .map_or(request.uri().path(), |u| u.0.path());
        is_content_hashed(path)
    };
    let mut response = next.run(request).await;
    let found = response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED;
    let unsatisfiable = response.status() == StatusCode::RANGE_NOT_SATISFIABLE;
    let out = response.headers_mut();
    if unsatisfiable {
        out.remove(CONTENT_ENCODING);
    }
    out.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    out.insert(CORP, HeaderValue::from_static("cross-origin"));
    let cache = if hashed && found {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    out.entry(CACHE_CONTROL)
        .or_insert(HeaderValue::from_static(cache));
    // The answer depends on Accept-Encoding (a precompressed file carries no Vary of its own).
    let varies = out.get_all(VARY).iter().any(|v| {
        v.to_str().is_ok_and(|v| {
            v.split(',')
                .any(|n| n.trim().eq_ignore_ascii_case(ACCEPT_ENCODING.as_str()))
        })
    });
    if !varies {
        out.append(VARY, HeaderValue::from_static("accept-encoding"));
    }
    if javascript && out.contains_key(CONTENT_TYPE) {
        out.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/javascript; charset=utf-8"),
        );
    }
    out.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    out.insert(CONTENT_SECURITY_POLICY, headers.csp.clone());
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;

    #[test]
    fn ambiguous_paths() {
        for path in [
            "//config",
            "//evil.example/x",
            "/\\evil",
            "/%5Cevil",
            "/%2F%2Fevil.example",
            "/%2fevil",
            "/a//b",
            "/%252F%252Fevil",
        ] {
            assert!(is_ambiguous_path(path), "{path}");
        }
        for path in [
            "/",
            "/index.html",
            "/pkg/fundraising_client_bg.wasm",
            "/config/",
        ] {
            assert!(!is_ambiguous_path(path), "{path}");
        }
    }

    #[test]
    fn content_hashed_names() {
        for path in [
            "/pkg/fundraising_client_bg.3f0c5a1e6b7d4c3e.wasm",
            "/pkg/light/fundraising_client.0123456789abcdef.js",
            "/pkg/h/error.ffffffffffffffff.js",
        ] {
            assert!(is_content_hashed(path), "{path}");
        }
        for path in [
            "/pkg/fundraising_client_bg.wasm",
            "/pkg/fundraising_client.js",
            "/pkg/assets.js",
            "/widget.js",
            "/fundraising_client.3f0c5a1e6b7d4c3e.js",
            "/pkg/fundraising_client.3F0C5A1E6B7D4C3E.js",
            "/pkg/fundraising_client.3f0c5a1e6b7d4c3.js",
            "/pkg/fundraising_client.3f0c5a1e6b7d4c3e0.js",
            "/pkg/.3f0c5a1e6b7d4c3e.js",
            "/pkg/name.3f0c5a1e6b7d4c3e.",
            "/pkg/3f0c5a1e6b7d4c3e.js",
        ] {
            assert!(!is_content_hashed(path), "{path}");
        }
    }

    #[test]
    fn the_csp_allows_the_package_and_no_inline_code() {
        let mut settings = Settings::new(
            "demo-app",
            Secret::new("s"),
            "http://127.0.0.1:8082".parse().unwrap(),
            "http://127.0.0.1:8080",
        )
        .unwrap();
        let generic = content_security_policy(&settings);
        assert!(
            generic.contains("script-src 'self' 'wasm-unsafe-eval';"),
            "{generic}"
        );
        assert!(
            generic.contains("connect-src 'self' http: https:;"),
            "{generic}"
        );
        assert!(!generic.contains("unsafe-inline") && !generic.contains("'unsafe-eval'"));
        settings.api_url = Some("http://127.0.0.1:8081/".parse().unwrap());
        let narrow = content_security_policy(&settings);
        assert!(
            narrow.contains(
                "connect-src 'self' http://127.0.0.1:8080 http://127.0.0.1:8082 http://127.0.0.1:8081;"
            ),
            "{narrow}"
        );
    }
}
