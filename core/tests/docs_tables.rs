//! The docs and the TypeScript declarations say what core's operation table says:
//! - `docs/core.md`'s table of operations is the table, rendered ([`rendered`]);
//! - every request a doc writes as `GET path` or `POST path` whose path names an operation's
//!   resource (its first segment below `/{appId}/v1` or the companion's `/api` is one of the
//!   table's: `campaign`, `donation`, `event`) is an operation of the table, method and template
//!   (parameters may have any name in a doc: `{reference}`);
//! - each operation's JS method is declared with its answer (`js_name = getCampaign,
//!   unchecked_return_type = "Promise<Campaign>"` in `src/js/`, from which wasm-bindgen writes
//!   the package's `.d.ts`), and `docs/api.md` documents it under its own heading with that
//!   answer and its request.
#![cfg(not(target_arch = "wasm32"))]

use fundraising_core::operation::{self, Meaning, Operation, ParamKind, Retry, OPERATIONS};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("core lies in the repository")
        .to_owned()
}

fn read(relative: &str) -> String {
    fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The table of operations as `docs/core.md` shows it.
fn rendered() -> String {
    let mut out = String::from(
        "| operation | request | path parameters | query | body | answer | statuses | retried | feature | JS method |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for operation in OPERATIONS {
        let params: Vec<String> = operation
            .params
            .iter()
            .map(|p| {
                let kind = match p.kind {
                    ParamKind::Text => "text, not blank",
                    ParamKind::Int32 => "32-bit integer",
                };
                format!("`{}` ({kind})", p.name)
            })
            .collect();
        let query: Vec<String> = operation
            .query
            .iter()
            .map(|q| format!("`{}` (`{}`)", q.name, q.wire))
            .collect();
        let statuses: Vec<String> = operation
            .statuses
            .iter()
            .map(|s| {
                let meaning = match s.meaning {
                    Meaning::Found => "found",
                    Meaning::Created => "created",
                    Meaning::NotFound => "not found",
                };
                format!("{} {meaning}", s.code)
            })
            .collect();
        let or_none = |list: Vec<String>| {
            if list.is_empty() {
                "".to_owned()
            } else {
                list.join(", ")
            }
        };
        out.push_str(&format!(
            "| `{}` | `{} {}` | {} | {} | {} | `{}` | {} | {} | `{}` | `{}` |\n",
            operation.name,
            operation.method.as_str(),
            operation.template(),
            or_none(params),
            or_none(query),
            operation
                .body
                .map_or("".to_owned(), |b| format!("`{}`", b.name)),
            operation.answer.name,
            statuses.join(", "),
            match operation.retry {
                Retry::Read => "yes",
                Retry::Never => "never",
            },
            operation.feature,
            operation.js_method,
        ));
    }
    out
}

#[test]
fn core_md_shows_the_operation_table() {
    let doc = read("docs/core.md");
    let table = rendered();
    assert!(
        doc.contains(&table),
        "docs/core.md's table of operations differs from core's table; it should read:\n\n{table}"
    );
}

/// The operations' first literal segments: a path starting with one names an operation.
fn resources() -> Vec<&'static str> {
    let mut first: Vec<&str> = OPERATIONS
        .into_iter()
        .filter_map(|o| o.path[1..].split('/').next())
        .collect();
    first.dedup();
    first
}

/// The path of a request as a doc writes it, below `/{appId}/v1` or the companion's `/api`,
/// without its query: `None` when it is no resource request.
fn below_prefix(written: &str) -> Option<String> {
    let mut path = written.trim_end_matches(['.', ',', ':', ';']);
    for base in ["{base_url}", "{api_url}", "${baseUrl}", "${api}"] {
        path = path.strip_prefix(base).unwrap_or(path);
    }
    if let Some(after) = path
        .strip_prefix("http://")
        .or(path.strip_prefix("https://"))
    {
        path = &after[after.find('/')?..];
    }
    let path = path.split('?').next().unwrap_or(path);
    let path = path.strip_prefix('/').unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    let below: &[&str] = match segments.as_slice() {
        ["api", rest @ ..] => rest,
        [_, "v1", rest @ ..] => rest,
        other => other,
    };
    resources()
        .contains(below.first()?)
        .then(|| format!("/{}", below.join("/")))
}

/// Every `GET path` and `POST path` of `text`, with its line number.
fn requests(text: &str) -> Vec<(usize, &'static str, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        for method in ["GET", "POST"] {
            let mut rest = line;
            while let Some(at) = rest.find(method) {
                let before = rest[..at].chars().next_back();
                let after = &rest[at + method.len()..];
                rest = after;
                if before.is_some_and(|c| c.is_alphanumeric()) {
                    continue;
                }
                let Some(target) = after.strip_prefix(' ') else {
                    continue;
                };
                let end = target
                    .find(|c: char| c.is_whitespace() || "`)\"'|<>".contains(c))
                    .unwrap_or(target.len());
                found.push((number + 1, method, target[..end].to_owned()));
            }
        }
    }
    found
}

fn docs() -> Vec<(String, String)> {
    let root = root();
    let mut files = vec!["README.md".to_owned()];
    for dir in [
        "docs",
        "npm/fundraising-companion",
        "npm/fundraising-sandbox",
    ] {
        for entry in fs::read_dir(root.join(dir)).expect(dir) {
            let name = entry.expect("an entry").file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".md") {
                files.push(format!("{dir}/{name}"));
            }
        }
    }
    files.sort();
    files.into_iter().map(|f| (read(&f), f)).collect()
}

#[test]
fn every_request_the_docs_write_is_an_operation_of_the_table() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (text, file) in docs() {
        for (number, method, written) in requests(&text) {
            let Some(path) = below_prefix(&written) else {
                continue;
            };
            checked += 1;
            if operation::find(method, &path).is_none() {
                wrong.push(format!("{file}:{number}: {method} {written}"));
            }
        }
    }
    assert!(
        checked >= OPERATIONS.len(),
        "found only {checked} requests in the docs: the scan is broken"
    );
    assert!(
        wrong.is_empty(),
        "requests in the docs that are no operation of core's table:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_reads_the_docs_forms_of_a_request() {
    let found = |line: &str| {
        requests(line)
            .into_iter()
            .filter_map(|(_, method, written)| Some((method, below_prefix(&written)?)))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        found("`Promise<Campaign>`: `GET {base_url}/{appId}/v1/campaign/byshortname/{shortName}`."),
        [("GET", "/campaign/byshortname/{shortName}".to_owned())]
    );
    assert_eq!(
        found("`POST /api/event` (also `/api/event/`) and `GET /api/event/{eventId}/pages` (its query"),
        [
            ("GET", "/event/{eventId}/pages".to_owned()),
            ("POST", "/event".to_owned())
        ]
    );
    assert_eq!(
        found("- `GET event/{eventId}/pages?page=&pagesize=&orderby=` (names"),
        [("GET", "/event/{eventId}/pages".to_owned())]
    );
    assert_eq!(
        found("`POST /auth/token` with JSON; GET /connect/authorize"),
        []
    );
    assert!(operation::find("GET", "/donation/{reference}").is_none());
}

/// The JS method's declaration in `src/js/`, from which wasm-bindgen writes the `.d.ts`.
fn declaration(operation: &Operation) -> String {
    format!(
        "js_name = {}, unchecked_return_type = \"Promise<{}>\"",
        operation.js_method, operation.answer.name
    )
}

#[test]
fn each_js_method_is_declared_and_documented_with_its_answer() {
    let root = root();
    let mut sources = String::new();
    for entry in fs::read_dir(root.join("src/js")).expect("src/js") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            sources.push_str(&fs::read_to_string(&path).expect("a source"));
        }
    }
    let api = read("docs/api.md");
    for operation in OPERATIONS {
        assert!(
            sources.contains(&declaration(operation)),
            "src/js declares no `{}` for {}",
            declaration(operation),
            operation.name
        );
        let heading = format!("### `{}(", operation.js_method);
        let section = api
            .split("\n### ")
            .find(|s| s.starts_with(&heading[4..]))
            .unwrap_or_else(|| panic!("docs/api.md has no heading {heading}...`"));
        let section = section.split("\n## ").next().unwrap_or(section);
        let answer = format!("`Promise<{}>`", operation.answer.name);
        assert!(
            section.contains(&answer),
            "docs/api.md's {heading}...` does not say {answer}"
        );
        let named = requests(section).into_iter().any(|(_, method, written)| {
            below_prefix(&written).is_some_and(|path| {
                operation::find(method, &path).is_some_and(|(found, _)| found.id == operation.id)
            })
        });
        assert!(
            named,
            "docs/api.md's {heading}...` does not write the request {} {}",
            operation.method.as_str(),
            operation.template()
        );
    }
}
