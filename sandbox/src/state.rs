//! The shared state behind both routers.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::Value;

use crate::clock::Clock;
use crate::config::Config;
use crate::error::{Result, SandboxError};
use crate::faults::{FaultSpec, Faults};
use crate::grants::GrantStore;
use crate::keys::{KeyRing, SigningKey};
use crate::request_log::RequestLog;
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
    keys: RwLock<KeyRing>,
    grants: GrantStore,
    clock: Clock,
    staged: StagedDonations,
    faults: Faults,
    requests: RequestLog,
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
        let faults = Faults::default();
        for spec in &config.faults {
            faults
                .add(spec.clone(), &config.application_ids())
                .map_err(SandboxError::Config)?;
        }
        Ok(Self {
            shared: Arc::new(Shared {
                config,
                data_dir: data_dir.to_path_buf(),
                db,
                keys: RwLock::new(KeyRing::new(key)),
                grants: GrantStore::default(),
                clock,
                staged,
                faults,
                requests: RequestLog::default(),
            }),
            issuer: Arc::from(DEFAULT_ISSUER),
            public_base_url: Arc::from(DEFAULT_PUBLIC_BASE_URL),
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

    /// Delays every answer of `POST /connect/token` (a slow identity server): a fault on the
    /// token endpoint until it is removed, as `--token-delay-ms` adds. A zero delay adds none.
    pub fn with_token_delay(self, delay: Duration) -> Self {
        if !delay.is_zero() {
            let spec = FaultSpec {
                endpoint: "token".into(),
                delay_ms: Some(i64::try_from(delay.as_millis()).unwrap_or(i64::MAX)),
                ..FaultSpec::default()
            };
            // A delay above the faults' limit is one at the limit.
            let spec = match spec.check(&[]) {
                Ok(_) => spec,
                Err(_) => FaultSpec {
                    delay_ms: Some(crate::faults::MAX_FAULT_DELAY_MS as i64),
                    ..spec
                },
            };
            let _ = self.shared.faults.add(spec, &[]);
        }
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

    /// The key that signs id_tokens now.
    pub fn signing_key(&self) -> SigningKey {
        self.keys().current().clone()
    }

    /// The JWKS: the signing key and the retired keys still published.
    pub fn jwks(&self) -> Value {
        self.keys().jwks()
    }

    fn keys(&self) -> std::sync::RwLockReadGuard<'_, KeyRing> {
        self.shared.keys.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes `next` the signing key; with `keep_old` the JWKS keeps publishing the old one.
    pub fn rotate_key(&self, next: SigningKey, keep_old: bool) {
        self.shared
            .keys
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .rotate(next, keep_old);
    }

    /// The faults in force.
    pub fn faults(&self) -> &Faults {
        &self.shared.faults
    }

    /// The log of recent requests (kept with `enable_test_routes` only).
    pub fn requests(&self) -> &RequestLog {
        &self.shared.requests
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

/// Creates the data folder (and its parents); a folder it creates is its owner's alone (0700).
fn create_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|source| SandboxError::Io {
        path: dir.to_path_buf(),
        source,
    })
}
