//! The companion's command-line flags (each also settable by environment), and how they
//! become [`Settings`].

use super::settings::{
    is_loopback, normalize_origin, read_client_secret, Settings, DEFAULT_REFRESH_GRACE_MS,
};
use crate::error::Error;
use crate::secret::Secret;
use crate::session::CookieKey;
use crate::telemetry::LogFormat;
use clap::Parser;
use fundraising_serve::{Limits, ListenerFlags};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use url::Url;

fundraising_serve::limit_env!(
    /// The environment variables of the companion's listener limits (`COMPANION_...`).
    pub CompanionEnv,
    "COMPANION"
);

/// The application id `--demo` uses: the sandbox's demo application.
pub const DEMO_APP_ID: &str = "demo-app";
/// The identity server `--demo` uses: the sandbox's, at its default address.
pub const DEMO_AUTH_URL: &str = "http://127.0.0.1:8082";

/// The companion's flags. The client secret is deliberately not a flag: it comes from
/// `FUNDRAISING_CLIENT_SECRET` or from the file named by `--client-secret-file`.
#[derive(Debug, Clone, Parser)]
#[command(name = "fundraising-companion", version, about)]
pub struct Args {
    /// Address to listen on; port 0 picks a free port (the bound address is printed).
    #[arg(long, env = "COMPANION_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The application id (the Basic user name at the token endpoint and the id_token
    /// audience). Required, unless --demo.
    #[arg(long, env = "COMPANION_APP_ID")]
    pub app_id: Option<String>,
    /// The local demo: --app-id defaults to demo-app and --auth-url to the sandbox at
    /// http://127.0.0.1:8082. Never in production.
    #[arg(long, env = "COMPANION_DEMO")]
    pub demo: bool,
    /// File holding the client secret (trailing newline ignored); alternative to FUNDRAISING_CLIENT_SECRET.
    #[arg(long, env = "COMPANION_CLIENT_SECRET_FILE")]
    pub client_secret_file: Option<PathBuf>,
    /// The identity server ({auth_url}); its endpoints come from
    /// /.well-known/openid-configuration. Required, unless --demo. An http:// address must be
    /// this machine's (loopback), unless --allow-insecure-auth-url.
    #[arg(long, env = "COMPANION_AUTH_URL")]
    pub auth_url: Option<Url>,
    /// Allows an http:// --auth-url on another machine: the client secret, the codes and the
    /// tokens then cross the network in clear text.
    #[arg(long, env = "COMPANION_ALLOW_INSECURE_AUTH_URL")]
    pub allow_insecure_auth_url: bool,
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
    /// Send the upstream calls (identity server, resource API) through the proxies the
    /// environment names (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY). Off by default: a
    /// proxy sees the client secret, the codes and the tokens. A server on this machine
    /// (loopback, localhost) is always reached directly.
    #[arg(long, env = "COMPANION_UPSTREAM_PROXY_FROM_ENV")]
    pub upstream_proxy_from_env: bool,
    /// Allows an http:// --api-url on another machine in BFF mode: the bearer tokens the
    /// companion attaches then cross the network in clear text.
    #[arg(long, env = "COMPANION_ALLOW_INSECURE_API_URL")]
    pub allow_insecure_api_url: bool,
    /// Timeout of each call to the identity server, in milliseconds.
    #[arg(long, env = "COMPANION_UPSTREAM_TIMEOUT_MS", default_value_t = 10_000)]
    pub upstream_timeout_ms: u64,
    /// The resource API ({base_url}) the served pages call; their Content-Security-Policy
    /// then allows connections only to it, the identity server and the companion. With
    /// `--bff`, also the upstream of the `/api/...` proxy.
    #[arg(long, env = "COMPANION_API_URL")]
    pub api_url: Option<Url>,
    /// BFF mode: the page holds no token. The companion proxies the resource operations
    /// (`/api/...` to `{api_url}/{app_id}/v1/...`) and attaches the bearer token itself;
    /// `/auth/token` and `/auth/refresh` answer without `accessToken`. Needs `--api-url`.
    #[arg(long, env = "COMPANION_BFF")]
    pub bff: bool,
    /// The listener's limits (timeouts, head size, connections, drain deadline).
    #[command(flatten)]
    pub limits: ListenerFlags<CompanionEnv>,
    /// On SIGTERM or Ctrl-C, how long readiness answers 503 while the listener still accepts,
    /// before the drain starts (in milliseconds): the time a load balancer needs to see it.
    #[arg(
        long = "drain-delay-ms",
        visible_alias = "drain-delay",
        env = "COMPANION_DRAIN_DELAY_MS",
        default_value_t = 0
    )]
    pub drain_delay_ms: u64,
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
    /// not given. Keep it off the public network (a warning says when it is not loopback).
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

impl Args {
    /// The listener's limits (timeouts, head size, connection cap, drain deadline).
    pub fn limits(&self) -> Limits {
        self.limits.limits()
    }

    /// The pause between SIGTERM and the drain, while readiness fails.
    pub fn drain_delay(&self) -> Duration {
        Duration::from_millis(self.drain_delay_ms)
    }

    /// Builds the settings once the listener is bound (`bound` fills a port-0 public origin).
    /// `secret_env` is the value of `FUNDRAISING_CLIENT_SECRET`, if set. Returns the settings and
    /// whether the cookie key is a random one made at start.
    ///
    /// Refused: no `--app-id` or `--auth-url` without `--demo` (the demo's values would sign
    /// users into the wrong application, and send the secret to whatever listens on the
    /// sandbox's port), and an `http://` identity server on another machine without
    /// `--allow-insecure-auth-url`.
    pub fn into_settings(
        self,
        bound: SocketAddr,
        secret_env: Option<String>,
    ) -> Result<(Settings, bool), Error> {
        let app_id = match (self.app_id, self.demo) {
            (Some(id), _) if !id.trim().is_empty() => id,
            (_, true) => DEMO_APP_ID.to_owned(),
            _ => {
                return Err(Error::Config(
                    "--app-id (COMPANION_APP_ID) is required: your application's id. \
                     For the local demo against the sandbox, pass --demo"
                        .into(),
                ))
            }
        };
        let auth_url = match (self.auth_url, self.demo) {
            (Some(url), _) => url,
            (None, true) => Url::parse(DEMO_AUTH_URL).expect("the demo's address parses"),
            (None, false) => {
                return Err(Error::Config(
                    "--auth-url (COMPANION_AUTH_URL) is required: the identity server's https \
                     address. For the local demo against the sandbox, pass --demo"
                        .into(),
                ))
            }
        };
        let client_secret = read_client_secret(secret_env, self.client_secret_file.as_deref())?;
        check_auth_url(&auth_url, self.allow_insecure_auth_url)?;
        let public_origin = self
            .public_origin
            .unwrap_or_else(|| format!("http://{bound}"));
        let mut settings = Settings::new(&app_id, client_secret, auth_url, &public_origin)?;
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
        settings.upstream_proxy_from_env = self.upstream_proxy_from_env;
        if let Some(api) = &self.api_url {
            normalize_origin(api.as_str())?;
        }
        if self.bff && self.api_url.is_none() {
            return Err(Error::Config(
                "--bff needs --api-url (COMPANION_API_URL): the resource API the companion proxies to".into(),
            ));
        }
        if let Some(api) = self.api_url.as_ref().filter(|_| self.bff) {
            check_api_url(api, self.allow_insecure_api_url)?;
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

/// An `--auth-url` the companion may send the secret to: http or https (https needs the
/// `rustls` feature), and http only on this machine unless the risk is named.
fn check_auth_url(url: &Url, allow_insecure: bool) -> Result<(), Error> {
    match url.scheme() {
        "https" if !cfg!(feature = "rustls") => Err(Error::Config(
            "an https --auth-url needs the `rustls` cargo feature (on by default)".into(),
        )),
        "https" => Ok(()),
        "http" if is_loopback(url) || allow_insecure => Ok(()),
        "http" => Err(Error::Config(
            "--auth-url is http:// on another machine: the client secret, codes and tokens \
             would cross the network in clear text. Use https://, or pass \
             --allow-insecure-auth-url to accept that"
                .into(),
        )),
        _ => Err(Error::Config(
            "--auth-url must be an http or https address".into(),
        )),
    }
}

/// A BFF `--api-url` the companion may send bearer tokens to: https, or http on this machine
/// unless the risk is named (as for `--auth-url`).
fn check_api_url(url: &Url, allow_insecure: bool) -> Result<(), Error> {
    match url.scheme() {
        "https" if !cfg!(feature = "rustls") => Err(Error::Config(
            "an https --api-url needs the `rustls` cargo feature (on by default)".into(),
        )),
        "http" if !is_loopback(url) && !allow_insecure => Err(Error::Config(
            "--api-url is http:// on another machine: in BFF mode every proxied call would \
             send the bearer token in clear text. Use https://, or pass \
             --allow-insecure-api-url to accept that"
                .into(),
        )),
        _ => Ok(()),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags a production companion needs at least, then `extra`.
    fn parse(extra: &[&str]) -> Args {
        let mut argv = vec![
            "companion",
            "--app-id",
            "partner-app",
            "--auth-url",
            "http://127.0.0.1:8082",
        ];
        argv.extend_from_slice(extra);
        Args::try_parse_from(argv).unwrap()
    }

    fn bound() -> SocketAddr {
        "127.0.0.1:4000".parse().unwrap()
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
        let args = parse(&[
            "--listen",
            "127.0.0.1:0",
            "--allowed-origin",
            "http://localhost:3000/",
            "--public-origin",
            "https://partner.example",
            "--upstream-timeout-ms",
            "250",
        ]);
        let (settings, random_key) = args.into_settings(bound(), Some("s3cret".into())).unwrap();
        assert!(random_key);
        assert!(settings.secure_cookies());
        assert_eq!(settings.app_id, "partner-app");
        assert_eq!(
            settings.allowed_origins,
            vec!["https://partner.example", "http://localhost:3000"]
        );
        assert_eq!(settings.upstream_timeout, Duration::from_millis(250));
        assert!(!format!("{settings:?}").contains("s3cret"));
    }

    #[test]
    fn the_demo_defaults_need_demo() {
        for (argv, missing) in [
            (vec!["companion"], "--app-id"),
            (vec!["companion", "--app-id", "a"], "--auth-url"),
            (
                vec!["companion", "--auth-url", "https://id.example"],
                "--app-id",
            ),
        ] {
            let error = Args::try_parse_from(argv)
                .unwrap()
                .into_settings(bound(), Some("s".into()))
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(missing) && error.contains("--demo"),
                "{error}"
            );
        }
        let (demo, _) = Args::try_parse_from(["companion", "--demo"])
            .unwrap()
            .into_settings(bound(), Some("s".into()))
            .unwrap();
        assert_eq!(demo.app_id, DEMO_APP_ID);
        assert_eq!(demo.auth_url.as_str(), "http://127.0.0.1:8082/");
        // Explicit values win over the demo's.
        let (mixed, _) = Args::try_parse_from(["companion", "--demo", "--app-id", "mine"])
            .unwrap()
            .into_settings(bound(), Some("s".into()))
            .unwrap();
        assert_eq!(mixed.app_id, "mine");
    }

    #[test]
    fn a_remote_http_identity_server_needs_the_risk_named() {
        let settings = |extra: &[&str]| {
            let mut argv = vec!["companion", "--app-id", "a"];
            argv.extend_from_slice(extra);
            Args::try_parse_from(argv)
                .unwrap()
                .into_settings(bound(), Some("s".into()))
        };
        let error = settings(&["--auth-url", "http://10.0.0.5:8082"])
            .unwrap_err()
            .to_string();
        assert!(error.contains("--allow-insecure-auth-url"), "{error}");
        assert!(settings(&[
            "--auth-url",
            "http://10.0.0.5:8082",
            "--allow-insecure-auth-url"
        ])
        .is_ok());
        for fine in [
            "http://127.0.0.1:8082",
            "http://localhost:8082",
            "http://[::1]:8082",
            "https://id.example",
        ] {
            assert!(settings(&["--auth-url", fine]).is_ok(), "{fine}");
        }
        assert!(settings(&["--auth-url", "ftp://id.example"]).is_err());
    }

    /// In BFF mode the proxy sends the bearer token to `--api-url`: a remote http:// one
    /// needs the risk named, as the identity server does. Without `--bff` no token goes there.
    #[test]
    fn a_remote_http_api_in_bff_mode_needs_the_risk_named() {
        let settings = |extra: &[&str]| parse(extra).into_settings(bound(), Some("s".into()));
        let remote = ["--bff", "--api-url", "http://10.0.0.5:8081"];
        let error = settings(&remote).unwrap_err().to_string();
        assert!(error.contains("--allow-insecure-api-url"), "{error}");
        assert!(settings(&[&remote[..], &["--allow-insecure-api-url"]].concat()).is_ok());
        assert!(settings(&["--api-url", "http://10.0.0.5:8081"]).is_ok());
        for fine in [
            "http://127.0.0.1:8081",
            "http://localhost:8081",
            "https://api.example",
        ] {
            assert!(settings(&["--bff", "--api-url", fine]).is_ok(), "{fine}");
        }
    }

    /// The environment's proxies are used only when asked for.
    #[test]
    fn proxies_from_the_environment_only_when_asked() {
        let (plain, _) = parse(&[]).into_settings(bound(), Some("s".into())).unwrap();
        assert!(!plain.upstream_proxy_from_env);
        let (asked, _) = parse(&["--upstream-proxy-from-env"])
            .into_settings(bound(), Some("s".into()))
            .unwrap();
        assert!(asked.upstream_proxy_from_env);
    }

    #[test]
    fn bff_needs_an_api_url() {
        let error = parse(&["--bff"])
            .into_settings(bound(), Some("s".into()))
            .unwrap_err();
        assert!(error.to_string().contains("--api-url"), "{error}");
        let (settings, _) = parse(&["--bff", "--api-url", "http://127.0.0.1:8081"])
            .into_settings(bound(), Some("s".into()))
            .unwrap();
        assert!(settings.bff);
        assert_eq!(settings.cookie_scope().paths, ["/auth", "/api"]);
        let (settings, _) = parse(&[]).into_settings(bound(), Some("s".into())).unwrap();
        assert!(!settings.bff);
        assert_eq!(settings.cookie_scope().paths, ["/auth"]);
    }

    #[test]
    fn the_redis_url_is_checked_and_never_printed() {
        let with =
            |url: &str| parse(&["--redis-url", url]).into_settings(bound(), Some("s".into()));
        let (settings, _) = with("redis://:hunter22@127.0.0.1:6390/2").unwrap();
        assert_eq!(
            settings.redis_url.as_ref().map(Secret::expose),
            Some("redis://:hunter22@127.0.0.1:6390/2")
        );
        assert!(!format!("{settings:?}").contains("hunter22"));
        assert!(with("redis+unix:///run/redis.sock").is_ok());
        for bad in ["rediss://h:6379", "http://h:6379", "nonsense", "redis://"] {
            let e = with(bad).unwrap_err().to_string();
            assert!(e.contains("--redis-url"), "{bad}: {e}");
        }
        let (none, _) = parse(&[]).into_settings(bound(), Some("s".into())).unwrap();
        assert!(none.redis_url.is_none());
    }

    #[test]
    fn listener_limits_and_the_drain_delay_from_flags() {
        assert_eq!(parse(&[]).limits(), Limits::default());
        assert_eq!(parse(&[]).drain_delay(), Duration::ZERO);
        let args = parse(&[
            "--header-read-timeout-ms",
            "500",
            "--max-header-bytes",
            "9000",
            "--drain-timeout",
            "300",
            "--drain-delay",
            "1500",
        ]);
        let limits = args.limits();
        assert_eq!(limits.header_read_timeout, Duration::from_millis(500));
        assert_eq!(limits.max_header_bytes, 9000);
        assert_eq!(limits.shutdown_timeout, Duration::from_millis(300));
        assert_eq!(args.drain_delay(), Duration::from_millis(1500));
        let cmd = <Args as clap::CommandFactory>::command();
        let env = |id: &str| {
            cmd.get_arguments()
                .find(|a| a.get_id() == id)
                .and_then(|a| a.get_env())
                .map(|e| e.to_string_lossy().into_owned())
        };
        assert_eq!(
            env("header_read_timeout_ms").as_deref(),
            Some("COMPANION_HEADER_READ_TIMEOUT_MS")
        );
        assert_eq!(
            env("drain_timeout_ms").as_deref(),
            Some("COMPANION_DRAIN_TIMEOUT_MS")
        );
    }
}
