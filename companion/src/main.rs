//! `fundraising-companion`: parses flags, builds the state, serves until Ctrl-C or SIGTERM
//! (under the listener limits of `fundraising-serve`).
//!
//! The main thread only accepts connections and waits for the signal; each connection is
//! served on one of `--threads` single-threaded runtimes, where its requests and the upstream
//! calls they make stay (see `fundraising_serve::ConnectionThreads`).

use clap::Parser;
use fundraising_companion::{app, AppState, Args, Error, SECRET_ENV};
use fundraising_serve::ConnectionThreads;
use std::io::Write;
use tracing_subscriber::EnvFilter;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    if let Err(e) = run(Args::parse()).await {
        eprintln!("fundraising-companion: {e}");
        std::process::exit(2);
    }
}

async fn run(args: Args) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| Error::Config(format!("cannot listen on {}: {e}", args.listen)))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::Config(e.to_string()))?;
    let limits = args.limits();
    let threads = args.threads;
    let secret_env = std::env::var(SECRET_ENV).ok();
    let (settings, random_key) = args.into_settings(bound, secret_env)?;
    if random_key {
        tracing::warn!(
            "no --cookie-key-file: using a random cookie key; sessions will not survive a restart \
             nor work across several instances"
        );
    }
    if random_key && settings.redis_url.is_some() {
        tracing::warn!(
            "--redis-url without --cookie-key-file: other instances cannot open this one's \
             cookies nor its refresh outcomes in Redis; give them all the same key file"
        );
    }
    tracing::info!(
        app_id = %settings.app_id,
        auth_url = %settings.auth_url,
        public_origin = %settings.public_origin,
        allowed_origins = ?settings.allowed_origins,
        static_dir = ?settings.static_dir,
        pkg_dir = ?settings.pkg_dir,
        upstream_timeout_ms = settings.upstream_timeout.as_millis() as u64,
        shared_refreshes = settings.redis_url.is_some(),
        refresh_grace_ms = settings.refresh_grace.as_millis() as u64,
        ?limits,
        ?threads,
        "configuration"
    );
    let state = AppState::new(settings)?;
    let threads = match threads {
        Some(n) => ConnectionThreads::new(n),
        None => ConnectionThreads::per_core(),
    }
    .map_err(|e| Error::Config(format!("cannot start the serving threads: {e}")))?;
    // Signal handlers are in place before anyone learns the address.
    let shutdown = fundraising_serve::shutdown_signal()
        .map_err(|e| Error::Config(format!("cannot handle signals: {e}")))?;
    println!("companion listening on http://{bound}");
    let _ = std::io::stdout().flush();
    fundraising_serve::serve_on(listener, app(state), limits, shutdown, &threads)
        .await
        .map_err(|e| Error::Config(format!("server error: {e}")))?;
    tracing::info!("stopped");
    Ok(())
}
