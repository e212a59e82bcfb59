//! The settings the running companion uses, already validated, and the rules for their values.

use crate::error::Error;
use crate::secret::Secret;
use crate::session::{CookieKey, CookieScope, BFF_COOKIE_PATHS, COOKIE_PATHS, HOST_COOKIE_PATHS};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use url::Url;

/// Environment variable that may hold the client secret (the only non-file way to pass it).
pub const SECRET_ENV: &str = "FUNDRAISING_CLIENT_SECRET";

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
    /// Whether the upstream calls go through the proxies the environment names
    /// (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`); never to a loopback server.
    pub upstream_proxy_from_env: bool,
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
    /// The clock the time-bound rules read (the refresh grace window); tests move it.
    pub clock: crate::clock::Clock,
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
            upstream_proxy_from_env: false,
            api_url: None,
            bff: false,
            redis_url: None,
            refresh_grace: Duration::from_millis(DEFAULT_REFRESH_GRACE_MS),
            metrics: false,
            clock: crate::clock::Clock::default(),
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

    /// The session cookie's name, `Secure` attribute and paths: on an https origin the
    /// `__Host-` cookie, `Secure`, on `/` (the prefix allows no other path); on plain http
    /// (local development, where the prefix is not allowed) `fundraising_session` on `/auth`,
    /// and also `/api` in BFF mode, where the proxied calls need it too.
    pub fn cookie_scope(&self) -> CookieScope {
        let secure = self.secure_cookies();
        CookieScope {
            secure,
            paths: if secure {
                HOST_COOKIE_PATHS
            } else if self.bff {
                BFF_COOKIE_PATHS
            } else {
                COOKIE_PATHS
            },
        }
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

/// `scheme://host[:port]` of an http(s) address, as browsers send it in `Origin`.
pub fn normalize_origin(value: &str) -> Result<String, Error> {
    let url =
        Url::parse(value.trim()).map_err(|_| Error::Config(format!("not an origin: {value}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(Error::Config(format!("not an http(s) origin: {value}")));
    }
    Ok(url.origin().ascii_serialization())
}

/// `url` as it may be printed: a user name or password in it is replaced by `redacted`.
///
/// ```
/// let url = "https://user:hunter2@id.example/realm".parse().unwrap();
/// assert_eq!(
///     fundraising_companion::redacted(&url),
///     "https://redacted@id.example/realm"
/// );
/// ```
pub fn redacted(url: &Url) -> String {
    if url.username().is_empty() && url.password().is_none() {
        return url.to_string();
    }
    let mut shown = url.clone();
    let _ = shown.set_password(None);
    let _ = shown.set_username("redacted");
    shown.to_string()
}

/// The warnings a companion starting with `settings` logs: a random cookie key (and with
/// Redis), metrics listening beyond loopback, a listener beyond loopback with an `http://`
/// public origin (the cookie is not `Secure`).
pub fn start_warnings(
    settings: &Settings,
    random_key: bool,
    listen: SocketAddr,
    metrics: Option<SocketAddr>,
) -> Vec<&'static str> {
    let mut warnings = Vec::new();
    if random_key {
        warnings.push(
            "no --cookie-key-file: using a random cookie key; sessions will not survive a \
             restart nor work across several instances",
        );
        if settings.redis_url.is_some() {
            warnings.push(
                "--redis-url without --cookie-key-file: other instances cannot open this one's \
                 cookies nor its refresh outcomes in Redis; give them all the same key file",
            );
        }
    }
    if metrics.is_some_and(|m| !m.ip().is_loopback()) {
        warnings.push(
            "--metrics-listen is not a loopback address: keep the metrics off the public \
             network (a private interface, or a firewall)",
        );
    }
    if !listen.ip().is_loopback() && !settings.secure_cookies() {
        warnings.push(
            "listening beyond loopback with an http:// public origin: the session cookie is not \
             Secure; put a TLS proxy in front and set --public-origin https://...",
        );
    }
    warnings
}

/// Whether `url` names this machine: a loopback address or `localhost`.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => {
            name.eq_ignore_ascii_case("localhost")
                || name.to_ascii_lowercase().ends_with(".localhost")
        }
        None => false,
    }
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
    fn start_warnings_name_what_is_exposed() {
        let settings = Settings::new(
            "a",
            Secret::new("s"),
            "https://id.example".parse().unwrap(),
            "http://127.0.0.1:8080",
        )
        .unwrap();
        let local: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let wide: SocketAddr = "0.0.0.0:9090".parse().unwrap();
        assert!(start_warnings(&settings, false, local, Some(local)).is_empty());
        let metrics = start_warnings(&settings, false, local, Some(wide));
        assert_eq!(metrics.len(), 1);
        assert!(metrics[0].contains("--metrics-listen"), "{metrics:?}");
        let listen = start_warnings(&settings, false, wide, None);
        assert!(listen[0].contains("not Secure"), "{listen:?}");
        let key = start_warnings(&settings, true, local, None);
        assert!(key[0].contains("random cookie key"), "{key:?}");
    }

    #[test]
    fn userinfo_is_redacted_and_loopback_told_apart() {
        let url = |s: &str| Url::parse(s).unwrap();
        assert_eq!(
            redacted(&url("http://alice:s3cret@10.0.0.5:8082/")),
            "http://redacted@10.0.0.5:8082/"
        );
        assert_eq!(redacted(&url("http://:s3cret@h/")), "http://redacted@h/");
        assert_eq!(redacted(&url("https://id.example/")), "https://id.example/");
        for local in [
            "http://127.0.0.1:8082",
            "http://127.3.2.1",
            "http://[::1]:9",
            "http://localhost:8082",
            "http://sandbox.localhost",
        ] {
            assert!(is_loopback(&url(local)), "{local}");
        }
        for remote in ["http://10.0.0.5", "http://id.example", "http://[::2]"] {
            assert!(!is_loopback(&url(remote)), "{remote}");
        }
    }
}
