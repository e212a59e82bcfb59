//! What `exec` starts, from the configuration file: the sandbox's own configuration with
//! `${NAME}` placeholders filled in, and the companions of its `[[companions]]` tables.
//!
//! Placeholders are filled in on the parsed document, inside its string values: a value is
//! always the text of the string it stands in, whatever it holds (quotes, newlines,
//! brackets), never TOML of its own.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::config::Config;
use crate::error::{Result, SandboxError};

/// Where the command's pages are served from, which decides the default application's home
/// page (the only address a sign-in may come back to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// No site of the command's: the sandbox's default home page.
    None,
    /// The `--companion` companion serves the pages (`--static-dir`): its `/`.
    Companion,
    /// The command runs a dev server on `FUNDRAISING_DEV_SERVER_URL` whose proxy passes `/auth`
    /// (and `/api`) to the companion, so the page, the companion and the home page share one
    /// origin: its `/`.
    DevServer,
}

/// The configuration `exec` uses without `--config`: the demo application and user, and the
/// test-only staging route on, with the home page `site` gives.
pub fn default_exec_config(site: Site) -> String {
    let home_page = match site {
        Site::None => "http://127.0.0.1:8080/",
        Site::Companion => "${FUNDRAISING_COMPANION_URL}/",
        Site::DevServer => "${FUNDRAISING_DEV_SERVER_URL}/",
    };
    format!(
        r#"enable_test_routes = true

[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "{home_page}"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"
"#
    )
}

/// A `[[companions]]` table: a `fundraising-companion` that `exec` starts for one application.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CompanionSpec {
    /// Names its variables: none gives `FUNDRAISING_COMPANION_URL`, `bff` gives
    /// `FUNDRAISING_BFF_COMPANION_URL` and `FUNDRAISING_BFF_APP_ID`.
    #[serde(default)]
    pub name: Option<String>,
    /// The application it signs in for (default: the configuration's first application); its
    /// secret comes from the configuration.
    #[serde(default)]
    pub app_id: Option<String>,
    /// More flags for the companion, e.g. `["--bff"]` or `["--static-dir", "dist"]`
    /// (`${NAME}` placeholders filled in).
    #[serde(default)]
    pub args: Vec<String>,
}

impl CompanionSpec {
    /// The prefix of its variables: `FUNDRAISING_` or `FUNDRAISING_<NAME>_`.
    pub fn prefix(&self) -> String {
        match &self.name {
            None => "FUNDRAISING_".into(),
            Some(name) => format!(
                "FUNDRAISING_{}_",
                name.to_ascii_uppercase().replace('-', "_")
            ),
        }
    }

    /// The variable holding its address.
    pub fn url_variable(&self) -> String {
        format!("{}COMPANION_URL", self.prefix())
    }

    /// The name of its log file in the run folder.
    pub fn log_name(&self) -> String {
        match &self.name {
            None => "companion.log".into(),
            Some(name) => format!("companion-{name}.log"),
        }
    }
}

/// The configuration file split in two: the sandbox's part (still with its placeholders) and
/// the companions.
#[derive(Debug)]
pub struct Plan {
    table: toml::Table,
    /// The companions to start, in the file's order (`--companion` last).
    pub companions: Vec<CompanionSpec>,
}

impl Plan {
    /// Reads the `[[companions]]` tables out of a configuration's text; `extra` (from
    /// `--companion`) is added to them. Names must be distinct and made of letters, digits,
    /// `-` and `_`.
    pub fn parse(text: &str, extra: Option<CompanionSpec>) -> Result<Self> {
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| SandboxError::Config(e.to_string()))?;
        let mut companions: Vec<CompanionSpec> = match table.remove("companions") {
            None => Vec::new(),
            Some(value) => value
                .try_into()
                .map_err(|e| SandboxError::Config(format!("[[companions]]: {e}")))?,
        };
        companions.extend(extra);
        let mut seen = BTreeMap::new();
        for spec in &companions {
            if let Some(name) = &spec.name {
                let valid = !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
                if !valid {
                    return Err(SandboxError::Config(format!(
                        "companion name {name:?} must be letters, digits, '-' or '_'"
                    )));
                }
            }
            if seen.insert(spec.url_variable(), ()).is_some() {
                return Err(SandboxError::Config(match &spec.name {
                    None => "more than one companion without a name (--companion and an unnamed [[companions]] table?)".into(),
                    Some(name) => format!("two companions are named {name:?}"),
                }));
            }
        }
        Ok(Self { table, companions })
    }

    /// The sandbox's configuration with every `${NAME}` in its string values replaced by
    /// `lookup(NAME)`, as text of those strings.
    pub fn config(&self, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Config> {
        let mut table = self.table.clone();
        for (_, value) in table.iter_mut() {
            expand_value(value, lookup)?;
        }
        let text = toml::to_string(&table).map_err(|e| SandboxError::Config(e.to_string()))?;
        Config::from_toml(&text)
    }
}

/// Fills in the placeholders of every string inside `value`.
fn expand_value(value: &mut toml::Value, lookup: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    match value {
        toml::Value::String(text) => *text = expand(text, lookup)?,
        toml::Value::Array(items) => {
            for item in items {
                expand_value(item, lookup)?;
            }
        }
        toml::Value::Table(table) => {
            for (_, item) in table.iter_mut() {
                expand_value(item, lookup)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Replaces each `${NAME}` in `text` by `lookup(NAME)`; `$${` stands for a literal `${`. A name
/// that `lookup` does not know is an error naming it.
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        if rest[..at].ends_with('$') {
            out.push_str(&rest[..at]);
            out.push('{');
            rest = &rest[at + 2..];
            continue;
        }
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('}').ok_or_else(|| {
            SandboxError::Config("a `${` in the configuration is never closed by `}`".into())
        })?;
        let name = &after[..end];
        let value = lookup(name).ok_or_else(|| {
            SandboxError::Config(format!(
                "the configuration names ${{{name}}}, which is neither set by exec nor in the environment"
            ))
        })?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<String> {
        (name == "FUNDRAISING_COMPANION_URL").then(|| "http://127.0.0.1:4000".into())
    }

    #[test]
    fn placeholders_are_filled_and_unknown_ones_refused() {
        assert_eq!(
            expand("home = \"${FUNDRAISING_COMPANION_URL}/\"", &vars).unwrap(),
            "home = \"http://127.0.0.1:4000/\""
        );
        assert_eq!(expand("a $${B} c", &vars).unwrap(), "a ${B} c");
        let unknown = expand("${NO_SUCH}", &vars).unwrap_err().to_string();
        assert!(unknown.contains("${NO_SUCH}"), "{unknown}");
        assert!(expand("${OPEN", &vars).is_err());
    }

    #[test]
    fn companions_are_taken_out_of_the_sandbox_configuration() {
        let plan = Plan::parse(
            "enable_test_routes = true\n[[companions]]\nname = \"bff\"\napp_id = \"demo-app\"\nargs = [\"--bff\"]\n",
            Some(CompanionSpec::default()),
        )
        .unwrap();
        assert_eq!(plan.companions.len(), 2);
        assert_eq!(
            plan.companions[0].url_variable(),
            "FUNDRAISING_BFF_COMPANION_URL"
        );
        assert_eq!(
            plan.companions[1].url_variable(),
            "FUNDRAISING_COMPANION_URL"
        );
        let config = plan.config(&vars).unwrap();
        assert!(config.enable_test_routes);
    }

    /// A value that looks like TOML stays the text of its string: it cannot add a table, an
    /// application or a key.
    #[test]
    fn a_value_is_text_never_toml() {
        let text =
            "[[applications]]\napp_id = \"demo-app\"\nsecret = \"s\"\nhome_page = \"${SITE}\"\n";
        let injected = "http://a.test/\"\n[[applications]]\napp_id = \"evil\"\nsecret = \"x\"\nhome_page = \"http://evil.test/";
        let config = Plan::parse(text, None)
            .unwrap()
            .config(&|name: &str| (name == "SITE").then(|| injected.to_owned()));
        // Either refused as a home page, or kept whole as one: never a second application.
        if let Ok(config) = config {
            assert_eq!(config.applications.len(), 1);
            assert_eq!(config.applications[0].home_page, injected);
        }
        // A plain value with a quote in it is kept as it is.
        let text = "[[users]]\nemail = \"a@example.org\"\npassword = \"pw\"\nname = \"${WHO}\"\n";
        let config = Plan::parse(text, None)
            .unwrap()
            .config(&|name: &str| (name == "WHO").then(|| "O\"Brien\\".to_owned()))
            .unwrap();
        assert_eq!(config.users[0].name, "O\"Brien\\");
    }

    #[test]
    fn companions_need_distinct_names() {
        let twice = "[[companions]]\n[[companions]]\n";
        assert!(Plan::parse(twice, None).is_err());
        assert!(Plan::parse("[[companions]]\n", Some(CompanionSpec::default())).is_err());
        assert!(Plan::parse("[[companions]]\nname = \"a b\"\n", None).is_err());
        assert!(Plan::parse("[[companions]]\nport = 1\n", None).is_err());
    }

    #[test]
    fn the_default_configuration_points_the_home_page_at_the_site() {
        let home_page = |site| {
            let config = Plan::parse(&default_exec_config(site), None)
                .unwrap()
                .config(&|name: &str| match name {
                    "FUNDRAISING_COMPANION_URL" => Some("http://127.0.0.1:4000".into()),
                    "FUNDRAISING_DEV_SERVER_URL" => Some("http://127.0.0.1:5000".into()),
                    _ => None,
                })
                .unwrap();
            assert!(config.enable_test_routes);
            config.applications[0].home_page.clone()
        };
        assert_eq!(home_page(Site::Companion), "http://127.0.0.1:4000/");
        assert_eq!(home_page(Site::DevServer), "http://127.0.0.1:5000/");
        assert_eq!(home_page(Site::None), "http://127.0.0.1:8080/");
    }
}
