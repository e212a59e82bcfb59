//! The shared state behind both routers.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::config::Config;
use crate::error::{Result, SandboxError};
use crate::grants::GrantStore;
use crate::keys::SigningKey;
use crate::store::{Database, StagedDonations};

/// Default public address of the identity server (`{auth_url}`).
pub const DEFAULT_ISSUER: &str = "http://127.0.0.1:8082";
/// Default public address of the resource API (`{base_url}`).
pub const DEFAULT_PUBLIC_BASE_URL: &str = "http://127.0.0.1:8081";

#[derive(Debug)]
struct Shared {
    config: Config,
    data_dir: PathBuf,
    db: Database,
    key: SigningKey,
    grants: GrantStore,
    clock: Clock,
    staged: StagedDonations,
}

/// The sandbox: configuration, SQLite data, signing key and issued grants, shared by the
/// identity router and the resource router (so access tokens work on both).
///
/// ```no_run
/// # fn main() -> Result<(), fundraising_sandbox::SandboxError> {
/// use fundraising_sandbox::{api_app, identity_app, Config, Sandbox};
/// let sandbox = Sandbox::open(Config::default(), "/tmp/sandbox-data")?
///     .with_issuer("http://127.0.0.1:9002")
///     .with_public_base_url("http://127.0.0.1:9001");
/// let (_api, _identity) = (api_app(sandbox.clone()), identity_app(sandbox));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Sandbox {
    shared: Arc<Shared>,
    issuer: Arc<str>,
    public_base_url: Arc<str>,
    token_delay: Duration,
}

impl Sandbox {
    /// Opens (creating and seeding on first use) the data dir; the signing key is loaded
    /// from `signing-key.pem` there or generated and saved.
    pub fn open(config: Config, data_dir: impl AsRef<Path>) -> Result<Self> {
        let data_dir = data_dir.as_ref();
        create_dir(data_dir)?;
        let key = SigningKey::load_or_generate(data_dir)?;
        Self::open_with_key(config, data_dir, key)
    }

    /// Like [`Sandbox::open`] but signs with the given key (tests share one key this way;
    /// the key is not written to the data dir).
    pub fn open_with_key(
        config: Config,
        data_dir: impl AsRef<Path>,
        key: SigningKey,
    ) -> Result<Self> {
        let data_dir = data_dir.as_ref();
        create_dir(data_dir)?;
        let db = Database::open(data_dir)?;
        let clock = Clock::default();
        let staged = StagedDonations::new(config.staged_donations.clone(), clock.now_millis());
        Ok(Self {
            shared: Arc::new(Shared {
                config,
                data_dir: data_dir.to_path_buf(),
                db,
                key,
                grants: GrantStore::default(),
                clock,
                staged,
            }),
            issuer: Arc::from(DEFAULT_ISSUER),
            public_base_url: Arc::from(DEFAULT_PUBLIC_BASE_URL),
            token_delay: Duration::ZERO,
        })
    }

    /// Sets the identity server's public address (`iss`, discovery document).
    pub fn with_issuer(mut self, issuer: impl AsRef<str>) -> Self {
        self.issuer = Arc::from(issuer.as_ref().trim_end_matches('/'));
        self
    }

    /// Sets the resource API's public address (`{base_url}` in event links).
    pub fn with_public_base_url(mut self, url: impl AsRef<str>) -> Self {
        self.public_base_url = Arc::from(url.as_ref().trim_end_matches('/'));
        self
    }

    /// Delays every answer of `POST /connect/token` (simulates a slow identity server).
    pub fn with_token_delay(mut self, delay: Duration) -> Self {
        self.token_delay = delay;
        self
    }

    /// The identity server's public address, without a trailing slash.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The resource API's public address, without a trailing slash.
    pub fn public_base_url(&self) -> &str {
        &self.public_base_url
    }

    /// The configured delay of the token endpoint.
    pub fn token_delay(&self) -> Duration {
        self.token_delay
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// The data dir.
    pub fn data_dir(&self) -> &Path {
        &self.shared.data_dir
    }

    /// The SQLite store.
    pub fn db(&self) -> &Database {
        &self.shared.db
    }

    /// The id_token signing key.
    pub fn signing_key(&self) -> &SigningKey {
        &self.shared.key
    }

    /// Codes, sessions and tokens issued so far.
    pub fn grants(&self) -> &GrantStore {
        &self.shared.grants
    }

    /// The clock (tests advance it to expire codes and tokens).
    pub fn clock(&self) -> &Clock {
        &self.shared.clock
    }

    /// The configuration's staged donations, timed from when the sandbox was opened.
    pub fn staged_donations(&self) -> &StagedDonations {
        &self.shared.staged
    }
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| SandboxError::Io {
        path: dir.to_path_buf(),
        source,
    })
}
