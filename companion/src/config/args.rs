//! Command-line flags (each also settable by environment) and the settings built from them.

use crate::error::Error;
use crate::secret::Secret;
use crate::session::{CookieKey, CookieScope, BFF_COOKIE_PATHS, COOKIE_PATHS};
use crate::telemetry::LogFormat;
use clap::Parser;
use fundraising_serve::{
    Limits, DEFAULT_HEADER_READ_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS,
};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use url::Url;

/// Environment variable that may hold the client secret (the only non-file way to pass it).
pub const SECRET_ENV: &str = "FUNDRAISING_CLIENT_SECRET";

/// The companion's flags. The client secret is deliberately not a flag: it comes from
/// `FUNDRAISING_CLIENT_SECRET` or from the file named by `--client-secret-file`.
#[derive(Debug, Clone, Parser)]
#[command(name = "fundraising-companion", version, about)]
pub struct Args {
    /// Address to listen on; port 0 picks a free port (the bound address is printed).
    #[arg(long, env = "COMPANION_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The application id (the Basic user name at the token endpoint and the id_token audience).
    #[arg(long, env = "COMPANION_APP_ID", default_value = "demo-app")]
    pub app_id: String,
    /// File holding the client secret (trailing newline ignored); alternative to FUNDRAISING_CLIENT_SECRET.
    #[arg(long, env = "COMPANION_CLIENT_SECRET_FILE")]
    pub client_secret_file: Option<PathBuf>,
    /// The identity server ({auth_url}); its endpoints come from /.well-known/openid-configuration.
    #[arg(
        long,
        env = "COMPANION_AUTH_URL",
        default_value = "http://127.0.0.1:8082"
    )]
    pub auth_url: Url,
    /// An origin allowed to call the auth endpoints (repeatable; env: comma-separated).
    /// The companion's own public origin is always allowed.
    #[arg(
        long = "allowed-origin",
        env = "COMPANION_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Vec<String>,
    /// The origin browsers use to reach the companion (default http://<listen address>).
    /// An https origin makes the session cookie Secure.
    #[arg(long, env = "COMPANION_PUBLIC_ORIGIN")]
    pub public_origin: Option<String>,
    /// File with at least 32 bytes of key material sealing the session cookie; without it a
    /// random key is made at start (sessions then neither survive a restart nor span instances).
    #[arg(long, env = "COMPANION_COOKIE_KEY_FILE")]
    pub cookie_key_file: Option<PathBuf>,
    /// Folder served at / (the demo site). A `pkg/` inside it is served at /pkg too.
    #[arg(long, env = "COMPANION_STATIC_DIR")]
    pub static_dir: Option<PathBuf>,
    /// Folder served at /pkg (the npm package: fundraising_client.js and its .wasm).
    #[arg(long, env = "COMPANION_PKG_DIR")]
    pub pkg_dir: Option<PathBuf>,
    /// Timeout of each call to the identity server, in milliseconds.
    #[arg(long, env = "COMPANION_UPSTREAM_TIMEOUT_MS", default_value_t = 10_000)]
    pub upstream_timeout_ms: u64,
    /// The resource API ({base_url}) the served pages call; their Content-Security-Policy
    /// then allows connections only to it, the identity server and the companion. With
    /// `--bff`, also the upstream of the `/api/...` proxy.
    #[arg(long, env = "COMPANION_API_URL")]
    pub api_url: Option<Url>,
    /// BFF mode: the page holds no token. The companion proxies the four resource operations
    /// (`/api/...` to `{api_url}/{app_id}/v1/...`) and attaches the bearer token itself;
    /// `/auth/token` and `/auth/refresh` answer without `accessToken`. Needs `--api-url`.
    #[arg(long, env = "COMPANION_BFF")]
    pub bff: bool,
    /// Time a client has to send a whole request head (also the wait for the next request on a
    /// kept-alive connection), in milliseconds; then the connection is closed.
    #[arg(long, env = "COMPANION_HEADER_READ_TIMEOUT_MS", default_value_t = DEFAULT_HEADER_READ_TIMEOUT_MS)]
    pub header_read_timeout_ms: u64,
    /// Time a socket read or write may wait without progress (a stalled body, a client that
    /// stops reading, a request taking longer), in milliseconds; then the connection is closed.
    #[arg(long, env = "COMPANION_IDLE_TIMEOUT_MS", default_value_t = DEFAULT_IDLE_TIMEOUT_MS)]
    pub idle_timeout_ms: u64,
    /// Time from a request's head to its answer's head (the body read included), in
    /// milliseconds; then the connection is closed without an answer.
    #[arg(long, env = "COMPANION_REQUEST_TIMEOUT_MS", default_value_t = DEFAULT_REQUEST_TIMEOUT_MS)]
    pub request_timeout_ms: u64,
    /// Open connections at most; at the cap new clients wait until one closes.
    #[arg(long, env = "COMPANION_MAX_CONNECTIONS", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// On SIGTERM or Ctrl-C the companion drains: readiness fails at once, the listener
    /// closes, and requests in flight get this long to finish (in milliseconds); connections
    /// still open then are closed and the process exits 0.
    #[arg(
        long = "drain-timeout-ms",
        visible_alias = "drain-timeout",
        alias = "shutdown-timeout-ms",
        env = "COMPANION_DRAIN_TIMEOUT_MS",
        default_value_t = DEFAULT_SHUTDOWN_TIMEOUT_MS
    )]
    pub shutdown_timeout_ms: u64,
    /// Threads serving connections (default: one per core). Each connection is served on one
    /// thread, together with the upstream calls its requests make.
    #[arg(long, env = "COMPANION_THREADS")]
    pub threads: Option<usize>,
    /// Redis shared by every instance (`redis://[:password@]host:port[/db]` or
    /// `redis+unix:///path`): the single-flight refresh and the grace window of a rotated
    /// refresh token then span instances. Without it they are per instance.
    #[arg(long, env = "COMPANION_REDIS_URL")]
    pub redis_url: Option<String>,
    /// How long a refresh's outcome is given to requests still carrying the cookie it
    /// replaced (other tabs), counted from the end of the refresh, in milliseconds.
    #[arg(long, env = "COMPANION_REFRESH_GRACE_MS", default_value_t = DEFAULT_REFRESH_GRACE_MS)]
    pub refresh_grace_ms: u64,
    /// Address serving the Prometheus metrics at `/metrics` (e.g. 127.0.0.1:9090); off when
    /// not given. Keep it off the public network.
    #[arg(long, env = "COMPANION_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// Log lines as human-readable text or as JSON objects (one per line).
    #[arg(long, env = "COMPANION_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// OpenTelemetry collector receiving the spans over OTLP/HTTP (e.g. http://127.0.0.1:4318;
    /// spans go to its /v1/traces). Needs the `otlp` cargo feature; off when not given.
    #[arg(long, env = "COMPANION_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<Url>,
}

/// Default of `--refresh-grace-ms`: 10 s.
pub const DEFAULT_REFRESH_GRACE_MS: u64 = 10_000;

/// Everything the running companion needs, already validated.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The application id.
    pub app_id: String,
    /// The client secret (Basic password at the token endpoint).
    pub client_secret: Secret,
    /// The identity server's address; discovery is fetched from below it.
    pub auth_url: Url,
    /// The origin browsers use to reach the companion, e.g. `http://127.0.0.1:8080`.
    pub public_origin: String,
    /// Origins allowed to call the auth endpoints (normalised; includes the public origin).
    pub allowed_origins: Vec<String>,
    /// Key sealing the session cookie.
    pub cookie_key: CookieKey,
    /// Folder served at `/`.
    pub static_dir: Option<PathBuf>,
    /// Folder served at `/pkg`.
    pub pkg_dir: Option<PathBuf>,
    /// Timeout of each upstream call.
    pub upstream_timeout: Duration,
    /// The resource API the served pages call (narrows their CSP's `connect-src`); in BFF
    /// mode the proxy's upstream.
    pub api_url: Option<Url>,
    /// BFF mode: `/api/...` is proxied and no token reaches the page (needs `api_url`).
    pub bff: bool,
    /// Redis sharing refresh flights between instances (may hold a password: never printed).
    pub redis_url: Option<Secret>,
    /// How long a refresh's outcome is shared with requests still carrying the cookie it
    /// replaced, from the end of the refresh.
    pub refresh_grace: Duration,
    /// Whether metrics are kept (`--metrics-listen` given).
    pub metrics: bool,
}

impl Settings {
    /// Settings with defaults for everything but the essentials; handy in tests and embedding.
    pub fn new(
        app_id: &str,
        client_secret: Secret,
        auth_url: Url,
        public_origin: &str,
    ) -> Result<Self, Error> {
        let public_origin = normalize_origin(public_origin)?;
        Ok(Self {
            app_id: app_id.to_owned(),
            client_secret,
            auth_url,
            allowed_origins: vec![public_origin.clone()],
            public_origin,
            cookie_key: CookieKey::random(),
            static_dir: None,
            pkg_dir: None,
            upstream_timeout: Duration::from_millis(10_000),
            api_url: None,
            bff: false,
            redis_url: None,
            refresh_grace: Duration::from_millis(DEFAULT_REFRESH_GRACE_MS),
            metrics: false,
        })
    }

    /// Adds an allowed origin (normalised; duplicates ignored).
    pub fn allow_origin(&mut self, origin: &str) -> Result<(), Error> {
        let origin = normalize_origin(origin)?;
        if !self.allowed_origins.contains(&origin) {
            self.allowed_origins.push(origin);
        }
        Ok(())
    }

    /// Whether the session cookie gets the `Secure` attribute (public origin is https).
    pub fn secure_cookies(&self) -> bool {
        self.public_origin.starts_with("https://")
    }

    /// The session cookie's `Secure` attribute and paths (`/auth`, and also `/api` in BFF
    /// mode, where the proxied calls need it too).
    pub fn cookie_scope(&self) -> CookieScope {
        CookieScope {
            secure: self.secure_cookies(),
            paths: if self.bff {
                BFF_COOKIE_PATHS
            } else {
                COOKIE_PATHS
            },
        }
    }
}

impl Args {
    /// The listener's limits (timeouts, connection cap, shutdown deadline).
    pub fn limits(&self) -> Limits {
        Limits::from_millis(
            self.header_read_timeout_ms,
            self.idle_timeout_ms,
            self.request_timeout_ms,
            self.max_connections,
            self.shutdown_timeout_ms,
        )
    }

    /// Builds the settings once the listener is bound (`bound` fills a port-0 public origin).
    /// `secret_env` is the value of `FUNDRAISING_CLIENT_SECRET`, if set. Returns the settings and
    /// whether the cookie key is a random one made at start.
    pub fn into_settings(
        self,
        bound: SocketAddr,
        secret_env: Option<String>,
    ) -> Result<(Settings, bool), Error> {
        let client_secret = read_client_secret(secret_env, self.client_secret_file.as_deref())?;
        if !matches!(self.auth_url.scheme(), "http" | "https") {
            return Err(Error::Config(
                "--auth-url must be an http or https address".into(),
            ));
        }
        if self.auth_url.scheme() == "https" && !cfg!(feature = "rustls") {
            return Err(Error::Config(
                "an https --auth-url needs the `rustls` cargo feature (on by default)".into(),
            ));
        }
        let public_origin = self
            .public_origin
            .unwrap_or_else(|| format!("http://{bound}"));
        let mut settings =
            Settings::new(&self.app_id, client_secret, self.auth_url, &public_origin)?;
        for origin in &self.allowed_origins {
            settings.allow_origin(origin)?;
        }
        let random_key = self.cookie_key_file.is_none();
        if let Some(path) = &self.cookie_key_file {
            settings.cookie_key = CookieKey::from_file(path)?;
        }
        settings.static_dir = self.static_dir;
        settings.pkg_dir = self.pkg_dir;
        settings.upstream_timeout = Duration::from_millis(self.upstream_timeout_ms.max(1));
        if let Some(api) = &self.api_url {
            normalize_origin(api.as_str())?;
        }
        if self.bff && self.api_url.is_none() {
            return Err(Error::Config(
                "--bff needs --api-url (COMPANION_API_URL): the resource API the companion proxies to".into(),
            ));
        }
        settings.api_url = self.api_url;
        settings.bff = self.bff;
        settings.refresh_grace = Duration::from_millis(self.refresh_grace_ms);
        settings.metrics = self.metrics_listen.is_some();
        if let Some(url) = self.redis_url.filter(|u| !u.trim().is_empty()) {
            check_redis_url(&url)?;
            settings.redis_url = Some(Secret::new(url.trim()));
        }
        Ok((settings, random_key))
    }
}

/// The client secret from exactly one of the environment value or the file.
pub fn read_client_secret(env: Option<String>, file: Option<&Path>) -> Result<Secret, Error> {
    let raw = match (env.filter(|v| !v.is_empty()), file) {
        (Some(_), Some(_)) => {
            return Err(Error::Config(format!(
            "give the client secret either in {SECRET_ENV} or with --client-secret-file, not both"
        )))
        }
        (Some(value), None) => value,
        (None, Some(path)) => std::fs::read_to_string(path).map_err(|e| {
            Error::Config(format!(
                "cannot read the client secret file {}: {e}",
                path.display()
            ))
        })?,
        (None, None) => {
            return Err(Error::Config(format!(
                "the client secret is missing: set {SECRET_ENV} or pass --client-secret-file"
            )))
        }
    };
    let trimmed = raw.trim_end_matches(['\r', '\n']);
    if trimmed.is_empty() {
        return Err(Error::Config("the client secret is empty".into()));
    }
    Ok(Secret::new(trimmed))
}

/// Checks a `--redis-url` without connecting (the message never repeats it: it may hold a
/// password). TLS (`rediss://`) is not built in.
fn check_redis_url(url: &str) -> Result<(), Error> {
    let scheme = url.trim().split("://").next().unwrap_or_default();
    if !matches!(scheme, "redis" | "redis+unix" | "unix")
        || redis::Client::open(url.trim()).is_err()
    {
        return Err(Error::Config(
            "--redis-url must be redis://[:password@]host:port[/db] or redis+unix:///path (no TLS)"
                .into(),
        ));
    }
    Ok(())
}

/// `scheme://host[:port]` of an http(s) address, as browsers send it in `Origin`.
pub fn normalize_origin(value: &str) -> Result<String, Error> {
    let url =
        Url::parse(value.trim()).map_err(|_| Error::Config(format!("not an origin: {value}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(Error::Config(format!("not an http(s) origin: {value}")));
    }
    Ok(url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_normalised() {
        assert_eq!(
            normalize_origin("http://127.0.0.1:8080/").unwrap(),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            normalize_origin("HTTPS://Example.ORG:443").unwrap(),
            "https://example.org"
        );
        assert!(normalize_origin("ftp://example.org").is_err());
        assert!(normalize_origin("nonsense").is_err());
    }

    #[test]
    fn the_secret_comes_from_exactly_one_place() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secret");
        std::fs::write(&file, "from-file\n").unwrap();
        assert_eq!(
            read_client_secret(None, Some(&file)).unwrap().expose(),
            "from-file"
        );
        assert_eq!(
            read_client_secret(Some("from-env".into()), None)
                .unwrap()
                .expose(),
            "from-env"
        );
        assert!(read_client_secret(Some("x".into()), Some(&file)).is_err());
        let missing = read_client_secret(None, None).unwrap_err().to_string();
        assert!(missing.contains(SECRET_ENV));
        std::fs::write(&file, "\n").unwrap();
        assert!(read_client_secret(None, Some(&file)).is_err());
    }

    #[test]
    fn every_flag_is_also_an_environment_variable() {
        let cmd = <Args as clap::CommandFactory>::command();
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            assert!(
                arg.get_env().is_some(),
                "flag {id} has no environment variable"
            );
        }
        assert!(cmd
            .get_arguments()
            .all(|a| !a.get_id().as_str().contains("client_secret")
                || a.get_id() == "client_secret_file"));
    }

    #[test]
    fn settings_from_flags() {
        let args = Args::try_parse_from([
            "companion",
            "--listen",
            "127.0.0.1:0",
            "--allowed-origin",
            "http://localhost:3000/",
            "--public-origin",
            "https://partner.example",
            "--upstream-timeout-ms",
            "250",
        ])
        .unwrap();
        let (settings, random_key) = args
            .into_settings("127.0.0.1:4000".parse().unwrap(), Some("s3cret".into()))
            .unwrap();
        assert!(random_key);
        assert!(settings.secure_cookies());
        assert_eq!(
            settings.allowed_origins,
            vec!["https://partner.example", "http://localhost:3000"]
        );
        assert_eq!(settings.upstream_timeout, Duration::from_millis(250));
        assert!(!format!("{settings:?}").contains("s3cret"));
    }

    #[test]
    fn bff_needs_an_api_url() {
        let bound = "127.0.0.1:4000".parse().unwrap();
        let args = Args::try_parse_from(["companion", "--bff"]).unwrap();
        let error = args.into_settings(bound, Some("s".into())).unwrap_err();
        assert!(error.to_string().contains("--api-url"), "{error}");
        let args =
            Args::try_parse_from(["companion", "--bff", "--api-url", "http://127.0.0.1:8081"])
                .unwrap();
        let (settings, _) = args.into_settings(bound, Some("s".into())).unwrap();
        assert!(settings.bff);
        assert_eq!(settings.cookie_scope().paths, ["/auth", "/api"]);
        let args = Args::try_parse_from(["companion"]).unwrap();
        let (settings, _) = args.into_settings(bound, Some("s".into())).unwrap();
        assert!(!settings.bff);
        assert_eq!(settings.cookie_scope().paths, ["/auth"]);
    }

    #[test]
    fn the_redis_url_is_checked_and_never_printed() {
        let parse = |url: &str| {
            Args::try_parse_from(["companion", "--redis-url", url])
                .unwrap()
                .into_settings("127.0.0.1:4000".parse().unwrap(), Some("s".into()))
        };
        let (settings, _) = parse("redis://:hunter22@127.0.0.1:6390/2").unwrap();
        assert_eq!(
            settings.redis_url.as_ref().map(Secret::expose),
            Some("redis://:hunter22@127.0.0.1:6390/2")
        );
        assert!(!format!("{settings:?}").contains("hunter22"));
        assert!(parse("redis+unix:///run/redis.sock").is_ok());
        for bad in ["rediss://h:6379", "http://h:6379", "nonsense", "redis://"] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("--redis-url"), "{bad}: {e}");
        }
        let (none, _) = Args::try_parse_from(["companion"])
            .unwrap()
            .into_settings("127.0.0.1:4000".parse().unwrap(), Some("s".into()))
            .unwrap();
        assert!(none.redis_url.is_none());
    }

    #[test]
    fn listener_limits_from_flags() {
        let defaults = Args::try_parse_from(["companion"]).unwrap().limits();
        assert_eq!(defaults, Limits::default());
        let args = Args::try_parse_from([
            "companion",
            "--header-read-timeout-ms",
            "500",
            "--idle-timeout-ms",
            "2000",
            "--request-timeout-ms",
            "4000",
            "--max-connections",
            "8",
            "--drain-timeout",
            "300",
        ])
        .unwrap();
        let limits = args.limits();
        assert_eq!(limits.header_read_timeout, Duration::from_millis(500));
        assert_eq!(limits.idle_timeout, Duration::from_millis(2000));
        assert_eq!(limits.request_timeout, Duration::from_millis(4000));
        assert_eq!(limits.max_connections, 8);
        assert_eq!(limits.shutdown_timeout, Duration::from_millis(300));
    }
}
