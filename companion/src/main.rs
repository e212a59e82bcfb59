//! `fundraising-companion`: parses flags, builds the state, serves until Ctrl-C or SIGTERM.

use clap::Parser;
use fundraising_companion::{app, AppState, Args, Error};
use std::io::Write;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
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
    let secret_env = std::env::var(fundraising_companion_secret_env()).ok();
    let (settings, random_key) = args.into_settings(bound, secret_env)?;
    if random_key {
        tracing::warn!(
            "no --cookie-key-file: using a random cookie key; sessions will not survive a restart \
             nor work across several instances"
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
        "configuration"
    );
    let state = AppState::new(settings)?;
    println!("companion listening on http://{bound}");
    let _ = std::io::stdout().flush();
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(|e| Error::Config(format!("server error: {e}")))?;
    tracing::info!("stopped");
    Ok(())
}

fn fundraising_companion_secret_env() -> &'static str {
    fundraising_companion::SECRET_ENV
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutting down");
}
