//! Prints the JS module `generated:operations` (scripts/build-widgets.mjs runs this at build
//! time): for each read of core's table of operations ([`OPERATIONS`]), a function giving its
//! path with the service's prefix from the application id and the operation's values, so that
//! an element can start its first request before the package is there without spelling an
//! address of its own. Path segments are encoded as [`path_segment_encode`] does (every byte but
//! RFC 3986's unreserved ones as `%XX`), query values as [`Operation::query_with`] writes them
//! (`?wire=value&...`, a missing one left out); the rules of the values stay the package's,
//! which checks them before it takes an early answer.
//!
//!   cargo run -q -p fundraising-core --example js_operations
//!
//! core/tests/js_operations.rs holds the module's paths equal to [`Operation::path_with`] and
//! [`Operation::query_with`] over tricky values.
//!
//! [`path_segment_encode`]: fundraising_core::encoding::path_segment_encode

use fundraising_core::operation::{Method, Operation, ParamKind, Segment, OPERATIONS, PREFIX};

/// The module's source.
pub fn module() -> String {
    let mut out = String::from(
        "// The service's reads, generated from fundraising-core's table of operations\n\
         // (core/src/operation.rs) by core/examples/js_operations.rs: never edited by hand.\n\
         // A path segment: every byte but RFC 3986's unreserved characters as %XX, as core encodes it.\n\
         const segment = (text) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);\n\
         // A whole number as its decimal digits; anything else is no path (the package says why).\n\
         const integer = (n) => { if (!Number.isSafeInteger(n)) throw new RangeError(`not a whole number: ${n}`); return String(n); };\n\
         // The query of [wire name, value] pairs, a missing value left out.\n\
         const query = (pairs) => pairs.filter(([, v]) => v != null).map(([n, v], i) => `${i ? \"&\" : \"?\"}${n}=${integer(v)}`).join(\"\");\n",
    );
    for operation in OPERATIONS {
        if operation.method == Method::Get {
            out.push_str(&function(operation));
        }
    }
    out
}

/// One operation's function: `(appId, ...path values, ...query values) => path`.
fn function(operation: &Operation) -> String {
    let mut args = vec!["appId".to_owned()];
    args.extend(operation.params.iter().map(|p| p.name.to_owned()));
    args.extend(operation.query.iter().map(|q| q.name.to_owned()));
    let app_id = PREFIX
        .strip_suffix("/v1")
        .and_then(|p| p.strip_prefix("/{"))
        .and_then(|p| p.strip_suffix('}'))
        .expect("PREFIX is /{appId}/v1");
    assert_eq!(
        app_id, "appId",
        "the prefix's parameter is the function's first argument"
    );
    let mut path = ["/${segment(", app_id, ")}/v1"].concat();
    for segment in operation.segments() {
        path.push('/');
        match segment {
            Segment::Literal(text) => {
                assert!(
                    !text.contains(['`', '$', '\\']),
                    "a literal segment is plain text"
                );
                path.push_str(text);
            }
            Segment::Param(name) => {
                let param = operation
                    .params
                    .iter()
                    .find(|p| p.name == name)
                    .expect("a template's parameter is declared");
                let fill = match param.kind {
                    ParamKind::Text => "segment",
                    ParamKind::Int32 => "integer",
                };
                path.push_str(&["${", fill, "(", name, ")}"].concat());
            }
        }
    }
    if !operation.query.is_empty() {
        let pairs: Vec<String> = operation
            .query
            .iter()
            .map(|q| format!("[\"{}\", {}]", q.wire, q.name))
            .collect();
        path.push_str(&["${query([", &pairs.join(", "), "])}"].concat());
    }
    format!(
        "/** `{} {}`: {}. */\nexport const {} = ({}) => `{}`;\n",
        operation.method.as_str(),
        operation.template(),
        operation.summary,
        operation.name,
        args.join(", "),
        path
    )
}

#[allow(dead_code)] // the tests include this file for `module` alone
fn main() {
    print!("{}", module());
}
