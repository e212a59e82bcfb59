//! How the upstream clients reach a server: directly, or, when the operator asked for it
//! (`--upstream-proxy-from-env`) and the server is not on this machine, through the proxy the
//! environment names for it. `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (and their lower-case
//! forms) are read by hyper-util's matcher, as reqwest and curl read them. An https server is
//! reached through a `CONNECT` tunnel (hyper-util's); a request to an http server goes to the
//! proxy itself, in absolute form.

use axum::http::uri::Scheme;
use axum::http::Uri;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::{Intercept, Matcher};
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::net::TcpStream;
use tower::{Service, ServiceExt};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The proxies the upstream calls may go through: none unless the operator asked for the
/// environment's, and never for a server on this machine (a loopback address, `localhost`),
/// whatever `NO_PROXY` says: a proxy there would read the client secret, the codes and the
/// tokens that never leave the machine otherwise.
pub(crate) struct Proxies(Option<Matcher>);

impl Proxies {
    /// No proxy at all.
    pub(crate) fn none() -> Self {
        Self(None)
    }

    /// Through `matcher`'s proxies (but never for a loopback server).
    pub(crate) fn through(matcher: Matcher) -> Self {
        Self(Some(matcher))
    }

    /// The proxy for `server`, if any.
    pub(crate) fn intercept(&self, server: &Uri) -> Option<Intercept> {
        if on_this_machine(server) {
            return None;
        }
        self.0.as_ref()?.intercept(server)
    }
}

/// Whether `server` is a loopback address or `localhost` (or a name under it).
fn on_this_machine(server: &Uri) -> bool {
    let Some(host) = server.host() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let host = host.trim_end_matches('.').to_ascii_lowercase();
            host == "localhost" || host.ends_with(".localhost")
        }
    }
}

/// A connector: TCP to the server, or to the proxy named for it.
#[derive(Clone)]
pub(crate) struct Dial {
    tcp: HttpConnector,
    proxies: Arc<Proxies>,
}

impl Dial {
    pub(crate) fn new(tcp: HttpConnector, proxies: Arc<Proxies>) -> Self {
        Self { tcp, proxies }
    }
}

impl Service<Uri> for Dial {
    type Response = Dialed;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Dialed, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // Each call uses its own clone of the TCP connector, which is always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, server: Uri) -> Self::Future {
        if !cfg!(feature = "rustls") && server.scheme() == Some(&Scheme::HTTPS) {
            return Box::pin(async { Err("https needs the companion's rustls feature".into()) });
        }
        let tcp = self.tcp.clone();
        let proxy = self.proxies.intercept(&server);
        Box::pin(async move {
            let (io, to_proxy) = match proxy {
                None => (tcp.oneshot(server).await?, false),
                Some(proxy) if server.scheme() == Some(&Scheme::HTTPS) => {
                    let mut tunnel = Tunnel::new(proxy.uri().clone(), tcp);
                    if let Some(auth) = proxy.basic_auth() {
                        tunnel = tunnel.with_auth(auth.clone());
                    }
                    (tunnel.oneshot(server).await?, false)
                }
                Some(proxy) => (tcp.oneshot(proxy.uri().clone()).await?, true),
            };
            Ok(Dialed { io, to_proxy })
        })
    }
}

/// A connection from [`Dial`]. One to an http proxy (not a tunnel) says so, and the client
/// then writes its requests in absolute form.
pub(crate) struct Dialed {
    io: TokioIo<TcpStream>,
    to_proxy: bool,
}

impl Connection for Dialed {
    fn connected(&self) -> Connected {
        self.io.connected().proxy(self.to_proxy)
    }
}

impl Read for Dialed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl Write for Dialed {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
