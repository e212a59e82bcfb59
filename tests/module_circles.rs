//! No import circle among the modules of `fundraising-client` (`src/`) or `fundraising-core`
//! (`core/src/`): every file's `crate::`, `super::` and `self::` paths are resolved to the file
//! that defines what they name (through `pub use` re-exports), and the files must import one
//! another one way only. Native only; it reads the sources.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::Path;

/// A crate's files by module path (`[]` for `lib.rs`, `["json", "tree"]` for `json/tree.rs`).
type Modules = BTreeMap<Vec<String>, String>;

fn modules(dir: &Path, path: &[String], out: &mut Modules) {
    for entry in std::fs::read_dir(dir).expect("a source folder").flatten() {
        let file = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if file.is_dir() {
            modules(&file, &[path, &[name]].concat(), out);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let module = match stem {
                "lib" | "mod" => path.to_vec(),
                _ => [path, &[stem.to_owned()]].concat(),
            };
            let text = std::fs::read_to_string(&file).expect("a source file");
            // A file's unit tests (`mod tests`, last) import what they test.
            let text = text.split("mod tests {").next().unwrap_or_default();
            // Comments and doc comments name paths too; they import nothing.
            let code = text
                .lines()
                .map(|l| l.split("//").next().unwrap_or(""))
                .collect::<Vec<_>>();
            out.insert(module, code.join("\n"));
        }
    }
}

/// The paths `text` names from `start` (`crate::`, `super::`, `self::`), each as segments,
/// `{a, b::c}` groups expanded, `as` renames dropped.
fn paths(text: &str, start: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(start) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at..];
        if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            expand(rest, &mut Vec::new(), &mut found);
        }
        rest = &rest[start.len()..];
    }
    found
}

fn rest(text: &str, i: usize) -> &str {
    text.get(i..).unwrap_or("")
}

/// Reads `a::b::{c, d::e}` at the start of `text` onto `prefix`, pushing each whole path.
fn expand(text: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut i = 0;
    let bytes = text.as_bytes();
    let depth = prefix.len();
    loop {
        let word: String = rest(text, i)
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '*')
            .collect();
        i += word.len();
        if !word.is_empty() {
            prefix.push(word);
        }
        if rest(text, i).starts_with("::{") {
            i += 3;
            loop {
                i += rest(text, i).len() - rest(text, i).trim_start().len();
                if bytes.get(i) == Some(&b'}') {
                    i += 1;
                    break;
                }
                // Something that is no path (a stray character) is skipped.
                i += expand(rest(text, i), prefix, out).max(1);
                i += rest(text, i).len() - rest(text, i).trim_start().len();
                if bytes.get(i) == Some(&b',') {
                    i += 1;
                }
            }
            break;
        }
        if rest(text, i).starts_with("::") {
            i += 2;
            continue;
        }
        out.push(prefix.clone());
        let rename = rest(text, i).trim_start();
        if let Some(alias) = rename.strip_prefix("as ") {
            let skip = rest(text, i).len() - rename.len() + 3;
            i += skip
                + alias
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .count();
        }
        break;
    }
    prefix.truncate(depth);
    i
}

/// The file (module path) that defines what `path`, named in `module`, refers to.
fn resolve(modules: &Modules, module: &[String], path: &[String], seen: usize) -> Vec<String> {
    let is_file = |m: &Vec<String>| modules.contains_key(m);
    let mut base: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super") => {
            // A file module's parent is its folder's module; `mod.rs`'s is the folder's parent.
            let mut base = module.to_vec();
            base.pop();
            base
        }
        _ => module.to_vec(),
    };
    let mut rest = &path[1..];
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    while let Some(next) = rest.first() {
        let deeper = [&base[..], std::slice::from_ref(next)].concat();
        if !is_file(&deeper) {
            break;
        }
        base = deeper;
        rest = &rest[1..];
    }
    // A name a module hands on from one of its own (`pub use tree::Node;`) is that one's; the
    // crate root is the crate's face, which imports nothing (as `farm-studio look` reads it).
    if let (Some(name), false) = (rest.first(), base.is_empty() || seen > 8) {
        for shown in reexports(&modules[&base]) {
            if shown.last() == Some(name) {
                let whole = [&["self".to_owned()][..], &shown].concat();
                return resolve(modules, &base, &whole, seen + 1);
            }
        }
    }
    base
}

/// The paths a module re-exports (`pub use x::A;`, `pub(crate) use x::{A, B};`).
fn reexports(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for start in ["pub use ", "pub(crate) use "] {
        for (at, _) in text.match_indices(start) {
            let path = &text[at + start.len()..];
            if !path.starts_with("crate::") && !path.starts_with("super::") {
                expand(path, &mut Vec::new(), &mut out);
            }
        }
    }
    out
}

/// Every circle of imports among `modules`' files.
fn circles(modules: &Modules) -> Vec<Vec<Vec<String>>> {
    let mut edges: BTreeMap<&Vec<String>, Vec<Vec<String>>> = BTreeMap::new();
    for (module, text) in modules {
        // The crate root's re-exports hand names on: they are not its imports. A module's are.
        let own: String = (text.lines())
            .filter(|l| !module.is_empty() || !l.trim_start().starts_with("pub"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut to = Vec::new();
        let shown = match module.is_empty() {
            true => Vec::new(),
            false => reexports(text)
                .into_iter()
                .map(|p| [&["self".to_owned()][..], &p].concat())
                .collect(),
        };
        for start in ["crate::", "super::", "self::"] {
            for path in paths(&own, start).into_iter().chain(shown.iter().cloned()) {
                let target = resolve(modules, module, &path, 0);
                if &target != module && !to.contains(&target) {
                    to.push(target);
                }
            }
        }
        edges.insert(module, to);
    }
    // Tarjan's strongly connected components: a component of two files or more is a circle.
    struct Walk<'a> {
        edges: &'a BTreeMap<&'a Vec<String>, Vec<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, (usize, usize)>,
        stack: Vec<&'a Vec<String>>,
        found: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, at: &'a Vec<String>) -> usize {
        let n = walk.index.len();
        walk.index.insert(at, (n, n));
        walk.stack.push(at);
        let mut low = n;
        for to in walk.edges.get(at).into_iter().flatten() {
            let Some((to, _)) = walk.edges.get_key_value(to) else {
                continue;
            };
            low = match walk.index.get(to) {
                None => low.min(visit(walk, to)),
                Some(&(i, _)) if walk.stack.contains(to) => low.min(i),
                Some(_) => low,
            };
        }
        walk.index.insert(at, (n, low));
        if low == n {
            let split = walk
                .stack
                .iter()
                .position(|m| *m == at)
                .expect("on the stack");
            let component: Vec<Vec<String>> = walk.stack.drain(split..).cloned().collect();
            if component.len() > 1 {
                walk.found.push(component);
            }
        }
        low
    }
    let mut walk = Walk {
        edges: &edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for module in edges.keys() {
        if !walk.index.contains_key(module) {
            visit(&mut walk, module);
        }
    }
    walk.found
}

fn check(crate_dir: &str) {
    let mut found = Modules::new();
    modules(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(crate_dir),
        &[],
        &mut found,
    );
    assert!(
        found.len() > 10,
        "{crate_dir}: {} modules read",
        found.len()
    );
    let circles = circles(&found);
    let shown: Vec<String> = circles
        .iter()
        .map(|c| {
            c.iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(" -> ")
        })
        .collect();
    assert!(
        shown.is_empty(),
        "import circles in {crate_dir}:\n{}",
        shown.join("\n")
    );
}

#[test]
fn the_clients_modules_import_one_another_one_way() {
    check("src");
}

#[test]
fn cores_modules_import_one_another_one_way() {
    check("core/src");
}

#[test]
fn a_circle_is_found() {
    let mut modules = Modules::new();
    modules.insert(vec![], "mod a;\nmod b;\npub use a::A;".into());
    modules.insert(
        vec!["a".into()],
        "use super::b::{B, C as D};\npub struct A;".into(),
    );
    modules.insert(
        vec!["b".into()],
        "pub struct B;\nfn f() -> crate::a::A { todo!() }".into(),
    );
    let found = circles(&modules);
    assert_eq!(found.len(), 1, "{found:?}");
    modules.insert(vec!["b".into()], "pub struct B;".into());
    assert!(circles(&modules).is_empty());
}
