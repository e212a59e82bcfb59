//! The resource operations of the service, each defined once: its method, path template, path
//! and query parameters with their rules, request body and answer models, what its statuses
//! mean, whether it may be retried, and the client's Cargo feature that holds it.
//!
//! Every part reads this table and none spells a path of its own: the client builds its
//! requests with [`Operation::path_with`] and [`Operation::query_with`], the companion's BFF
//! proxy and the sandbox's faults find a request's operation with [`find`], the sandbox mounts
//! its routes at [`Operation::routes`], and the JS package's early requests and the docs'
//! endpoint tables come from [`OPERATIONS`].
//!
//! Paths are below the service's prefix [`PREFIX`] (`/{appId}/v1`), so the same table serves a
//! path under `{base_url}` and one under a BFF companion's `/api`.
//!
//! ```
//! use fundraising_core::operation::{self, PathValue};
//! let path = operation::CAMPAIGN.path_with(&[PathValue::Text("spring appeal")]).unwrap();
//! assert_eq!(path, "/campaign/byshortname/spring%20appeal");
//! let query = operation::PAGES.query_with(&[Some(2.0), Some(100.0)]).unwrap();
//! assert_eq!(query, "?page=2&pagesize=100");
//! let (found, values) = operation::find("GET", "/event/1001/pages").unwrap();
//! assert_eq!((found.name, values), ("pages", vec!["1001"]));
//! ```

use crate::encoding::{decimal, path_segment_encode, signed_decimal};
use crate::model::{Campaign, Donation, Event, EventCreated, EventPages};
use crate::shape::{Model, Shape};
use crate::{validate, Error};

/// What comes before every operation's path on the service: the application id, then the
/// version (`{base_url}/{appId}/v1/...`). A BFF companion serves the same paths under `/api`.
pub const PREFIX: &str = "/{appId}/v1";

/// Every resource operation, in the order the spec lists them.
pub const OPERATIONS: [&Operation; 4] = [&CAMPAIGN, &DONATION, &CREATE_EVENT, &PAGES];

/// Which operation an entry is: a `match` on it names every operation, so a new one is a
/// compile error wherever a part still lacks it (the sandbox's handlers, the JS methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperationId {
    /// [`CAMPAIGN`].
    Campaign,
    /// [`DONATION`].
    Donation,
    /// [`CREATE_EVENT`].
    CreateEvent,
    /// [`PAGES`].
    Pages,
}

/// An HTTP method the operations use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`, with a JSON body.
    Post,
}

impl Method {
    /// The method's name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// Whether the client may send an operation's request again after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// A read: retried as the retry table says (network errors, 502-504, a 429 that says how
    /// long to wait).
    Read,
    /// Never retried: a second request could do the work twice (create a second event).
    Never,
}

/// What a path parameter holds, and so its rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// Any text that is not blank, sent as one percent-encoded segment.
    Text,
    /// A signed 32-bit integer, sent in decimal.
    Int32,
}

/// A parameter of an operation's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathParam {
    /// Its name in the path template and in JavaScript (`shortName`).
    pub name: &'static str,
    /// Its name in Rust and in Rust errors (`short_name`).
    pub rust_name: &'static str,
    /// What it holds.
    pub kind: ParamKind,
}

/// A query parameter of an operation: optional, a whole number under its rule.
#[derive(Debug, Clone, Copy)]
pub struct QueryParam {
    /// Its name in the spec and in JavaScript (`pageSize`).
    pub name: &'static str,
    /// Its name as sent (`pagesize`); the service reads query names in any case.
    pub wire: &'static str,
    /// Its name in Rust and in Rust errors (`page_size`).
    pub rust_name: &'static str,
    /// The rule a value must meet (it names the parameter by its Rust name).
    pub rule: fn(f64) -> Result<u32, Error>,
}

/// What an answer's status means for an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// The answer holds the result.
    Found,
    /// The thing was made; the answer holds where it is.
    Created,
    /// There is no such thing (yet): a donation not known to the service.
    NotFound,
}

/// One status of an operation and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    /// The HTTP status.
    pub code: u16,
    /// What it means.
    pub meaning: Meaning,
}

/// A resource operation of the service.
#[derive(Debug)]
pub struct Operation {
    /// Which one it is.
    pub id: OperationId,
    /// Its name, as faults, the request log and the JS package's early requests name it.
    pub name: &'static str,
    /// What it does, for the docs.
    pub summary: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// The path template below [`PREFIX`]: literal segments, and `{name}` for each of
    /// [`Operation::params`] in order. A template that ends with `/` is matched with or
    /// without it.
    pub path: &'static str,
    /// The path's parameters, in the template's order.
    pub params: &'static [PathParam],
    /// The query's parameters; an operation without any takes no query.
    pub query: &'static [QueryParam],
    /// The request body's model, for an operation that sends one.
    pub body: Option<&'static Shape>,
    /// The answer's model.
    pub answer: &'static Shape,
    /// The statuses the spec gives it, and what each means.
    pub statuses: &'static [Status],
    /// Whether the client may retry it.
    pub retry: Retry,
    /// The client's Cargo feature that holds it.
    pub feature: &'static str,
    /// The method of the npm package's `FundraisingClient` that calls it, as the TypeScript
    /// declarations and `docs/api.md` name it (resolving with a [`Operation::answer`]).
    pub js_method: &'static str,
}

/// `GET /{appId}/v1/campaign/byshortname/{shortName}`: a campaign by its short name.
pub const CAMPAIGN: Operation = Operation {
    id: OperationId::Campaign,
    name: "campaign",
    summary: "a campaign by its short name",
    method: Method::Get,
    path: "/campaign/byshortname/{shortName}",
    params: &[PathParam {
        name: "shortName",
        rust_name: "short_name",
        kind: ParamKind::Text,
    }],
    query: &[],
    body: None,
    answer: <Campaign as Model>::SHAPE,
    statuses: &[Status {
        code: 200,
        meaning: Meaning::Found,
    }],
    retry: Retry::Read,
    feature: "campaign",
    js_method: "getCampaign",
};

/// `GET /{appId}/v1/donation/ref/{thirdPartyReference}`: a donation by the third-party
/// reference of the simple donation integration; 404 while the service does not know it.
pub const DONATION: Operation = Operation {
    id: OperationId::Donation,
    name: "donation",
    summary: "a donation by its third-party reference",
    method: Method::Get,
    path: "/donation/ref/{thirdPartyReference}",
    params: &[PathParam {
        name: "thirdPartyReference",
        rust_name: "reference",
        kind: ParamKind::Text,
    }],
    query: &[],
    body: None,
    answer: <Donation as Model>::SHAPE,
    statuses: &[
        Status {
            code: 200,
            meaning: Meaning::Found,
        },
        Status {
            code: 404,
            meaning: Meaning::NotFound,
        },
    ],
    retry: Retry::Read,
    feature: "donation",
    js_method: "getDonationByReference",
};

/// `POST /{appId}/v1/event/`: registers an event; never retried.
pub const CREATE_EVENT: Operation = Operation {
    id: OperationId::CreateEvent,
    name: "create_event",
    summary: "registers an event",
    method: Method::Post,
    path: "/event/",
    params: &[],
    query: &[],
    body: Some(<Event as Model>::SHAPE),
    answer: <EventCreated as Model>::SHAPE,
    statuses: &[Status {
        code: 201,
        meaning: Meaning::Created,
    }],
    retry: Retry::Never,
    feature: "events",
    js_method: "createEvent",
};

/// `GET /{appId}/v1/event/{eventId}/pages?page=&pagesize=`: the fundraising pages of an event,
/// a page at a time.
pub const PAGES: Operation = Operation {
    id: OperationId::Pages,
    name: "pages",
    summary: "the fundraising pages of an event",
    method: Method::Get,
    path: "/event/{eventId}/pages",
    params: &[PathParam {
        name: "eventId",
        rust_name: "event_id",
        kind: ParamKind::Int32,
    }],
    query: &[
        QueryParam {
            name: "page",
            wire: "page",
            rust_name: "page",
            rule: validate::number::page,
        },
        QueryParam {
            name: "pageSize",
            wire: "pagesize",
            rust_name: "page_size",
            rule: validate::number::page_size,
        },
    ],
    body: None,
    answer: <EventPages as Model>::SHAPE,
    statuses: &[Status {
        code: 200,
        meaning: Meaning::Found,
    }],
    retry: Retry::Read,
    feature: "pages",
    js_method: "getEventPages",
};

/// A value for a path parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathValue<'a> {
    /// For a [`ParamKind::Text`] parameter.
    Text(&'a str),
    /// For a [`ParamKind::Int32`] parameter.
    Integer(i64),
}

/// One segment of a path template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// Text that must be there as it is.
    Literal(&'static str),
    /// The value of the parameter of this name.
    Param(&'static str),
}

impl Operation {
    /// The segments of the path template, after its leading `/` (a template ending in `/`
    /// ends with an empty literal).
    pub fn segments(&self) -> impl Iterator<Item = Segment> {
        let below = self.path.strip_prefix('/').unwrap_or(self.path);
        below.split('/').map(|segment| {
            match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => Segment::Param(name),
                None => Segment::Literal(segment),
            }
        })
    }

    /// The full path template, [`PREFIX`] included, as the service's docs write it.
    pub fn template(&self) -> String {
        [PREFIX, self.path].concat()
    }

    /// The route to mount the operation at with `app_id` (the parameter name a router gives the
    /// application id), in the `{name}` syntax of the template; for a template ending with `/`
    /// also the route without it.
    pub fn routes(&self, app_id: &str) -> Vec<String> {
        let full = ["/{", app_id, "}/v1", self.path].concat();
        match full.strip_suffix('/') {
            Some(bare) => vec![bare.to_owned(), full.clone()],
            None => vec![full],
        }
    }

    /// The path below [`PREFIX`] with `values` (one per parameter, in order), each checked by
    /// its parameter's rule and percent-encoded as one segment. `invalid_argument` naming the
    /// parameter by its Rust name for a bad value or one of the wrong kind.
    pub fn path_with(&self, values: &[PathValue<'_>]) -> Result<String, Error> {
        if values.len() != self.params.len() {
            return Err(Error::invalid_argument(
                self.name,
                "takes one value per path parameter",
            ));
        }
        let mut path = String::with_capacity(self.path.len() + 16);
        let mut next = 0;
        for segment in self.segments() {
            path.push('/');
            match segment {
                Segment::Literal(text) => path.push_str(text),
                Segment::Param(_) => {
                    let param = &self.params[next];
                    path.push_str(&param.encode(values[next])?);
                    next += 1;
                }
            }
        }
        Ok(path)
    }

    /// The query of `values` (one per query parameter, in order; `None` leaves it out), each
    /// checked by its rule: `""`, or `?name=value&...` with the names as sent.
    pub fn query_with(&self, values: &[Option<f64>]) -> Result<String, Error> {
        let mut query = String::new();
        for (param, value) in self.query.iter().zip(values) {
            if let Some(value) = value {
                let value = (param.rule)(*value)?;
                query.push(if query.is_empty() { '?' } else { '&' });
                query.push_str(param.wire);
                query.push('=');
                query.push_str(&decimal(u64::from(value)));
            }
        }
        Ok(query)
    }

    /// The raw values of the path's parameters (as received, still percent-encoded) when
    /// `method` and `path` (below [`PREFIX`], starting with `/`, without the query) are this
    /// operation's; `None` otherwise. A parameter's segment must not be empty.
    pub fn matches<'a>(&self, method: &str, path: &'a str) -> Option<Vec<&'a str>> {
        if method != self.method.as_str() {
            return None;
        }
        let below = path.strip_prefix('/')?;
        let mut given = below.split('/');
        let mut template = self.segments().peekable();
        let mut values = Vec::with_capacity(self.params.len());
        while let Some(segment) = template.next() {
            let optional_end = template.peek().is_none() && segment == Segment::Literal("");
            match (segment, given.next()) {
                (Segment::Literal(""), None) if optional_end => break,
                (Segment::Literal(text), Some(part)) if part == text => {}
                (Segment::Param(_), Some(part)) if !part.is_empty() => values.push(part),
                _ => return None,
            }
        }
        given.next().is_none().then_some(values)
    }
}

/// The operation of `method` and `path` (below [`PREFIX`], starting with `/`, without the
/// query) with its parameters' raw values (see [`Operation::matches`]), or `None`.
pub fn find<'a>(method: &str, path: &'a str) -> Option<(&'static Operation, Vec<&'a str>)> {
    OPERATIONS
        .into_iter()
        .find_map(|operation| Some((operation, operation.matches(method, path)?)))
}

/// The operation of `id`.
pub fn by_id(id: OperationId) -> &'static Operation {
    match id {
        OperationId::Campaign => &CAMPAIGN,
        OperationId::Donation => &DONATION,
        OperationId::CreateEvent => &CREATE_EVENT,
        OperationId::Pages => &PAGES,
    }
}

/// The operation named `name` (see [`Operation::name`]).
pub fn by_name(name: &str) -> Option<&'static Operation> {
    OPERATIONS
        .into_iter()
        .find(|operation| operation.name == name)
}

impl PathParam {
    /// `value` checked by this parameter's rule, as one percent-encoded segment.
    pub fn encode(&self, value: PathValue<'_>) -> Result<String, Error> {
        match (self.kind, value) {
            (ParamKind::Text, PathValue::Text(text)) => {
                validate::path_segment(self.rust_name, text)?;
                Ok(path_segment_encode(text))
            }
            (ParamKind::Int32, PathValue::Integer(n)) => {
                validate::number::integer(self.rust_name, n as f64, &validate::EVENT_ID)?;
                Ok(signed_decimal(n))
            }
            (ParamKind::Text, PathValue::Integer(_)) => {
                Err(Error::invalid_argument(self.rust_name, "expected text"))
            }
            (ParamKind::Int32, PathValue::Text(_)) => Err(Error::invalid_argument(
                self.rust_name,
                "expected a whole number",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_entry_is_consistent() {
        for operation in OPERATIONS {
            assert_eq!(by_id(operation.id).name, operation.name);
            assert_eq!(by_name(operation.name).map(|o| o.id), Some(operation.id));
            let params: Vec<&str> = operation
                .segments()
                .filter_map(|s| match s {
                    Segment::Param(name) => Some(name),
                    Segment::Literal(_) => None,
                })
                .collect();
            let declared: Vec<&str> = operation.params.iter().map(|p| p.name).collect();
            assert_eq!(params, declared, "{}", operation.name);
            assert!(operation.path.starts_with('/'), "{}", operation.name);
            assert_eq!(
                operation.body.is_some(),
                operation.method == Method::Post,
                "{}: only a POST sends a body",
                operation.name
            );
            assert!(
                operation.method == Method::Get || operation.retry == Retry::Never,
                "{}: a POST is never retried",
                operation.name
            );
            assert!(
                operation
                    .statuses
                    .iter()
                    .any(|s| (200..300).contains(&s.code)),
                "{}",
                operation.name
            );
        }
    }

    #[test]
    fn paths_are_built_from_checked_and_encoded_values() {
        assert_eq!(
            DONATION.path_with(&[PathValue::Text("50%?x#y/z")]),
            Ok("/donation/ref/50%25%3Fx%23y%2Fz".to_owned())
        );
        assert_eq!(CREATE_EVENT.path_with(&[]), Ok("/event/".to_owned()));
        assert_eq!(
            PAGES.path_with(&[PathValue::Integer(-7)]),
            Ok("/event/-7/pages".to_owned())
        );
        let field = |e: Error| match e {
            Error::InvalidArgument { field, .. } => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            field(CAMPAIGN.path_with(&[PathValue::Text("  ")]).unwrap_err()),
            "short_name"
        );
        assert_eq!(
            field(PAGES.path_with(&[PathValue::Integer(1 << 31)]).unwrap_err()),
            "event_id"
        );
        assert_eq!(
            field(PAGES.path_with(&[PathValue::Text("1")]).unwrap_err()),
            "event_id"
        );
        assert!(CAMPAIGN.path_with(&[]).is_err());
    }

    #[test]
    fn queries_are_built_by_their_rules() {
        assert_eq!(PAGES.query_with(&[None, None]), Ok(String::new()));
        assert_eq!(
            PAGES.query_with(&[None, Some(100.0)]),
            Ok("?pagesize=100".to_owned())
        );
        assert_eq!(
            PAGES.query_with(&[Some(3.0), Some(1.0)]),
            Ok("?page=3&pagesize=1".to_owned())
        );
        for bad in [[Some(0.0), None], [None, Some(101.0)], [Some(1.5), None]] {
            assert!(PAGES.query_with(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn requests_are_matched_to_their_operation() {
        let found = |method, path| find(method, path).map(|(o, values)| (o.name, values));
        assert_eq!(
            found("GET", "/campaign/byshortname/a%20b"),
            Some(("campaign", vec!["a%20b"]))
        );
        assert_eq!(
            found("GET", "/donation/ref/r"),
            Some(("donation", vec!["r"]))
        );
        assert_eq!(found("POST", "/event/"), Some(("create_event", vec![])));
        assert_eq!(found("POST", "/event"), Some(("create_event", vec![])));
        assert_eq!(
            found("GET", "/event/1001/pages"),
            Some(("pages", vec!["1001"]))
        );
        for (method, path) in [
            ("POST", "/campaign/byshortname/x"),
            ("GET", "/event/"),
            ("GET", "/event"),
            ("DELETE", "/donation/ref/x"),
            ("GET", "/campaign/byshortname"),
            ("GET", "/campaign/byshortname/"),
            ("GET", "/campaign/byshortname/x/y"),
            ("GET", "/campaign/byshortname/x/"),
            ("POST", "/event//"),
            ("POST", "/event/x"),
            ("GET", "/event//pages"),
            ("GET", "campaign/byshortname/x"),
            ("GET", ""),
            ("GET", "/"),
        ] {
            assert_eq!(found(method, path), None, "{method} {path}");
        }
    }

    #[test]
    fn built_paths_are_found_again() {
        for operation in OPERATIONS {
            let values: Vec<PathValue> = operation
                .params
                .iter()
                .map(|p| match p.kind {
                    ParamKind::Text => PathValue::Text("a b/c"),
                    ParamKind::Int32 => PathValue::Integer(42),
                })
                .collect();
            let path = operation.path_with(&values).unwrap();
            let (found, raw) = find(operation.method.as_str(), &path).unwrap();
            assert_eq!(found.id, operation.id);
            assert_eq!(raw.len(), operation.params.len());
        }
    }

    #[test]
    fn routes_keep_the_template_and_its_optional_slash() {
        assert_eq!(
            CAMPAIGN.routes("app_id"),
            ["/{app_id}/v1/campaign/byshortname/{shortName}"]
        );
        assert_eq!(
            CREATE_EVENT.routes("app_id"),
            ["/{app_id}/v1/event", "/{app_id}/v1/event/"]
        );
        assert_eq!(
            PAGES.template(),
            "/{appId}/v1/event/{eventId}/pages".to_owned()
        );
    }
}
