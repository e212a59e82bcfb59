//! BFF mode's routing, as pure functions: which upstream address a proxied request goes to
//! (one of the resource operations of [`fundraising_core::operation::OPERATIONS`] under
//! `--api-url`, or none), and which `Location` of an upstream answer may go back to the page
//! (only one under `--api-url`).
//!
//! The proxy (`/api/...`) calls these and nothing else decides where a request goes; the fuzz
//! target `proxy_route` checks their invariants on arbitrary requests.

use axum::http::Method;
use fundraising_core::operation::{self, Operation, Segment};
use percent_encoding::percent_decode_str;
use url::Url;

/// Where the proxy is mounted: a request path must start with this to be forwarded.
pub const PREFIX: &str = "/api/";

/// A request the proxy forwards: its operation and the upstream address.
#[derive(Debug, Clone)]
pub struct Route {
    /// Which operation of the table it is.
    pub operation: &'static Operation,
    /// `{api_url}/{app_id}/v1/...`, with the query only for an operation that takes one.
    pub url: Url,
}

/// A path parameter as the upstream will see it: percent-decoded, non-empty, no `/` or `\`
/// (no encoded slash smuggles a segment), not `.` or `..` (no traversal), no control
/// characters, valid UTF-8.
pub fn parameter(raw: &str) -> Option<String> {
    let value = percent_decode_str(raw).decode_utf8().ok()?;
    let bad = value.is_empty()
        || value == "."
        || value == ".."
        || value
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control());
    (!bad).then(|| value.into_owned())
}

/// The operation of `method` and `below` (the path after [`PREFIX`]) and the upstream's path
/// segments below `{app_id}/v1/`: the request's own, each parameter decoded by [`parameter`]
/// (a template's optional trailing `/` kept as the request had it). `None` otherwise.
fn operation(method: &Method, below: &str) -> Option<(&'static Operation, Vec<String>)> {
    let path = ["/", below].concat();
    let (found, _) = operation::find(method.as_str(), &path)?;
    let segments = found
        .segments()
        .zip(below.split('/'))
        .map(|(template, given)| match template {
            Segment::Literal(_) => Some(given.to_owned()),
            Segment::Param(_) => parameter(given),
        })
        .collect::<Option<Vec<String>>>()?;
    Some((found, segments))
}

/// The upstream address of a proxied request: `method`, the request's `path` (raw, as
/// received, starting with [`PREFIX`]) and `query` (raw) map to one of the operations under
/// `{api_url}/{app_id}/v1/`, or to `None` (the proxy answers `404 not_found`). Only an
/// operation with query parameters (the pages listing) carries the query; `api_url`'s own
/// query and fragment are dropped.
pub fn route(
    api_url: &Url,
    app_id: &str,
    method: &Method,
    path: &str,
    query: Option<&str>,
) -> Option<Route> {
    let below = path.strip_prefix(PREFIX)?;
    let (operation, segments) = operation(method, below)?;
    let mut url = api_url.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.path_segments_mut()
        .ok()?
        .pop_if_empty()
        .push(app_id)
        .push("v1")
        .extend(&segments);
    if !operation.query.is_empty() {
        url.set_query(query);
    }
    Some(Route { operation, url })
}

/// The operations the proxy forwards, as its 404 names them: each one's method and path
/// template below `/api`, from the table, in its order.
pub fn forwarded() -> String {
    operation::OPERATIONS
        .iter()
        .map(|o| format!("{} {}", o.method.as_str(), &o.path[1..]))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `url` lies under `api_url`: same scheme, host and port, no credentials, and a path
/// inside `api_url`'s path (segment-wise: `/base` covers `/base/x`, never `/basement`).
pub fn under(api_url: &Url, url: &Url) -> bool {
    let base = api_url.path().trim_end_matches('/');
    let path = url.path();
    url.scheme() == api_url.scheme()
        && url.host() == api_url.host()
        && url.port_or_known_default() == api_url.port_or_known_default()
        && url.username().is_empty()
        && url.password().is_none()
        && (base.is_empty() || path == base || path.starts_with(&format!("{base}/")))
}

/// The `Location` a proxied answer may carry: the upstream's `location`, resolved against the
/// address the request went to (`requested`), when it lies under `api_url` (see [`under`]);
/// anything else (another host, a scheme change, an unparsable value) is dropped (`None`).
pub fn allowed_location(api_url: &Url, requested: &Url, location: &str) -> Option<Url> {
    let resolved = requested.join(location).ok()?;
    under(api_url, &resolved).then_some(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api() -> Url {
        "http://127.0.0.1:8081".parse().unwrap()
    }

    fn url_of(method: Method, path: &str, query: Option<&str>) -> Option<String> {
        route(&api(), "demo-app", &method, path, query).map(|r| r.url.to_string())
    }

    #[test]
    fn only_the_operations_of_the_table_are_routed() {
        assert_eq!(
            url_of(
                Method::GET,
                "/api/campaign/byshortname/demo%20campaign",
                Some("x=1")
            ),
            Some("http://127.0.0.1:8081/demo-app/v1/campaign/byshortname/demo%20campaign".into())
        );
        assert_eq!(
            url_of(Method::GET, "/api/donation/ref/50%25%3Fx%23y", None),
            Some("http://127.0.0.1:8081/demo-app/v1/donation/ref/50%25%3Fx%23y".into()),
            "a decoded parameter is encoded again, so it stays one segment"
        );
        assert_eq!(
            url_of(Method::POST, "/api/event/", None),
            Some("http://127.0.0.1:8081/demo-app/v1/event/".into())
        );
        assert_eq!(
            url_of(Method::POST, "/api/event", Some("a=b")),
            Some("http://127.0.0.1:8081/demo-app/v1/event".into())
        );
        assert_eq!(
            url_of(
                Method::GET,
                "/api/event/1001/pages",
                Some("page=2&pagesize=100")
            ),
            Some("http://127.0.0.1:8081/demo-app/v1/event/1001/pages?page=2&pagesize=100".into())
        );
        for (method, path) in [
            (Method::POST, "/api/campaign/byshortname/x"),
            (Method::GET, "/api/event"),
            (Method::DELETE, "/api/donation/ref/x"),
            (Method::GET, "/api/campaign/byshortname"),
            (Method::GET, "/api/campaign/byshortname/"),
            (Method::GET, "/api/campaign/byshortname/x/y"),
            (Method::GET, "/api/donation/ref/.."),
            (Method::GET, "/api/donation/ref/%2e%2e"),
            (Method::GET, "/api/donation/ref/a%2Fb"),
            (Method::GET, "/api/donation/ref/a%5cb"),
            (Method::GET, "/api/donation/ref/a%00b"),
            (Method::GET, "/api/donation/ref/%ff"),
            (Method::GET, "/api/event/../pages"),
            (Method::GET, "/api/account"),
            (Method::GET, "/api/"),
            (Method::GET, "/api"),
            (Method::GET, "/campaign/byshortname/x"),
        ] {
            assert_eq!(url_of(method.clone(), path, None), None, "{method} {path}");
        }
    }

    #[test]
    fn a_base_path_app_id_and_api_query_are_handled() {
        let api: Url = "https://api.example/base/?k=v#f".parse().unwrap();
        let r = route(
            &api,
            "my app",
            &Method::GET,
            "/api/donation/ref/r",
            Some("q"),
        )
        .unwrap();
        assert_eq!(r.operation.id, operation::OperationId::Donation);
        assert_eq!(
            r.url.as_str(),
            "https://api.example/base/my%20app/v1/donation/ref/r"
        );
    }

    #[test]
    fn only_locations_under_the_api_pass() {
        let api: Url = "http://127.0.0.1:8081/base".parse().unwrap();
        let requested: Url = "http://127.0.0.1:8081/base/demo-app/v1/event/"
            .parse()
            .unwrap();
        let allowed = |l: &str| allowed_location(&api, &requested, l).map(|u| u.to_string());
        assert_eq!(
            allowed("http://127.0.0.1:8081/base/demo-app/v1/event/7"),
            Some("http://127.0.0.1:8081/base/demo-app/v1/event/7".into())
        );
        assert_eq!(
            allowed("7"),
            Some("http://127.0.0.1:8081/base/demo-app/v1/event/7".into()),
            "resolved against the upstream address"
        );
        assert_eq!(allowed("/base"), Some("http://127.0.0.1:8081/base".into()));
        for foreign in [
            "http://evil.example/x",
            "//evil.example/x",
            "https://127.0.0.1:8081/base/x",
            "http://127.0.0.1:8082/base/x",
            "http://user:pw@127.0.0.1:8081/base/x",
            "/basement",
            "/other",
            "/base/../other",
            "javascript:alert(1)",
            "http://[::1",
        ] {
            assert_eq!(allowed(foreign), None, "{foreign}");
        }
        let root: Url = "http://127.0.0.1:8081".parse().unwrap();
        assert!(allowed_location(&root, &requested, "/anything").is_some());
        assert!(allowed_location(&root, &requested, "http://127.0.0.1:8081/x").is_some());
        assert!(allowed_location(&root, &requested, "http://127.0.0.1/x").is_none());
    }
}
