//! BFF mode's proxy routing (`fundraising_companion::api_route`), on any request target.
//!
//! Input: one selector byte (method, `--api-url`, app id), then a request target, parsed as
//! hyper parses it before the router sees its path and query. Invariants:
//! - `route` gives one of the table's operations under `--api-url`, or nothing: the upstream
//!   URL has the API's scheme, host and port, no credentials and no fragment; its decoded
//!   path segments are exactly the API's own, the app id, `v1` and the operation's segments,
//!   the literal ones equal to the request's and each parameter the request's raw segment
//!   percent-decoded (non-empty, never `.`/`..`, no `/`, `\` or control character); the
//!   method and template are the operation's in the table; only an operation with query
//!   parameters (the pages listing) has a query; and the URL is sent as checked (it parses
//!   back to itself, and as an `http::Uri` with the same path).
//! - `allowed_location`, given the target as an upstream `Location`, passes only an address
//!   under `--api-url` (same scheme, host and port, no credentials, a path inside the API's).
#![no_main]

use fundraising_companion::api_route::{allowed_location, route, PREFIX};
use fundraising_core::operation::{Segment, CREATE_EVENT};
use http::{Method, Uri};
use libfuzzer_sys::fuzz_target;
use percent_encoding::percent_decode_str;
use url::Url;

const APIS: [&str; 4] = [
    "http://127.0.0.1:8081",
    "https://api.example/base/",
    "http://api.example:8443/a/b",
    "https://api.example/v?x=1#f",
];
const APP_IDS: [&str; 3] = ["demo-app", "my app", "a%2Fb/c"];

fn method(selector: u8) -> Method {
    match selector & 7 {
        0..=2 => Method::GET,
        3 | 4 => Method::POST,
        5 => Method::PUT,
        6 => Method::DELETE,
        _ => Method::HEAD,
    }
}

fn decoded(segment: &str) -> String {
    percent_decode_str(segment)
        .decode_utf8()
        .expect("the upstream path is UTF-8 once decoded")
        .into_owned()
}

/// The API's own path segments (a trailing empty one dropped).
fn base_segments(api: &Url) -> Vec<String> {
    let mut segments: Vec<String> = api.path_segments().expect("http").map(decoded).collect();
    if segments.last().is_some_and(String::is_empty) {
        segments.pop();
    }
    segments
}

fn same_origin(api: &Url, url: &Url) -> bool {
    url.scheme() == api.scheme()
        && url.host_str() == api.host_str()
        && url.port_or_known_default() == api.port_or_known_default()
        && url.username().is_empty()
        && url.password().is_none()
}

fn check_route(api: &Url, app_id: &str, method: &Method, path: &str, query: Option<&str>) {
    let Some(routed) = route(api, app_id, method, path, query) else {
        return;
    };
    let url = &routed.url;
    assert!(same_origin(api, url), "{url} is not on {api}");
    assert!(url.fragment().is_none(), "{url}");

    // The request's own segments below the prefix, raw.
    let raw: Vec<&str> = path
        .strip_prefix(PREFIX)
        .expect("only paths under the prefix are routed")
        .split('/')
        .collect();
    // What the request must have been: the operation's method and template, from the table.
    let operation = routed.operation;
    assert_eq!(
        method.as_str(),
        operation.method.as_str(),
        "{}",
        operation.name
    );
    let template: Vec<Segment> = operation.segments().collect();
    let optional_end = template.last() == Some(&Segment::Literal(""));
    assert!(
        raw.len() == template.len() || (optional_end && raw.len() + 1 == template.len()),
        "{path} -> {url}"
    );

    let mut expected = base_segments(api);
    expected.push(app_id.to_owned());
    expected.push("v1".to_owned());
    for (raw, segment) in raw.iter().zip(&template) {
        match segment {
            Segment::Literal(literal) => {
                assert_eq!(raw, literal, "{path}");
                expected.push((*literal).to_owned());
            }
            Segment::Param(_) => {
                let parameter = decoded(raw);
                assert!(
                    !parameter.is_empty()
                        && parameter != "."
                        && parameter != ".."
                        && !parameter
                            .chars()
                            .any(|c| c == '/' || c == '\\' || c.is_control()),
                    "parameter {parameter:?} of {path}"
                );
                expected.push(parameter);
            }
        }
    }
    let got: Vec<String> = url.path_segments().expect("http").map(decoded).collect();
    assert_eq!(got, expected, "{path} -> {url}");
    for segment in url.path_segments().expect("http") {
        let segment = decoded(segment);
        assert!(segment != "." && segment != "..", "a dot segment in {url}");
    }

    if operation.query.is_empty() {
        assert_eq!(url.query(), None, "{url}");
    } else {
        assert_eq!(url.query().is_some(), query.is_some(), "{url}");
    }
    // What is sent is what was checked.
    assert_eq!(&Url::parse(url.as_str()).expect("reparses"), url);
    let sent: Uri = url.as_str().parse().expect("an http::Uri");
    assert_eq!(sent.path(), url.path(), "{url}");
    assert_eq!(sent.query(), url.query(), "{url}");
}

fn decoded_lossy(segment: &str) -> String {
    percent_decode_str(segment).decode_utf8_lossy().into_owned()
}

fn check_location(api: &Url, app_id: &str, location: &str) {
    let create = format!("/api{}", CREATE_EVENT.path);
    let requested = route(api, app_id, &Method::POST, &create, None)
        .expect("creating an event is routed")
        .url;
    let Some(allowed) = allowed_location(api, &requested, location) else {
        return;
    };
    assert!(same_origin(api, &allowed), "{location:?} -> {allowed}");
    let base = base_segments(api);
    let got: Vec<String> = allowed
        .path_segments()
        .expect("http")
        .map(decoded_lossy)
        .collect();
    assert!(
        got.len() >= base.len() && got[..base.len()] == base[..],
        "{location:?} -> {allowed} is outside {api}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let api: Url = APIS[usize::from(selector >> 3) % APIS.len()]
        .parse()
        .expect("api url");
    let app_id = APP_IDS[usize::from(selector >> 5) % APP_IDS.len()];
    if let Ok(target) = text.parse::<Uri>() {
        check_route(
            &api,
            app_id,
            &method(selector),
            target.path(),
            target.query(),
        );
    }
    check_location(&api, app_id, text);
});
