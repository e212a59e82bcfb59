//! `fundraising-sandbox exec`: runs a command against a sandbox, and companions when asked,
//! started on free ports for that command alone, as Firebase's `emulators:exec` does.
//!
//! It binds the sandbox's two listeners on free loopback ports, starts each companion (the
//! `fundraising-companion` on `PATH`, or `--companion-bin`) for its application, waits until
//! all of them answer, runs the command with their addresses in its environment, then stops
//! everything, whatever the command did, and exits with the command's status.
//!
//! Exported to the command:
//!
//! | variable | value |
//! |---|---|
//! | `FUNDRAISING_BASE_URL` | the resource API (`{base_url}`) |
//! | `FUNDRAISING_AUTH_URL` | the identity server (`{auth_url}`, the issuer) |
//! | `FUNDRAISING_APP_ID` | the unnamed companion's application, else the first one configured |
//! | `FUNDRAISING_COMPANION_URL` | the unnamed companion (`--companion`) |
//! | `FUNDRAISING_<NAME>_COMPANION_URL`, `FUNDRAISING_<NAME>_APP_ID` | a companion named `<name>` |
//! | `FUNDRAISING_DEV_SERVER_URL` | a free address for the command's dev server (Vite, trunk), whose origin every companion allows |
//! | `WASM_BINDGEN_TEST_ADDRESS` | a free address for `wasm-bindgen-test-runner`, whose origin every companion allows |
//! | `WASM_BINDGEN_TEST_NO_ORIGIN_ISOLATION` | `1`: the runner's page may then call the sandbox's other origins |
//! | `WASM_BINDGEN_TEST_WEBDRIVER_JSON` | the runner's Chromium and Firefox reach its page through `FUNDRAISING_RUNNER_PROXY` (with the capabilities of the command's own `webdriver.json`, if it has one) |
//! | `FUNDRAISING_RUNNER_PROXY` | an HTTP proxy that sends each request on a connection of its own, for the browsers' way to the runner's page (`runner_proxy` says why) |
//! | `FUNDRAISING_RUN_DIR` | the folder with the servers' logs and the sandbox's data |
//!
//! The same names may appear as `${NAME}` in the configuration file (and so may any variable
//! of the environment), so that an application's home page can be a companion's address.

mod command;
mod companion;
mod group;
mod guard;
mod plan;
mod runner_proxy;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::time::Instant;

use command::run_command;
pub use command::{exit_code, COMMAND_GRACE};
use companion::{http_ok, tail, Companion};
pub use companion::{COMPANION_ENV, STOP_GRACE};
pub use guard::{guard_main, Guard, GUARD_SUBCOMMAND};
pub use plan::{default_exec_config, expand, CompanionSpec, Plan, Site};

use crate::error::{Result, SandboxError};
pub use crate::error::{EXIT_CANNOT_RUN, EXIT_CANNOT_START, EXIT_NOT_FOUND};
use crate::state::Sandbox;
use crate::{api_app, identity_app};

/// `fundraising-sandbox exec`'s flags.
#[derive(Debug, Clone, Args)]
pub struct ExecArgs {
    /// The sandbox's TOML configuration, with optional [[companions]] tables and ${NAME}
    /// placeholders (default: demo-app, demo@example.org, test routes on).
    #[arg(long, env = "SANDBOX_CONFIG")]
    pub config: Option<PathBuf>,
    /// Start a companion for APP_ID (default: the first application), as
    /// FUNDRAISING_COMPANION_URL.
    #[arg(long, value_name = "APP_ID", num_args = 0..=1, default_missing_value = "")]
    pub companion: Option<String>,
    /// A flag for the --companion companion (repeatable), e.g. --companion-arg=--static-dir=dist;
    /// ${NAME} placeholders are filled in as in the configuration.
    #[arg(long = "companion-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub companion_args: Vec<String>,
    /// The command runs a dev server on FUNDRAISING_DEV_SERVER_URL that proxies /auth (and
    /// /api) to the companion: without --config, the application's home page is that
    /// address's /, so the page, the companion and the home page share its origin.
    #[arg(long)]
    pub dev_server: bool,
    /// The companion program.
    #[arg(
        long,
        env = "FUNDRAISING_COMPANION_BIN",
        default_value = "fundraising-companion"
    )]
    pub companion_bin: PathBuf,
    /// Folder of the sandbox's database and signing key (default: a fresh one in the run folder,
    /// so every run starts from the seed data).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Keep the run folder (logs and data) afterwards; its path is printed.
    #[arg(long)]
    pub keep_run_dir: bool,
    /// Time the servers get to answer, in seconds.
    #[arg(long, default_value_t = 30)]
    pub ready_timeout_secs: u64,
    /// Delay every answer of POST /connect/token by this many milliseconds.
    #[arg(long, default_value_t = 0)]
    pub token_delay_ms: u64,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The folder of one run: the servers' logs and, unless `--data-dir`, the sandbox's data.
/// Only its owner can read it (mode 0700). It is removed at the end of the run unless kept,
/// and, with a [`Guard`], even when `exec` is killed.
pub struct RunDir {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
    guard: Option<Guard>,
}

impl RunDir {
    /// A fresh folder under the system's temporary folder; removed on drop unless `keep`.
    pub fn create(keep: bool) -> Result<Self> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("fundraising-exec.");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o700));
        }
        let dir = builder.tempdir().map_err(|source| SandboxError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
        let path = dir.path().to_path_buf();
        Ok(Self {
            dir: if keep {
                let _ = dir.keep();
                None
            } else {
                Some(dir)
            },
            path,
            guard: None,
        })
    }

    /// The same folder watched by a [`Guard`] (this program as a process of its own), which
    /// ends what the run started and removes the folder (unless kept) if `exec` is killed.
    pub fn guarded(mut self) -> Result<Self> {
        let remove = (!self.kept()).then_some(self.path.as_path());
        self.guard = Some(Guard::spawn(remove)?);
        Ok(self)
    }

    /// Its path.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Whether it stays after the run.
    pub fn kept(&self) -> bool {
        self.dir.is_none()
    }

    /// The guard watching the run, if any.
    pub fn guard(&self) -> Option<&Guard> {
        self.guard.as_ref()
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        // The folder goes first; the guard is released after, so that a kill meanwhile still
        // leaves it to the guard.
        drop(self.dir.take());
        if let Some(guard) = self.guard.take() {
            guard.release();
        }
    }
}

/// Runs `args.command` against a sandbox and the companions asked for, in `run` (logs, data),
/// and returns the command's exit status (see [`exit_code`]). An error means the command never
/// ran; [`SandboxError::exit_code`] gives the status to exit with.
pub async fn exec(args: &ExecArgs, run: &RunDir) -> Result<i32> {
    let text = match &args.config {
        Some(path) => std::fs::read_to_string(path).map_err(|source| SandboxError::Io {
            path: path.clone(),
            source,
        })?,
        None => default_exec_config(if args.dev_server {
            Site::DevServer
        } else if args.companion.is_some() {
            Site::Companion
        } else {
            Site::None
        }),
    };
    let extra = args.companion.as_ref().map(|app| CompanionSpec {
        name: None,
        app_id: (!app.is_empty()).then(|| app.clone()),
        args: args.companion_args.clone(),
    });
    if extra.is_none() && !args.companion_args.is_empty() {
        return Err(SandboxError::Config(
            "--companion-arg needs --companion".into(),
        ));
    }
    let plan = Plan::parse(&text, extra)?;

    let loopback = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    let bind = |what: &'static str| async move {
        TcpListener::bind(loopback).await.map_err(|e| {
            SandboxError::Exec(format!("cannot listen on 127.0.0.1 for the {what}: {e}"))
        })
    };
    let api = bind("resource API").await?;
    let identity = bind("identity server").await?;
    let proxy = runner_proxy::bind().await?;
    let proxy_addr = local(&proxy)?;
    let api_url = format!("http://{}", local(&api)?);
    let identity_url = format!("http://{}", local(&identity)?);
    // The companions', the test runner's and the dev server's ports: free now, bound by them
    // in a moment.
    let runner = free_port().await?;
    let dev_server = free_port().await?;
    let mut companion_addrs = Vec::new();
    for _ in &plan.companions {
        companion_addrs.push(free_port().await?);
    }

    let mut env: Vec<(String, String)> = vec![
        ("FUNDRAISING_BASE_URL".into(), api_url.clone()),
        ("FUNDRAISING_AUTH_URL".into(), identity_url.clone()),
        (
            "FUNDRAISING_DEV_SERVER_URL".into(),
            format!("http://{dev_server}"),
        ),
        ("WASM_BINDGEN_TEST_ADDRESS".into(), runner.to_string()),
        ("WASM_BINDGEN_TEST_NO_ORIGIN_ISOLATION".into(), "1".into()),
        (
            "FUNDRAISING_RUN_DIR".into(),
            run.path().display().to_string(),
        ),
    ];
    for (spec, addr) in plan.companions.iter().zip(&companion_addrs) {
        env.push((spec.url_variable(), format!("http://{addr}")));
    }
    // The runner's browsers reach its page through the proxy, and these servers directly.
    env.push(("FUNDRAISING_RUNNER_PROXY".into(), proxy_addr.to_string()));
    match runner_proxy::users_webdriver_json() {
        Ok(user) => {
            let mut direct = vec![local(&api)?.to_string(), local(&identity)?.to_string()];
            direct.push(dev_server.to_string());
            direct.extend(companion_addrs.iter().map(ToString::to_string));
            let capabilities = runner_proxy::webdriver_json(proxy_addr, &direct, user);
            let path = run.path().join("webdriver.json");
            std::fs::write(&path, capabilities.to_string())
                .map_err(|e| SandboxError::Exec(format!("cannot write {}: {e}", path.display())))?;
            env.push((
                "WASM_BINDGEN_TEST_WEBDRIVER_JSON".into(),
                path.display().to_string(),
            ));
        }
        Err(why) => eprintln!(
            "fundraising-sandbox exec: {why}; the test runner's browsers get no proxy to its page"
        ),
    }
    let known = env.clone();
    let lookup = &|name: &str| {
        known
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
    };
    let config = plan.config(lookup)?;

    // Each companion's application, with its secret.
    let mut apps = Vec::new();
    for spec in &plan.companions {
        let app = match &spec.app_id {
            Some(id) => config.applications.iter().find(|a| &a.app_id == id),
            None => config.applications.first(),
        }
        .ok_or_else(|| {
            SandboxError::Config(match &spec.app_id {
                Some(id) => format!(
                    "a companion is asked for {id:?}, which no [[applications]] table registers"
                ),
                None => "a companion needs an application, and the configuration has none".into(),
            })
        })?;
        env.push((format!("{}APP_ID", spec.prefix()), app.app_id.clone()));
        apps.push(app.clone());
    }
    if !env.iter().any(|(k, _)| k == "FUNDRAISING_APP_ID") {
        if let Some(app) = config.applications.first() {
            env.push(("FUNDRAISING_APP_ID".into(), app.app_id.clone()));
        }
    }

    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| run.path().join("data"));
    let sandbox = Sandbox::open(config, &data_dir)?
        .with_issuer(&identity_url)
        .with_public_base_url(&api_url)
        .with_token_delay(Duration::from_millis(args.token_delay_ms));
    let (stop_tx, stop_rx) = watch::channel(false);
    let stopped = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };
    let limits = fundraising_serve::Limits::default();
    let identity_addr = local(&identity)?;
    let servers = [
        tokio::spawn(fundraising_serve::serve(
            proxy,
            runner_proxy::app(),
            limits,
            stopped(stop_rx.clone()),
        )),
        tokio::spawn(fundraising_serve::serve(
            api,
            api_app(sandbox.clone()),
            limits,
            stopped(stop_rx.clone()),
        )),
        tokio::spawn(fundraising_serve::serve(
            identity,
            identity_app(sandbox),
            limits,
            stopped(stop_rx),
        )),
    ];

    let outcome = async {
        let deadline = Instant::now() + Duration::from_secs(args.ready_timeout_secs);
        let mut companions = Vec::new();
        let started = async {
            // One key for the run's companions, in the private run folder: their cookies are
            // sealed with a key kept for the run rather than a random one they warn about.
            let cookie_key = run.path().join("cookie-key");
            if !plan.companions.is_empty() {
                let material: [u8; 32] = rand::random();
                let hex: String = material.iter().map(|b| format!("{b:02x}")).collect();
                crate::keys::write_private(&cookie_key, hex.as_bytes())?;
            }
            for ((spec, app), addr) in plan.companions.iter().zip(&apps).zip(&companion_addrs) {
                let mut flags = vec![
                    "--listen".to_owned(),
                    addr.to_string(),
                    "--app-id".into(),
                    app.app_id.clone(),
                    "--auth-url".into(),
                    identity_url.clone(),
                    "--api-url".into(),
                    api_url.clone(),
                    "--allowed-origin".into(),
                    format!("http://{runner}"),
                    "--allowed-origin".into(),
                    format!("http://{dev_server}"),
                ];
                if !spec.args.iter().any(|a| a.starts_with("--cookie-key-file")) {
                    flags.push("--cookie-key-file".into());
                    flags.push(cookie_key.display().to_string());
                }
                for arg in &spec.args {
                    flags.push(expand(arg, lookup)?);
                }
                let log = run.path().join(spec.log_name());
                let companion =
                    Companion::start(&args.companion_bin, &flags, app.secret.expose(), *addr, log)?;
                if let (Some(guard), Some(pid)) = (run.guard(), companion.id()) {
                    guard.watch_group(pid);
                }
                companions.push(companion);
            }
            while !http_ok(identity_addr, "/.well-known/openid-configuration").await {
                if Instant::now() >= deadline {
                    return Err(SandboxError::Exec(
                        "the sandbox's identity server did not answer in time".into(),
                    ));
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            for companion in &mut companions {
                companion.ready(deadline).await?;
            }
            Ok(())
        }
        .await;
        let result = match started {
            Ok(()) => run_command(&args.command, &env, run.guard())
                .await
                .map(|ended| (exit_code(ended.status), ended.stopped)),
            Err(e) => Err(e),
        };
        for companion in companions {
            let pid = companion.id();
            companion.stop().await;
            if let (Some(guard), Some(pid)) = (run.guard(), pid) {
                guard.forget_group(pid);
            }
        }
        result
    }
    .await;

    let _ = stop_tx.send(true);
    for server in servers {
        let _ = server.await;
    }
    // A start failure's message holds the log that explains it; a failed command gets them
    // all, unless it ended because it was asked to (a Ctrl-C): that is no failure to explain.
    if matches!(outcome, Ok((code, false)) if code != 0) {
        report_logs(run, &plan.companions);
    }
    if run.kept() {
        eprintln!(
            "fundraising-sandbox exec: logs and data kept in {}",
            run.path().display()
        );
    }
    outcome.map(|(code, _)| code)
}

/// After a failure: the end of every server log, on stderr.
fn report_logs(run: &RunDir, companions: &[CompanionSpec]) {
    let mut logs = vec![run.path().join("sandbox.log")];
    logs.extend(companions.iter().map(|c| run.path().join(c.log_name())));
    for log in logs.iter().filter(|log| log.exists()) {
        eprintln!("---- {} (last lines) ----", log.display());
        eprintln!("{}", tail(log, 30));
    }
}

fn local(listener: &TcpListener) -> Result<SocketAddr> {
    listener
        .local_addr()
        .map_err(|e| SandboxError::Exec(format!("cannot read a listener's address: {e}")))
}

/// A loopback address no one listens on right now.
async fn free_port() -> Result<SocketAddr> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .map_err(|e| SandboxError::Exec(format!("cannot find a free port: {e}")))?;
    local(&listener)
}
