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
use fundraising_companion::{
    app, metrics_app, redacted, start_warnings, AppState, Args, Error, Settings, SECRET_ENV,
};
use fundraising_serve::{ConnectionThreads, Limits};
use std::io::Write;
use std::time::Duration;

/// mimalloc returns freed memory to the system promptly: after a flood of connections closes,
/// the process shrinks back (glibc's allocator kept most of it).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    let drain_delay = args.drain_delay();
    let threads = args.threads;
    let metrics_listen = args.metrics_listen;
    let secret_env = std::env::var(SECRET_ENV).ok();
    let (settings, random_key) = args.into_settings(bound, secret_env)?;
    for warning in start_warnings(&settings, random_key, bound, metrics_listen) {
        tracing::warn!("{warning}");
    }
    log_configuration(&settings, &limits, drain_delay, threads);
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
        // Readiness fails while the listener still accepts, so a load balancer sees it
        // before new connections are refused.
        if !drain_delay.is_zero() {
            tracing::info!(
                drain_delay_ms = drain_delay.as_millis() as u64,
                "readiness fails; still accepting until the drain starts"
            );
            tokio::time::sleep(drain_delay).await;
        }
        let _ = drained_tx.send(true);
    };
    let metrics_server = metrics_listener.map(|listener| {
        let address = listener.local_addr().ok();
        let router = metrics_app(state.clone());
        let mut drained = drained.clone();
        let stop = async move {
            let _ = drained.wait_for(|d| *d).await;
        };
        let server = tokio::spawn(fundraising_serve::serve(
            listener,
            router,
            limits.internal(),
            stop,
        ));
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

/// The configuration line: one field per setting (JSON fields with `--log-format json`), the
/// identity server's address without its user or password, never a secret or the Redis URL.
fn log_configuration(
    settings: &Settings,
    limits: &Limits,
    drain_delay: Duration,
    threads: Option<usize>,
) {
    let millis = |d: Duration| d.as_millis() as u64;
    let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    tracing::info!(
        app_id = %settings.app_id,
        auth_url = %redacted(&settings.auth_url),
        api_url = settings.api_url.as_ref().map(redacted),
        bff = settings.bff,
        public_origin = %settings.public_origin,
        allowed_origins = %settings.allowed_origins.join(" "),
        static_dir = path(&settings.static_dir),
        pkg_dir = path(&settings.pkg_dir),
        upstream_timeout_ms = millis(settings.upstream_timeout),
        shared_refreshes = settings.redis_url.is_some(),
        refresh_grace_ms = millis(settings.refresh_grace),
        metrics = settings.metrics,
        header_read_timeout_ms = millis(limits.header_read_timeout),
        idle_timeout_ms = millis(limits.idle_timeout),
        request_timeout_ms = millis(limits.request_timeout),
        max_connections = limits.max_connections as u64,
        max_header_bytes = limits.max_header_bytes as u64,
        drain_timeout_ms = millis(limits.shutdown_timeout),
        drain_delay_ms = millis(drain_delay),
        threads = threads.map(|n| n as u64),
        "configuration"
    );
}
