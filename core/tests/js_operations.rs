//! The JS module of the service's reads (`generated:operations`, core/examples/js_operations.rs)
//! gives the paths core gives: each read's function, run by Node over tricky values, equals the
//! prefix with the application id encoded as one segment, [`Operation::path_with`] and
//! [`Operation::query_with`].

#[path = "../examples/js_operations.rs"]
mod generator;

use std::process::Command;

use fundraising_core::encoding::path_segment_encode;
use fundraising_core::operation::{Method, Operation, PathValue, DONATION, OPERATIONS, PAGES};

/// Texts whose encoding differs between the web's encoders: reserved and sub-delimiter
/// characters, `%`, a space and `+`, what `encodeURIComponent` leaves alone (`!'()*`), the
/// unreserved ones, multi-byte characters and one outside the BMP, quotes and controls.
const TEXTS: &[&str] = &[
    "spring appeal",
    "a/b?c#d",
    "50%25 off",
    "!'()*",
    "-._~",
    "a+b&c=d;e,f:g@h$i",
    "caf\u{e9}",
    "\u{1F600} smile",
    "\u{4e2d}\u{6587}",
    "\"quoted\" <tag> [x] {y} |z| ^ `",
    "tab\there\nnewline\u{7f}",
    "back\\slash",
    "A-Z_0-9",
];

fn core_path(
    operation: &Operation,
    app_id: &str,
    values: &[PathValue<'_>],
    query: &[Option<f64>],
) -> String {
    [
        "/",
        &path_segment_encode(app_id),
        "/v1",
        &operation.path_with(values).unwrap(),
        &operation.query_with(query).unwrap(),
    ]
    .concat()
}

#[test]
fn the_js_paths_equal_cores() {
    // Each case: the operation's name, the JS arguments (JSON) and core's path.
    let mut cases: Vec<(String, String, String)> = Vec::new();
    let json = |s: &str| serde_json::to_string(s).unwrap();
    for app_id in ["demo-app", "an app (test)!"] {
        for text in TEXTS {
            for operation in [&fundraising_core::operation::CAMPAIGN, &DONATION] {
                cases.push((
                    operation.name.to_owned(),
                    format!("[{}, {}]", json(app_id), json(text)),
                    core_path(operation, app_id, &[PathValue::Text(text)], &[]),
                ));
            }
        }
        for event_id in [1, 1001, -7, 2_147_483_647] {
            for (page, size) in [
                (None, None),
                (Some(1), Some(100)),
                (Some(2), None),
                (None, Some(5)),
            ] {
                let arg = |v: Option<u32>| v.map_or("null".to_owned(), |v| v.to_string());
                cases.push((
                    PAGES.name.to_owned(),
                    format!(
                        "[{}, {event_id}, {}, {}]",
                        json(app_id),
                        arg(page),
                        arg(size)
                    ),
                    core_path(
                        &PAGES,
                        app_id,
                        &[PathValue::Integer(event_id)],
                        &[page.map(f64::from), size.map(f64::from)],
                    ),
                ));
            }
        }
    }
    // Every read of the table has a function, and only the reads.
    let module = generator::module();
    for operation in OPERATIONS {
        let declared = module.contains(&format!("export const {} = (", operation.name));
        assert_eq!(
            declared,
            operation.method == Method::Get,
            "{}",
            operation.name
        );
    }

    let dir = std::env::temp_dir().join(format!("js-operations-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("operations.mjs"), &module).unwrap();
    let calls: Vec<String> = cases
        .iter()
        .map(|(name, args, _)| format!("ops[{}](...{args})", json(name)))
        .collect();
    let script = format!(
        "import * as ops from './operations.mjs';\nconsole.log(JSON.stringify([{}]));\n",
        calls.join(",\n")
    );
    std::fs::write(dir.join("check.mjs"), script).unwrap();
    let output = Command::new("node")
        .arg("check.mjs")
        .current_dir(&dir)
        .output()
        .expect("node runs the generated module (the package build needs it too)");
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        output.status.success(),
        "node: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let paths: Vec<String> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(paths.len(), cases.len());
    for ((name, args, expected), got) in cases.iter().zip(&paths) {
        assert_eq!(got, expected, "{name}({args})");
    }
}
