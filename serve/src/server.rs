//! The serving loop: accept under the connection cap, serve each connection with hyper's
//! HTTP/1 builder under the timeouts, and shut down gracefully within the deadline.

use crate::idle::IdleTimeout;
use crate::limits::Limits;
use crate::threads::ConnectionThreads;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tower::ServiceExt;

/// Pause after an accept error other than a connection reset (e.g. out of file descriptors),
/// so the loop does not spin while the condition lasts.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` under `limits` until `shutdown` resolves, then stops
/// accepting, lets the open connections finish for at most `limits.shutdown_timeout` and
/// closes those still open.
///
/// Requests carry [`ConnectInfo<SocketAddr>`](ConnectInfo) with the peer's address, as with
/// axum's `into_make_service_with_connect_info`. Returns once every connection is closed; an
/// error only if the listener's address cannot be read.
pub async fn serve<F>(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: F,
) -> io::Result<()>
where
    F: Future<Output = ()> + Send,
{
    serve_with(listener, router, limits, shutdown, None).await
}

/// [`serve`], with each connection served on one of `threads` in turn (see
/// [`ConnectionThreads`]) instead of on the runtime that accepts. The limits are the same:
/// the connection cap counts the connections of every thread together.
pub async fn serve_on<F>(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: F,
    threads: &ConnectionThreads,
) -> io::Result<()>
where
    F: Future<Output = ()> + Send,
{
    serve_with(listener, router, limits, shutdown, Some(threads)).await
}

async fn serve_with<F>(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: F,
    threads: Option<&ConnectionThreads>,
) -> io::Result<()>
where
    F: Future<Output = ()> + Send,
{
    let local = listener.local_addr()?;
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        // The read buffer never grows past the head limit: a head that does not fit is
        // answered 431, and an unfinished one holds at most this much.
        .max_buf_size(limits.max_header_bytes)
        .keep_alive(true);
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let next = accept_under_cap(&listener, &permits);
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            // Reap finished connections so the set holds only open ones.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            (permit, accepted) = next => match accepted {
                Ok((stream, peer)) => {
                    let connection = Connection {
                        builder: builder.clone(),
                        limits,
                        router: router.clone(),
                        watcher: graceful.watcher(),
                        peer,
                        permit,
                    };
                    match threads {
                        None => {
                            connections.spawn(connection.serve(stream));
                        }
                        // The socket leaves this runtime's reactor for the thread's, so that
                        // its readiness wakes that thread and no other.
                        Some(threads) => match stream.into_std() {
                            Ok(stream) => {
                                connections.spawn_on(
                                    async move {
                                        match TcpStream::from_std(stream) {
                                            Ok(stream) => connection.serve(stream).await,
                                            Err(e) => {
                                                tracing::warn!(%peer, "cannot serve a connection: {e}")
                                            }
                                        }
                                    },
                                    threads.next(),
                                );
                            }
                            Err(e) => tracing::warn!(%peer, "cannot hand a connection over: {e}"),
                        },
                    }
                }
                Err(e) if is_connection_error(&e) => {}
                Err(e) => {
                    drop(permit);
                    tracing::error!(%local, "accept failed: {e}; retrying in {ACCEPT_ERROR_PAUSE:?}");
                    tokio::select! {
                        () = &mut shutdown => break,
                        () = tokio::time::sleep(ACCEPT_ERROR_PAUSE) => {}
                    }
                }
            },
        }
    }
    // New connections are refused from here on.
    drop(listener);
    let open = connections.len();
    if open > 0 {
        tracing::info!(%local, open, "waiting for open connections to finish");
    }
    if tokio::time::timeout(limits.shutdown_timeout, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            %local,
            open = connections.len(),
            deadline_ms = limits.shutdown_timeout.as_millis() as u64,
            "shutdown deadline passed: closing the remaining connections"
        );
    }
    // Aborts whatever is left and waits until every connection task is gone.
    connections.shutdown().await;
    Ok(())
}

/// Waits for a free connection slot, then for the next connection. At the cap nothing is
/// accepted: new clients wait in the backlog, and no descriptor is spent on them.
async fn accept_under_cap(
    listener: &TcpListener,
    permits: &Arc<Semaphore>,
) -> (OwnedSemaphorePermit, io::Result<(TcpStream, SocketAddr)>) {
    let permit = Arc::clone(permits)
        .acquire_owned()
        .await
        .expect("the connection semaphore is never closed");
    (permit, listener.accept().await)
}

/// One accepted connection, with what serving it takes and its slot under the cap.
struct Connection {
    builder: http1::Builder,
    limits: Limits,
    router: Router,
    watcher: Watcher,
    peer: SocketAddr,
    permit: OwnedSemaphorePermit,
}

impl Connection {
    /// Serves the connection until it closes: the socket under the idle timeout, hyper's
    /// HTTP/1 under the header-read timeout, each request handed to the router with the
    /// peer's address under the request timeout (past it the service fails and hyper closes
    /// the connection); watched by the graceful shutdown. Runs on the runtime that serves the
    /// connection: its timers are that runtime's.
    async fn serve(self, stream: TcpStream) {
        let Connection {
            builder,
            limits,
            router,
            watcher,
            peer,
            permit,
        } = self;
        let _ = stream.set_nodelay(true);
        let io = IdleTimeout::new(stream, limits.idle_timeout);
        let router = tower::timeout::Timeout::new(router, limits.request_timeout);
        let service = service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            router.clone().oneshot(request)
        });
        let connection = watcher.watch(builder.serve_connection(TokioIo::new(io), service));
        if let Err(e) = connection.await {
            match refused_status(&e) {
                Some(status) => tracing::info!(
                    target: "fundraising_serve::refused",
                    %peer,
                    status,
                    reason = %e,
                    "request refused before routing"
                ),
                None => tracing::debug!(%peer, "connection closed: {e}"),
            }
        }
        drop(permit);
    }
}

/// The status hyper answered a request it refused to parse with (it sends that answer itself,
/// and no handler sees the request): 400 for a malformed request, 431 for a head over the
/// limit (or too many headers), 414 for an over-long target. `None` for other ends of a
/// connection (a client going away, a timeout).
fn refused_status(e: &hyper::Error) -> Option<u16> {
    if e.is_parse_too_large() {
        // hyper's two too-large kinds: the head, or the request target alone.
        return Some(if e.to_string().contains("URI") {
            414
        } else {
            431
        });
    }
    (e.is_parse() && !e.is_parse_version_h2()).then_some(400)
}

/// Errors of one incoming connection (the client went away before it was accepted), as
/// opposed to errors of the listener.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}
