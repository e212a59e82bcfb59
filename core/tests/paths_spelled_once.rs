//! Every operation's path is spelled once, in core's table (`fundraising_core::operation`):
//! this test fails when the source of any other part of the repository spells one.
//!
//! **What counts as spelling a path.** For each operation of [`OPERATIONS`], its template's
//! segments in order (a `{param}` stands for any one segment):
//! - as a path in text, on one line: `campaign/byshortname/…`, `event/1001/pages`,
//!   `event/{eventId}/pages`, `${id}` or `{}` standing for the parameter; a template with one
//!   literal segment (`/event/`) only after the version, `v1/event`, since `event` alone is a word;
//! - as a list of string literals on one line (`["campaign", "byshortname", name]`,
//!   `[_, "v1", "event", _, "pages"]`, `&["event", ""]`), a parameter being any one item or none
//!   between the literals; a template with one literal segment, again only after `"v1"`, or
//!   with its trailing empty segment (`"event", ""`).
//!
//! Comments count: a comment that writes a path goes stale when the table changes; it names
//! the table's entry instead (`fundraising_core::operation::PAGES`).
//!
//! **Where a path may be spelled.** `core/` (the table's owner) and the docs (`docs/`, `*.md`:
//! `docs_tables.rs` checks their endpoint tables against the table). Besides, only code that
//! tests or measures the wire itself, whose expectations must not be read from the table they
//! check: a `tests/` or `test/` folder, a `*.test.*` file, `e2e/`, `interop/` (the suites
//! against other implementations), `bench/` (requests measured on the wire), and in a Rust
//! file a `#[cfg(test)]` module (from its `#[cfg(test)]` line to the file's end, where the
//! style guide puts it). Everything else is scanned: Rust, JavaScript, TypeScript, HTML, Python
//! and shell sources of every crate and package (`companion/`, `sandbox/`, `serve/`, `src/`,
//! `components/`, `testing/`, `examples/`, `www/`, `npm/`, `scripts/`, `fuzz/`), and any
//! folder added later; a folder the scan must reach and does not is a failure too.
#![cfg(not(target_arch = "wasm32"))]

use fundraising_core::operation::{Operation, Segment, OPERATIONS};
use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root: core's parent.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("core lies in the repository")
        .to_owned()
}

const SOURCE: [&str; 10] = [
    "rs", "js", "mjs", "cjs", "ts", "html", "py", "sh", "jsx", "tsx",
];

/// Top-level folders where a path may be spelled (see the module's doc).
const OWNERS_AND_WIRE_TESTS: [&str; 5] = ["core", "docs", "e2e", "interop", "bench"];

/// Folders that hold no source of the repository's own.
const NOT_SOURCE: [&str; 4] = ["target", "node_modules", "pkg", "dist"];

/// Whether the file at `relative` (from the root, `/`-separated) is wire-test code.
fn wire_test(relative: &str) -> bool {
    let parts: Vec<&str> = relative.split('/').collect();
    OWNERS_AND_WIRE_TESTS.contains(&parts[0])
        || parts[..parts.len() - 1]
            .iter()
            .any(|d| *d == "tests" || *d == "test")
        || parts[parts.len() - 1].contains(".test.")
}

fn walk(dir: &Path, root: &Path, files: &mut Vec<(String, PathBuf)>) {
    for entry in fs::read_dir(dir).expect("a readable folder") {
        let entry = entry.expect("a readable entry");
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || NOT_SOURCE.contains(&name.as_str()) {
            continue;
        }
        if entry.file_type().expect("a file type").is_dir() {
            walk(&path, root, files);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCE.contains(&e))
        {
            let relative = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            files.push((relative, path));
        }
    }
}

/// The lines of `text` to scan, with their numbers: a Rust file's `#[cfg(test)]` module and
/// what follows it are left out.
fn scanned_lines(relative: &str, text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut end = lines.len();
    if relative.ends_with(".rs") {
        for (i, line) in lines.iter().enumerate() {
            let next = lines[i + 1..].iter().find(|l| !l.trim().is_empty());
            if line.trim() == "#[cfg(test)]" && next.is_some_and(|l| l.trim().starts_with("mod ")) {
                end = i;
                break;
            }
        }
    }
    lines[..end]
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, (*l).to_owned()))
        .collect()
}

/// A template as tokens: `Some(literal)`, or `None` for a parameter.
fn tokens(operation: &Operation) -> Vec<Option<&'static str>> {
    operation
        .segments()
        .map(|s| match s {
            Segment::Literal(text) => Some(text),
            Segment::Param(_) => None,
        })
        .collect()
}

/// `template` with `v1` before it when it has fewer than two literals (which alone say too
/// little: `event` is a word).
fn anchored(mut template: Vec<Option<&'static str>>) -> Vec<Option<&'static str>> {
    if template.iter().flatten().count() < 2 {
        template.insert(0, Some("v1"));
    }
    template
}

/// Whether `text` has the template as a path: its literal segments with `/` between, each
/// parameter as one non-empty segment without spaces or quotes. A trailing empty literal is
/// optional (so it does not count as a literal).
fn spells_as_path(text: &str, template: &[Option<&'static str>]) -> bool {
    let mut template = template.to_vec();
    if template.last() == Some(&Some("")) {
        template.pop();
    }
    let template = anchored(template);
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let segment = |c: char| !(c == '/' || c.is_whitespace() || "\"'`,;()[]<>".contains(c));
    (0..text.len())
        .filter(|&start| text.is_char_boundary(start))
        .filter(|&start| !text[..start].chars().next_back().is_some_and(word))
        .any(|start| {
            let mut rest = &text[start..];
            for (i, token) in template.iter().enumerate() {
                if i > 0 {
                    match rest.strip_prefix('/') {
                        Some(after) => rest = after,
                        None => return false,
                    }
                }
                match token {
                    Some(literal) => match rest.strip_prefix(literal) {
                        Some(after) => rest = after,
                        None => return false,
                    },
                    None => {
                        let length = rest.find(|c: char| !segment(c)).unwrap_or(rest.len());
                        if length == 0 {
                            return false;
                        }
                        rest = &rest[length..];
                    }
                }
            }
            !rest.chars().next().is_some_and(word)
        })
}

/// The items of `text` as a list: its string literals in order (`"..."`, `'...'`,
/// `` `...` ``; no escapes) as `Some`, and `None` for anything else between two of them but
/// commas and spaces (an expression, `_`).
fn items(text: &str) -> Vec<Option<&str>> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['"', '\'', '`']) {
        if rest[..open].chars().any(|c| c != ',' && !c.is_whitespace()) {
            found.push(None);
        }
        let quote = rest[open..].chars().next().expect("a quote");
        let after = &rest[open + 1..];
        match after.find(quote) {
            Some(close) => {
                found.push(Some(&after[..close]));
                rest = &after[close + 1..];
            }
            None => return found,
        }
    }
    if rest.chars().any(|c| c != ',' && !c.is_whitespace()) {
        found.push(None);
    }
    found
}

/// Whether the items of `text` (see [`items`]) hold the template as a list of segments: its
/// literal segments as string literals in order, a parameter any one item between them.
fn spells_as_list(text: &str, template: &[Option<&'static str>]) -> bool {
    let template = anchored(template.to_vec());
    let items = items(text);
    let from = |start: usize| {
        template.len() <= items.len() - start
            && template
                .iter()
                .zip(&items[start..])
                .all(|(token, item)| token.is_none() || token == item)
    };
    (0..items.len()).any(from)
}

fn spells(line: &str, operation: &Operation) -> bool {
    let template = tokens(operation);
    if spells_as_path(line, &template) || spells_as_list(line, &template) {
        return true;
    }
    // A list may leave a trailing empty segment out: `[_, "v1", "event"]`.
    let mut stripped = template.clone();
    stripped.last() == Some(&Some(""))
        && stripped.pop().is_some()
        && spells_as_list(line, &stripped)
}

#[test]
fn the_scanner_finds_every_way_a_path_is_spelled() {
    let by_name = |name: &str| OPERATIONS.into_iter().find(|o| o.name == name).expect(name);
    let found = [
        (
            "campaign",
            r#".route("/{app_id}/v1/campaign/byshortname/{short_name}", get(h))"#,
        ),
        (
            "campaign",
            r#"Ok(self.get(&["campaign", "byshortname", short_name], ""))"#,
        ),
        (
            "campaign",
            r#"[_, "v1", "campaign", "byshortname", _] => Self::Campaign,"#,
        ),
        (
            "campaign",
            "/// `GET /{appId}/v1/campaign/byshortname/{shortName}`.",
        ),
        (
            "donation",
            "fetch(`${base}/${app}/v1/donation/ref/${reference}`)",
        ),
        (
            "create_event",
            r#"let uri = format!("{}/{app_id}/v1/event/{id}", base);"#,
        ),
        ("create_event", r#"url: self.url(&["event", ""], ""),"#),
        (
            "create_event",
            r#"[_, "v1", "event"] if method == "POST" => Self::CreateEvent,"#,
        ),
        (
            "create_event",
            r#"self.url = f"{base_url}/{app_id}/v1/event/""#,
        ),
        (
            "pages",
            r#"&["event", &signed_decimal(i64::from(event_id)), "pages"],"#,
        ),
        ("pages", r#"[_, "v1", "event", _, "pages"] => Self::Pages,"#),
        (
            "pages",
            "//! The serialized answers of `GET event/{id}/pages`, kept",
        ),
        (
            "pages",
            r#"fetch("${api}/event/${EVENT}/pages?page=" + page)"#,
        ),
    ];
    for (name, line) in found {
        assert!(spells(line, by_name(name)), "{name} not found in {line}");
    }
    let clean = [
        "// light build instead (it has the event's pages too), one build for all its elements.",
        r#"for (const name of ["campaign", "donation", "event", "pages"]) {"#,
        r#"from_js(copy.into(), "event")"#,
        "page_images: vec![format!(\"https://images.example.org/pages/{i}.jpg\")],",
        r#"let path = format!("/api{}", CREATE_EVENT.path);"#,
        "the event and its pages/ranking",
    ];
    for line in clean {
        for operation in OPERATIONS {
            assert!(!spells(line, operation), "{} in {line}", operation.name);
        }
    }
}

#[test]
fn no_part_outside_core_spells_an_operations_path() {
    let root = root();
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    // The scan reaches each part that holds source of its own.
    for part in [
        "companion/src/",
        "sandbox/src/",
        "serve/src/",
        "src/",
        "components/",
        "testing/src/",
        "www/",
        "npm/",
        "scripts/",
        "fuzz/fuzz_targets/",
    ] {
        assert!(
            files
                .iter()
                .any(|(relative, _)| relative.starts_with(part) && !wire_test(relative)),
            "the scan reaches no source in {part}"
        );
    }
    let mut spelled = Vec::new();
    for (relative, path) in files.iter().filter(|(r, _)| !wire_test(r)) {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{relative}: {e}"));
        for (number, line) in scanned_lines(relative, &text) {
            let names: Vec<&str> = OPERATIONS
                .into_iter()
                .filter(|operation| spells(&line, operation))
                .map(|operation| operation.name)
                .collect();
            if !names.is_empty() {
                spelled.push(format!(
                    "{relative}:{number}: {}: {}",
                    names.join(", "),
                    line.trim()
                ));
            }
        }
    }
    assert!(
        spelled.is_empty(),
        "operations' paths spelled outside core's table (use fundraising_core::operation):\n{}",
        spelled.join("\n")
    );
}
