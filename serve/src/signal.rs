//! The shutdown signal of the binaries.

use std::future::Future;
use std::io;

/// A future that resolves on Ctrl-C (SIGINT) or SIGTERM. The handlers are registered when this
/// is called, so call it before announcing the address: a signal sent after that is never
/// lost. Each call registers its own handlers; every returned future sees every signal.
#[cfg(unix)]
pub fn shutdown_signal() -> io::Result<impl Future<Output = ()> + Send + 'static> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {},
            _ = terminate.recv() => {},
        }
        tracing::info!("shutting down");
    })
}

/// A future that resolves on Ctrl-C.
#[cfg(not(unix))]
pub fn shutdown_signal() -> io::Result<impl Future<Output = ()> + Send + 'static> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    })
}
