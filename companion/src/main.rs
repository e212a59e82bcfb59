//! `fundraising-companion`: parses flags, builds the state, serves until Ctrl-C or SIGTERM
//! (under the listener limits of `fundraising-serve`), then drains.
//!
//! The main thread only accepts connections and waits for the signal; each connection is
//! served on one of `--threads` single-threaded runtimes, where its requests and the upstream
//! calls they make stay (see `fundraising_serve::ConnectionThreads`). With `--metrics-listen`
//! the metrics have a listener of their own, served on the main thread.
//!
//! On SIGTERM or Ctrl-C: readiness fails at once, both listeners stop accepting, requests in
//! flight get `--drain-timeout-ms` to finish, and the process exits 0.

use clap::Parser;
use fundraising_companion::telemetry::{self, TraceExport};
use fundraising_companion::{app, metrics_app, AppState, Args, Error, SECRET_ENV};
use fundraising_serve::ConnectionThreads;
use std::io::Write;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = Args::parse();
    let export = TraceExport {
        endpoint: args.otlp_endpoint.clone(),
    };
    let telemetry = match telemetry::init(args.log_format, &export) {
        Ok(telemetry) => telemetry,
        Err(e) => {
            eprintln!("fundraising-companion: {e}");
            std::process::exit(2);
        }
    };
    let outcome = run(args).await;
    telemetry.shutdown();
    if let Err(e) = outcome {
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
    let metrics_listener = match args.metrics_listen {
        Some(address) => Some(
            tokio::net::TcpListener::bind(address)
                .await
                .map_err(|e| Error::Config(format!("cannot listen on {address}: {e}")))?,
        ),
        None => None,
    };
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
        metrics = settings.metrics,
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
    let signal = fundraising_serve::shutdown_signal()
        .map_err(|e| Error::Config(format!("cannot handle signals: {e}")))?;
    let (drained_tx, drained) = tokio::sync::watch::channel(false);
    let draining = state.clone();
    let shutdown = async move {
        signal.await;
        draining.drain();
        let _ = drained_tx.send(true);
    };
    let metrics_server = metrics_listener.map(|listener| {
        let address = listener.local_addr().ok();
        let router = metrics_app(state.clone());
        let mut drained = drained.clone();
        let stop = async move {
            let _ = drained.wait_for(|d| *d).await;
        };
        let server = tokio::spawn(fundraising_serve::serve(listener, router, limits, stop));
        (server, address)
    });
    println!("companion listening on http://{bound}");
    if let Some((_, Some(address))) = &metrics_server {
        println!("companion metrics on http://{address}/metrics");
    }
    let _ = std::io::stdout().flush();
    fundraising_serve::serve_on(listener, app(state), limits, shutdown, &threads)
        .await
        .map_err(|e| Error::Config(format!("server error: {e}")))?;
    if let Some((server, _)) = metrics_server {
        let _ = server.await;
    }
    tracing::info!("stopped");
    Ok(())
}
