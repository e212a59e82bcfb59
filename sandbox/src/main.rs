//! `fundraising-sandbox`: serves the identity server and the resource API, or, as
//! `fundraising-sandbox exec [...] -- COMMAND...`, runs a command against a sandbox (and
//! companions) started for it on free ports.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use fundraising_sandbox::exec::{exec, guard_main, ExecArgs, RunDir, EXIT_CANNOT_START};
use fundraising_sandbox::{api_app, identity_app, Config, Sandbox};
use fundraising_serve::{serve, shutdown_signal, ListenerFlags};
use tokio::net::TcpListener;

/// Local emulator of the fundraising service: OpenID Connect identity server and resource API.
#[derive(Debug, Parser)]
#[command(
    name = "fundraising-sandbox",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: Args,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run COMMAND against a sandbox (and companions) started on free ports for it, with their
    /// addresses in its environment; stop them afterwards and exit with COMMAND's status.
    Exec(ExecArgs),
    /// (Internal) exec's guard: ends what exec started if exec is killed.
    #[command(name = "exec-guard", hide = true)]
    ExecGuard {
        /// The run folder to remove then.
        run_dir: Option<PathBuf>,
    },
}

/// Flags of a plain run: serve until Ctrl-C or SIGTERM.
#[derive(Debug, clap::Args)]
struct Args {
    /// Address of the resource API ({base_url}); port 0 picks a free port.
    #[arg(long, env = "SANDBOX_API_LISTEN", default_value = "127.0.0.1:8081")]
    api_listen: SocketAddr,
    /// Address of the identity server ({auth_url}); port 0 picks a free port.
    #[arg(
        long,
        env = "SANDBOX_IDENTITY_LISTEN",
        default_value = "127.0.0.1:8082"
    )]
    identity_listen: SocketAddr,
    /// Public address of the identity server (the `iss`); default: http://<bound identity address>.
    #[arg(long, env = "SANDBOX_ISSUER")]
    issuer: Option<String>,
    /// Public address of the resource API (used in event links); default: http://<bound API address>.
    #[arg(long, env = "SANDBOX_PUBLIC_BASE_URL")]
    public_base_url: Option<String>,
    /// Folder of the SQLite database and the signing key (default: the user's data folder,
    /// $XDG_DATA_HOME/fundraising-sandbox or ~/.local/share/fundraising-sandbox, never the
    /// current folder, so that the key stays out of an application's source tree).
    #[arg(long, env = "SANDBOX_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// TOML file with [[applications]] and [[users]]; default: demo-app and demo@example.org.
    #[arg(long, env = "SANDBOX_CONFIG")]
    config: Option<PathBuf>,
    /// Delay every answer of POST /connect/token by this many milliseconds.
    #[arg(long, env = "SANDBOX_TOKEN_DELAY_MS", default_value_t = 0)]
    token_delay_ms: u64,
    /// The limits of both listeners (timeouts, head size, connections, drain deadline).
    #[command(flatten)]
    limits: ListenerFlags<SandboxEnv>,
}

/// The data folder without `--data-dir`: the user's data folder (`$XDG_DATA_HOME`, else
/// `~/.local/share`; `%LOCALAPPDATA%` on Windows), else the system's temporary folder; never
/// the current folder.
fn default_data_dir() -> PathBuf {
    let non_empty = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        non_empty("LOCALAPPDATA")
    } else {
        non_empty("XDG_DATA_HOME").or_else(|| non_empty("HOME").map(|h| h.join(".local/share")))
    };
    base.unwrap_or_else(std::env::temp_dir)
        .join("fundraising-sandbox")
}

fundraising_serve::limit_env!(
    /// The environment variables of the sandbox's listener limits (`SANDBOX_...`).
    SandboxEnv,
    "SANDBOX"
);

fn filter() -> tracing_subscriber::EnvFilter {
    tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"))
}

fundraising_serve::global_allocator!();

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Exec(args)) => return run_exec(args).await,
        Some(Command::ExecGuard { run_dir }) => {
            guard_main(run_dir);
            return ExitCode::SUCCESS;
        }
        None => {}
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(filter())
        .init();
    match run(cli.serve).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fundraising-sandbox: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `exec`: the sandbox logs into the run folder (the command owns the terminal), and the exit
/// status is the command's.
async fn run_exec(args: ExecArgs) -> ExitCode {
    let status = async {
        let run = RunDir::create(args.keep_run_dir)?.guarded()?;
        let log = std::fs::File::create(run.path().join("sandbox.log")).map_err(|source| {
            fundraising_sandbox::SandboxError::Io {
                path: run.path().join("sandbox.log"),
                source,
            }
        })?;
        tracing_subscriber::fmt()
            .with_writer(std::sync::Mutex::new(log))
            .with_ansi(false)
            .with_env_filter(filter())
            .init();
        exec(&args, &run).await
    }
    .await;
    let code = match status {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fundraising-sandbox exec: {e}");
            e.exit_code()
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(EXIT_CANNOT_START as u8))
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    let api = TcpListener::bind(args.api_listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.api_listen))?;
    let identity = TcpListener::bind(args.identity_listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.identity_listen))?;
    let api_url = format!("http://{}", api.local_addr()?);
    let identity_url = format!("http://{}", identity.local_addr()?);
    let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
    let sandbox = Sandbox::open(config, &data_dir)?
        .with_issuer(args.issuer.as_deref().unwrap_or(&identity_url))
        .with_public_base_url(args.public_base_url.as_deref().unwrap_or(&api_url))
        .with_token_delay(Duration::from_millis(args.token_delay_ms));
    // Signal handlers are in place before anyone learns the addresses.
    let (api_shutdown, identity_shutdown) = (shutdown_signal()?, shutdown_signal()?);
    let limits = args.limits.limits();
    println!("sandbox api listening on {api_url}");
    println!("sandbox identity listening on {identity_url}");
    tracing::info!(
        "resource API {api_url} (public {}), identity server {identity_url} (issuer {}), data in {}",
        sandbox.public_base_url(),
        sandbox.issuer(),
        data_dir.display()
    );
    tracing::info!(?limits, "listener limits");
    let api_server = serve(api, api_app(sandbox.clone()), limits, api_shutdown);
    let identity_server = serve(identity, identity_app(sandbox), limits, identity_shutdown);
    let (a, b) = tokio::join!(api_server, identity_server);
    a?;
    b?;
    Ok(())
}
