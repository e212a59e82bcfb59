//! The operator's pages held to the code: `docs/deploy.md`'s flag table against the binary's
//! `--help` (every flag, its variable, its default, its aliases), and `docs/security.md`'s
//! table of the browser-based-apps BCP's rules against the tests it names (each rule names
//! tests that exist, or says why it is not followed).

use clap::CommandFactory;
use fundraising_companion::Args;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn page(name: &str) -> String {
    std::fs::read_to_string(root().join("docs").join(name)).expect("the page")
}

/// The rows of the first table after `heading` in `text`: each row's cells, trimmed.
fn table_after(text: &str, heading: &str) -> Vec<Vec<String>> {
    let at = text
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?}"));
    text[at..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            line.trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

/// The `code` spans of a cell.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_deploy_guide_lists_every_flag_with_its_variable_default_and_aliases() {
    let help = Command::new(env!("CARGO_BIN_EXE_fundraising-companion"))
        .arg("--help")
        .output()
        .expect("--help");
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    // Every flag `--help` prints (an option line starts with its names).
    let printed: BTreeSet<String> = help
        .lines()
        .map(str::trim_start)
        .filter(|line| {
            line.starts_with("--") || line.starts_with("-h, ") || line.starts_with("-V, ")
        })
        .filter_map(|line| {
            line.split([' ', ',', '<'])
                .find(|word| word.starts_with("--"))
                .map(str::to_owned)
        })
        .filter(|flag| flag != "--help" && flag != "--version")
        .collect();
    assert!(printed.len() > 20, "{help}");

    let rows = table_after(&page("deploy.md"), "## Every flag");
    let mut documented = BTreeSet::new();
    let command = Args::command();
    for row in &rows {
        assert_eq!(row.len(), 4, "a row of four cells: {row:?}");
        let names = code_spans(&row[0]);
        let flag = names.first().expect("a flag").clone();
        let arg = command
            .get_arguments()
            .find(|a| a.get_long().map(|l| format!("--{l}")) == Some(flag.clone()))
            .unwrap_or_else(|| panic!("docs/deploy.md lists {flag}, which --help does not"));
        let aliases: BTreeSet<String> = arg
            .get_visible_aliases()
            .unwrap_or_default()
            .into_iter()
            .map(|a| format!("--{a}"))
            .collect();
        let shown: BTreeSet<String> = names[1..].iter().cloned().collect();
        assert_eq!(shown, aliases, "{flag}'s aliases");
        let variable = arg.get_env().map(|e| e.to_string_lossy().into_owned());
        assert_eq!(
            code_spans(&row[1]).first().cloned(),
            variable,
            "{flag}'s variable"
        );
        let takes_value = arg.get_action().takes_values();
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        match (takes_value, defaults.as_slice()) {
            (true, [default]) => assert!(
                code_spans(&row[2]).contains(default),
                "{flag}'s default is {default}, the page says {}",
                row[2]
            ),
            (false, _) => assert_eq!(row[2], "off", "{flag} is a switch"),
            // No fixed default: the page says what stands in (none, or one made at start).
            (true, _) => assert!(!row[2].is_empty(), "{flag}: what stands in for it"),
        }
        assert!(!row[3].is_empty(), "{flag} says what it does");
        assert!(documented.insert(flag.clone()), "{flag} twice");
    }
    assert_eq!(
        documented, printed,
        "docs/deploy.md's flags and --help's differ"
    );
}

/// Whether the test `name` exists in `file` (a Rust `fn`, or a JS test's title).
fn has_test(file: &Path, name: &str) -> bool {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    if file.extension().is_some_and(|e| e == "rs") {
        text.contains(&format!("fn {name}("))
    } else {
        text.contains(name)
    }
}

#[test]
fn every_rule_of_the_bcp_table_names_tests_that_exist_or_why_it_is_not_followed() {
    let rows = table_after(
        &page("security.md"),
        "## The browser-based-apps BCP, rule by rule",
    );
    assert!(rows.len() >= 15, "{} rules", rows.len());
    for row in &rows {
        assert_eq!(row.len(), 5, "rule, for, level, how, tests: {row:?}");
        let (rule, level, how, tests) = (&row[0], &row[2], &row[3], &row[4]);
        assert!(
            level == "MUST" || level == "SHOULD",
            "{rule}: level {level}"
        );
        assert!(!how.is_empty(), "{rule}: how it is followed");
        if tests == "not followed" {
            assert!(
                how.starts_with("**Not followed") && how.len() > 80,
                "{rule} is not followed and must say why: {how}"
            );
            continue;
        }
        let references = code_spans(tests);
        assert!(!references.is_empty(), "{rule} names no test");
        for reference in references {
            let (file, name) = match reference.split_once("::") {
                Some((file, name)) => (file, Some(name)),
                None => (reference.as_str(), None),
            };
            let path = root().join(file);
            assert!(path.is_file(), "{rule}: {file} does not exist");
            if let Some(name) = name {
                assert!(has_test(&path, name), "{rule}: {file} has no test {name}");
            }
        }
    }
}
