//! The TOML configuration: registered applications and users.

use std::path::Path;

use serde::Deserialize;

pub use fundraising_core::secret::Secret;

use crate::error::{Result, SandboxError};
use crate::faults::{FaultSpec, MAX_FAULTS};

/// The configuration used when no `--config` file is given.
pub const DEFAULT_CONFIG_TOML: &str = r#"[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "http://127.0.0.1:8080/"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"
"#;

/// A registered third-party application (OAuth client).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Application {
    /// The application id (`client_id`, and the `{appId}` path segment of resource calls).
    pub app_id: String,
    /// The secret key used with HTTP Basic at the token endpoint.
    pub secret: Secret,
    /// The registered home page; `redirect_uri` must equal it exactly.
    pub home_page: String,
}

/// A user who can sign in at the identity server.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct User {
    /// Login name and `email` claim.
    pub email: String,
    /// The password typed into the login page.
    pub password: Secret,
    /// Display name (`name` claim).
    pub name: String,
}

impl User {
    /// The stable subject identifier (`sub` claim) derived from the email.
    pub fn subject(&self) -> String {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(self.email.to_ascii_lowercase().as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("user-{hex}")
    }
}

/// Most `[[staged_donations]]` a configuration may list.
pub const MAX_STAGED_DONATIONS: usize = 100;

/// A test-only donation for the donation return flow (`[[staged_donations]]`): its reference
/// answers 404 for `appears_after_secs` after the sandbox starts (by [`crate::Clock`]), then
/// the donation with status `Pending`, and from `final_after_secs` on with `final_status`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StagedDonation {
    /// The third-party reference the donor comes back with.
    pub reference: String,
    /// Seconds after start during which the reference is unknown (404).
    #[serde(default)]
    pub appears_after_secs: u64,
    /// Seconds after start from which the status is `final_status` (not before `appears_after_secs`).
    pub final_after_secs: u64,
    /// `Accepted` (default), `Rejected`, `Cancelled`, `Refunded` or `Pending`.
    #[serde(default = "accepted")]
    pub final_status: String,
    /// Decimal amount as text (default `10.00`).
    #[serde(default = "ten")]
    pub amount: String,
    /// Currency code (default `GBP`).
    #[serde(default = "gbp")]
    pub currency_code: String,
    /// Name the donor left with the message.
    #[serde(default)]
    pub donor_display_name: String,
    /// The donor's message.
    #[serde(default)]
    pub message: Option<String>,
    /// Whether the donor allows sharing the message (then anyone sees it).
    #[serde(default)]
    pub share_message: bool,
    /// Owner of the fundraising page (sees the message and the donor's real name).
    #[serde(default)]
    pub owner_email: String,
    /// The donor's real name.
    #[serde(default)]
    pub donor_real_name: Option<String>,
}

impl StagedDonation {
    /// Checks one entry on its own: a non-empty reference of at most 200 characters that is
    /// not a seeded one, times in order and within a year, a known status.
    pub fn check(&self) -> std::result::Result<(), String> {
        const YEAR_SECS: u64 = 86_400 * 365;
        if self.reference.trim().is_empty() || self.reference.chars().count() > 200 {
            return Err("reference must not be empty or longer than 200 characters".into());
        }
        if [crate::DEMO_REF_OWNED, crate::DEMO_REF_SHARED].contains(&self.reference.as_str()) {
            return Err("reference is a seeded one".into());
        }
        if self.final_after_secs < self.appears_after_secs {
            return Err("final_after_secs must not be before appears_after_secs".into());
        }
        if self.appears_after_secs > YEAR_SECS || self.final_after_secs > YEAR_SECS {
            return Err("times must be at most a year".into());
        }
        if !fundraising_core::model::DonationStatus::from_wire(&self.final_status).is_known() {
            return Err(
                "final_status must be Accepted, Rejected, Cancelled, Refunded or Pending".into(),
            );
        }
        Ok(())
    }
}

fn accepted() -> String {
    "Accepted".into()
}
fn ten() -> String {
    "10.00".into()
}
fn gbp() -> String {
    "GBP".into()
}

/// The sandbox configuration: who may call it and who may sign in.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Registered applications.
    #[serde(default)]
    pub applications: Vec<Application>,
    /// Users.
    #[serde(default)]
    pub users: Vec<User>,
    /// Test-only staged donations (none by default).
    #[serde(default)]
    pub staged_donations: Vec<StagedDonation>,
    /// Test-only: serve the `/_sandbox/` routes on both listeners (faults, the request log,
    /// the headless sign-in, the clock, key rotation, revocations, staged donations) and keep
    /// the request log (default false).
    #[serde(default)]
    pub enable_test_routes: bool,
    /// Faults in force from the start (none by default).
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// A `Cross-Origin-Opener-Policy` sent with every page of the identity server (login,
    /// consent, errors), as an identity provider may send one: `same-origin` severs the
    /// sign-in pop-up from the page that opened it. None by default.
    #[serde(default)]
    pub identity_opener_policy: Option<OpenerPolicy>,
}

/// A `Cross-Origin-Opener-Policy` value.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum OpenerPolicy {
    /// `same-origin`: a pop-up on these pages loses its opener.
    SameOrigin,
    /// `same-origin-allow-popups`.
    SameOriginAllowPopups,
    /// `unsafe-none`.
    UnsafeNone,
}

impl OpenerPolicy {
    /// The header's value.
    pub fn value(self) -> &'static str {
        match self {
            Self::SameOrigin => "same-origin",
            Self::SameOriginAllowPopups => "same-origin-allow-popups",
            Self::UnsafeNone => "unsafe-none",
        }
    }
}

impl Default for Config {
    /// Exactly [`DEFAULT_CONFIG_TOML`]: application `demo-app`, user `demo@example.org`.
    fn default() -> Self {
        Self {
            applications: vec![Application {
                app_id: "demo-app".into(),
                secret: Secret::new("demo-secret"),
                home_page: "http://127.0.0.1:8080/".into(),
            }],
            users: vec![User {
                email: "demo@example.org".into(),
                password: Secret::new("demo-password"),
                name: "Demo Fundraiser".into(),
            }],
            staged_donations: Vec::new(),
            enable_test_routes: false,
            faults: Vec::new(),
            identity_opener_policy: None,
        }
    }
}

impl Config {
    /// Parses and checks a TOML document.
    pub fn from_toml(text: &str) -> Result<Self> {
        let config: Config =
            toml::from_str(text).map_err(|e| SandboxError::Config(e.to_string()))?;
        config.check()?;
        Ok(config)
    }

    /// Reads, parses and checks a TOML file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| SandboxError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml(&text)
    }

    fn check(&self) -> Result<()> {
        for (i, app) in self.applications.iter().enumerate() {
            // `/` and spaces cannot stand in the `{appId}` path segment; `:` can, and the
            // token endpoint reads it from the form-urlencoded Basic credentials (RFC 6749
            // §2.3.1).
            if app.app_id.is_empty() || app.app_id.contains(['/', ' ']) {
                return Err(SandboxError::Config(format!(
                    "app_id {:?} must be non-empty and contain no '/' or space",
                    app.app_id
                )));
            }
            if !(app.home_page.starts_with("http://") || app.home_page.starts_with("https://")) {
                return Err(SandboxError::Config(format!(
                    "home_page of {} must be an http(s) URL",
                    app.app_id
                )));
            }
            if self.applications[..i]
                .iter()
                .any(|a| a.app_id == app.app_id)
            {
                return Err(SandboxError::Config(format!(
                    "app_id {} is listed twice",
                    app.app_id
                )));
            }
        }
        for (i, user) in self.users.iter().enumerate() {
            if user.email.is_empty() {
                return Err(SandboxError::Config("a user has an empty email".into()));
            }
            if self.users[..i]
                .iter()
                .any(|u| u.email.eq_ignore_ascii_case(&user.email))
            {
                return Err(SandboxError::Config(format!(
                    "user {} is listed twice",
                    user.email
                )));
            }
        }
        self.check_staged()?;
        let apps = self.application_ids();
        for (i, fault) in self.faults.iter().enumerate() {
            fault
                .check(&apps)
                .map_err(|why| SandboxError::Config(format!("faults[{i}]: {why}")))?;
        }
        if self.faults.len() > MAX_FAULTS {
            return Err(SandboxError::Config(format!(
                "at most {MAX_FAULTS} faults may be listed"
            )));
        }
        Ok(())
    }

    /// The registered applications' ids.
    pub fn application_ids(&self) -> Vec<&str> {
        self.applications
            .iter()
            .map(|a| a.app_id.as_str())
            .collect()
    }

    fn check_staged(&self) -> Result<()> {
        let staged = &self.staged_donations;
        if staged.len() > MAX_STAGED_DONATIONS {
            return Err(SandboxError::Config(format!(
                "at most {MAX_STAGED_DONATIONS} staged_donations may be listed"
            )));
        }
        for (i, d) in staged.iter().enumerate() {
            let listed_twice = staged[..i].iter().any(|o| o.reference == d.reference);
            let why = if listed_twice {
                Err("reference is listed twice".to_owned())
            } else {
                d.check()
            };
            why.map_err(|why| {
                SandboxError::Config(format!("staged donation {:?}: {why}", d.reference))
            })?;
        }
        Ok(())
    }

    /// The application with this id.
    pub fn application(&self, app_id: &str) -> Option<&Application> {
        self.applications.iter().find(|a| a.app_id == app_id)
    }

    /// The user with this email (case-insensitive).
    pub fn user(&self, email: &str) -> Option<&User> {
        self.users
            .iter()
            .find(|u| u.email.eq_ignore_ascii_case(email))
    }

    /// The user whose email and password match.
    pub fn authenticate(&self, email: &str, password: &str) -> Option<&User> {
        self.user(email.trim())
            .filter(|u| u.password.matches(password))
    }
}
