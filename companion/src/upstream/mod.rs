//! The HTTP clients of the upstream calls (identity server, and the resource API in BFF mode):
//! hyper-util's pooled client, one per serving thread.
//!
//! The companion calls a handful of fixed endpoints with bodies it builds itself, so these
//! clients carry no redirect policy and parse no URL per request or response: a code
//! exchange's CPU goes to the exchange. Only when the operator asks (`--upstream-proxy-from-env`)
//! do they go through the proxy the environment names, and never to a server on this machine
//! (see [`dial`]).

mod dial;

use crate::error::Error;
use crate::metrics::{CallOutcome, Metrics};
use crate::telemetry::{self, REQUEST_ID, TRACEPARENT};
use axum::body::Bytes;
use axum::http::header::{PROXY_AUTHORIZATION, USER_AGENT};
use axum::http::uri::Scheme;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, Uri};
use dial::Dial;
pub(crate) use dial::Proxies;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use std::sync::Arc;
use std::time::{Duration, Instant};
use thread_local::ThreadLocal;
use tracing::Instrument;
use url::Url;

/// Pooled connections idle longer than this are closed.
const POOL_IDLE: Duration = Duration::from_secs(90);

const AGENT: &str = concat!("fundraising-companion/", env!("CARGO_PKG_VERSION"));

/// https through rustls (ring, Mozilla's roots) and plain http.
#[cfg(feature = "rustls")]
type Connector = hyper_rustls::HttpsConnector<Dial>;
/// Plain http only: an https address fails to connect.
#[cfg(not(feature = "rustls"))]
type Connector = Dial;

type HttpClient = Client<Connector, Full<Bytes>>;

/// A request to an upstream, its body whole.
pub(crate) type UpstreamRequest = Request<Full<Bytes>>;

/// An upstream answer, its body read whole.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

/// Why an upstream call has no answer.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Nothing within the timeout (connecting and reading the body included).
    Timeout,
    /// No connection, or it failed; the text is for the log.
    Unreachable(String),
    /// The body is larger than the caller's limit.
    TooLarge,
}

impl Failure {
    /// The companion's error for this failure, logged with `call` (the call's name) and
    /// `upstream` (who was called): a timeout is `UpstreamTimeout`, anything else
    /// `UpstreamUnavailable`.
    pub(crate) fn into_error(self, call: &'static str, upstream: &'static str) -> Error {
        match self {
            Failure::Timeout => {
                tracing::warn!(call, "{upstream} timed out");
                Error::UpstreamTimeout
            }
            Failure::Unreachable(error) => {
                tracing::warn!(call, %error, "{upstream} unreachable");
                Error::UpstreamUnavailable
            }
            Failure::TooLarge => {
                tracing::warn!(call, "{upstream} answer too large");
                Error::UpstreamUnavailable
            }
        }
    }
}

/// An HTTP client for each thread that uses it, all with the same settings: the upstream
/// timeout, no redirects followed, the companion's user agent.
///
/// A client's pooled connections are served by tasks on the thread that opened them. With one
/// client for every thread, a request served on one thread would often go out on a connection
/// another thread opened, and each upstream call would then wake that thread twice. With a
/// client per thread (the companion serves each connection on one thread, see
/// `fundraising_serve::ConnectionThreads`), a request and its upstream calls stay on one thread.
pub(crate) struct Upstream {
    /// Who is called, for the metrics and spans: `identity` or `api`.
    name: &'static str,
    metrics: Option<Arc<Metrics>>,
    timeout: Duration,
    proxies: Arc<Proxies>,
    /// The client built at start, which proves the settings work; handed out on a thread
    /// whose own client cannot be built.
    first: HttpClient,
    per_thread: ThreadLocal<HttpClient>,
}

impl Upstream {
    /// Clients of the upstream `name` (`identity` or `api`) with `timeout` on each call
    /// (connecting included), through the proxies the environment names when `proxy_from_env`
    /// (never to a loopback server); calls are counted in `metrics`.
    pub(crate) fn new(
        name: &'static str,
        timeout: Duration,
        proxy_from_env: bool,
        metrics: Option<Arc<Metrics>>,
    ) -> Result<Self, Error> {
        let proxies = if proxy_from_env {
            Proxies::through(Matcher::from_env())
        } else {
            Proxies::none()
        };
        let mut upstream = Self::with(timeout, proxies)?;
        upstream.name = name;
        upstream.metrics = metrics;
        Ok(upstream)
    }

    /// Clients with `timeout` on each call, through `proxies` (never to a loopback server).
    #[cfg(test)]
    fn with_proxies(timeout: Duration, proxies: Matcher) -> Result<Self, Error> {
        Self::with(timeout, Proxies::through(proxies))
    }

    fn with(timeout: Duration, proxies: Proxies) -> Result<Self, Error> {
        let proxies = Arc::new(proxies);
        let first = build(timeout, &proxies)
            .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            name: "upstream",
            metrics: None,
            timeout,
            proxies,
            first,
            per_thread: ThreadLocal::new(),
        })
    }

    /// The calling thread's client (built on its first call).
    fn client(&self) -> &HttpClient {
        self.per_thread
            .get_or(|| build(self.timeout, &self.proxies).unwrap_or_else(|_| self.first.clone()))
    }

    /// Sends `request` (the call named `call`) with the companion's user agent, and the
    /// request id and `traceparent` of the request it is made for, and reads the answer's body,
    /// at most `limit` bytes, all within the timeout. Redirects are answers like any other.
    /// The call's time is added to the request's upstream time and counted in the metrics.
    pub(crate) async fn send(
        &self,
        call: &'static str,
        mut request: UpstreamRequest,
        limit: usize,
    ) -> Result<Answer, Failure> {
        let context = telemetry::current();
        let (span, parent) = telemetry::upstream_span(self.name, call, context.as_deref());
        let headers = request.headers_mut();
        headers.insert(USER_AGENT, HeaderValue::from_static(AGENT));
        if let Some(context) = &context {
            if let Ok(id) = HeaderValue::from_str(&context.request_id) {
                headers.insert(REQUEST_ID, id);
            }
        }
        if let Some(parent) = parent {
            if let Ok(value) = HeaderValue::from_str(&parent.header_value()) {
                headers.insert(TRACEPARENT, value);
            }
        }
        let started = Instant::now();
        let answer = self.exchange(request, limit).instrument(span).await;
        let took = started.elapsed();
        if let Some(context) = &context {
            context.add_upstream(took);
        }
        if let Some(metrics) = &self.metrics {
            let outcome = match &answer {
                Ok(_) => CallOutcome::Ok,
                Err(Failure::Timeout) => CallOutcome::Timeout,
                Err(_) => CallOutcome::Error,
            };
            metrics.upstream(self.name, call, outcome, took);
        }
        answer
    }

    async fn exchange(
        &self,
        mut request: UpstreamRequest,
        limit: usize,
    ) -> Result<Answer, Failure> {
        if request.uri().scheme() == Some(&Scheme::HTTP) {
            // An http request goes to the proxy itself, which reads its credentials here
            // (through a tunnel they are on the CONNECT instead).
            let proxy = self.proxies.intercept(request.uri());
            if let Some(auth) = proxy.as_ref().and_then(|p| p.basic_auth()) {
                request
                    .headers_mut()
                    .insert(PROXY_AUTHORIZATION, auth.clone());
            }
        }
        let call = self.client().request(request);
        let read = async {
            let response = call.await.map_err(|e| Failure::Unreachable(chain(&e)))?;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, limit)
                .collect()
                .await
                .map_err(|e| match e.downcast::<LengthLimitError>() {
                    Ok(_) => Failure::TooLarge,
                    Err(e) => Failure::Unreachable(chain(&*e)),
                })?
                .to_bytes();
            Ok(Answer {
                status: parts.status,
                headers: parts.headers,
                body,
            })
        };
        tokio::time::timeout(self.timeout, read)
            .await
            .unwrap_or(Err(Failure::Timeout))
    }
}

/// The address of `url` as a request's URI (`None` if `http` cannot take it).
pub(crate) fn uri(url: &Url) -> Option<Uri> {
    Uri::try_from(url.as_str()).ok()
}

/// An error and its sources, for the log (none of them holds the address).
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn connector(timeout: Duration, proxies: &Arc<Proxies>) -> Result<Connector, String> {
    let mut tcp = HttpConnector::new();
    tcp.set_connect_timeout(Some(timeout));
    tcp.set_nodelay(true);
    tcp.enforce_http(false);
    let dial = Dial::new(tcp, Arc::clone(proxies));
    #[cfg(feature = "rustls")]
    {
        let provider = rustls::crypto::ring::default_provider();
        Ok(hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(provider)
            .map_err(|e| e.to_string())?
            .https_or_http()
            .enable_http1()
            .wrap_connector(dial))
    }
    #[cfg(not(feature = "rustls"))]
    Ok(dial)
}

fn build(timeout: Duration, proxies: &Arc<Proxies>) -> Result<HttpClient, String> {
    Ok(Client::builder(TokioExecutor::new())
        .pool_idle_timeout(POOL_IDLE)
        .pool_timer(TokioTimer::new())
        .build(connector(timeout, proxies)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    #[test]
    fn each_thread_has_its_own_client_and_keeps_it() {
        let upstream = Upstream::new("test", Duration::from_secs(1), false, None).unwrap();
        let here = upstream.client() as *const HttpClient;
        assert_eq!(upstream.client() as *const HttpClient, here);
        let there = std::thread::scope(|s| {
            s.spawn(|| upstream.client() as *const HttpClient as usize)
                .join()
                .unwrap()
        });
        assert_ne!(there, here as usize);
    }

    /// A server on a free port: on its first connection, it reads once before writing each
    /// of `answers`, and hands back what each read received. It waits at most 5 s for the
    /// connection and for each read, so that a test whose client never comes fails, not hangs.
    fn script(answers: &'static [&'static [u8]]) -> (Uri, std::thread::JoinHandle<Vec<Vec<u8>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let uri: Uri = format!("http://{}/p?q=1", listener.local_addr().unwrap())
            .parse()
            .unwrap();
        listener.set_nonblocking(true).unwrap();
        let handle = std::thread::spawn(move || {
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            let mut socket = loop {
                match listener.accept() {
                    Ok((socket, _)) => break socket,
                    Err(_) if std::time::Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    Err(_) => return Vec::new(),
                }
            };
            socket.set_nonblocking(false).unwrap();
            socket
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reads = Vec::new();
            for answer in answers {
                let mut received = vec![0; 4096];
                let Ok(n) = socket.read(&mut received) else {
                    break;
                };
                received.truncate(n);
                reads.push(received);
                socket.write_all(answer).unwrap();
            }
            std::thread::sleep(Duration::from_millis(300));
            reads
        });
        (uri, handle)
    }

    /// A server that answers the first request with `answer` and hands back the request.
    fn server(answer: &'static [u8]) -> (Uri, std::thread::JoinHandle<Vec<u8>>) {
        let (uri, reads) = script(Box::leak(Box::new([answer])));
        (
            uri,
            std::thread::spawn(move || reads.join().unwrap().remove(0)),
        )
    }

    /// The value of the header `name` (any case) in a request's text.
    fn header<'a>(request: &'a str, name: &str) -> Option<&'a str> {
        request.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    /// Clients that reach every server directly, whatever the environment says.
    fn direct(timeout: Duration) -> Upstream {
        Upstream::with_proxies(timeout, Matcher::builder().build()).unwrap()
    }

    fn get(uri: Uri) -> UpstreamRequest {
        Request::get(uri).body(Full::default()).unwrap()
    }

    #[tokio::test]
    async fn answers_come_back_whole_with_status_and_headers() {
        let (uri, server) =
            server(b"HTTP/1.1 302 Found\r\nlocation: /elsewhere\r\ncontent-length: 5\r\n\r\nhello");
        let upstream = direct(Duration::from_secs(5));
        let answer = upstream.send("test", get(uri), 5).await.unwrap();
        // A redirect is not followed: it is the answer.
        assert_eq!(answer.status, StatusCode::FOUND);
        assert_eq!(answer.headers["location"], "/elsewhere");
        assert_eq!(&answer.body[..], b"hello");
        let request = String::from_utf8(server.join().unwrap()).unwrap();
        assert!(request.starts_with("GET /p?q=1 HTTP/1.1\r\n"), "{request}");
        assert!(
            request.contains(&format!("user-agent: {AGENT}\r\n")),
            "{request}"
        );
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_refused() {
        let (uri, _server) = server(b"HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nhello!");
        let upstream = direct(Duration::from_secs(5));
        let failure = upstream.send("test", get(uri), 5).await.unwrap_err();
        assert!(matches!(failure, Failure::TooLarge), "{failure:?}");
    }

    #[tokio::test]
    async fn a_slow_answer_times_out_and_a_closed_port_is_unreachable() {
        // Headers, then a body that never ends: the timeout covers reading the body.
        let (uri, _server) = server(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        let upstream = direct(Duration::from_millis(100));
        let failure = upstream.send("test", get(uri), 100).await.unwrap_err();
        assert!(matches!(failure, Failure::Timeout), "{failure:?}");

        let closed = TcpListener::bind("127.0.0.1:0").unwrap();
        let uri: Uri = format!("http://{}/", closed.local_addr().unwrap())
            .parse()
            .unwrap();
        drop(closed);
        let failure = upstream.send("test", get(uri), 100).await.unwrap_err();
        assert!(matches!(failure, Failure::Unreachable(_)), "{failure:?}");
    }

    /// https addresses are spoken to over TLS: what reaches the server is a ClientHello.
    #[cfg(feature = "rustls")]
    #[tokio::test]
    async fn https_goes_over_tls() {
        let (uri, server) = server(b"not TLS");
        let https: Uri = format!("https://{}/", uri.authority().unwrap())
            .parse()
            .unwrap();
        let upstream = direct(Duration::from_secs(5));
        let failure = upstream.send("test", get(https), 100).await.unwrap_err();
        assert!(matches!(failure, Failure::Unreachable(_)), "{failure:?}");
        let hello = server.join().unwrap();
        // A TLS handshake record (22), TLS 1.x, whose first message is a ClientHello (1).
        assert_eq!((hello[0], hello[1], hello[5]), (22, 3, 1), "{hello:?}");
    }

    /// An http server is reached through the proxy: the request goes to the proxy in
    /// absolute form, with the proxy's credentials (the server's name is never resolved).
    #[tokio::test]
    async fn an_http_server_is_reached_through_the_proxy() {
        let (proxy, received) = script(&[b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"]);
        let proxies = Matcher::builder()
            .http(format!("http://user:pass@{}", proxy.authority().unwrap()))
            .build();
        let upstream = Upstream::with_proxies(Duration::from_secs(5), proxies).unwrap();
        let server: Uri = "http://api.invalid/v1/x?y=1".parse().unwrap();
        let answer = upstream.send("test", get(server), 100).await.unwrap();
        assert_eq!(&answer.body[..], b"ok");
        let request = String::from_utf8(received.join().unwrap().remove(0)).unwrap();
        assert!(
            request.starts_with("GET http://api.invalid/v1/x?y=1 HTTP/1.1\r\n"),
            "{request}"
        );
        // base64("user:pass")
        assert_eq!(
            header(&request, "proxy-authorization"),
            Some("Basic dXNlcjpwYXNz"),
            "{request}"
        );
    }

    /// An https server is reached through a CONNECT tunnel, the credentials on the CONNECT;
    /// TLS then starts inside the tunnel.
    #[cfg(feature = "rustls")]
    #[tokio::test]
    async fn an_https_server_is_reached_through_a_connect_tunnel() {
        let (proxy, received) = script(&[b"HTTP/1.1 200 Connection established\r\n\r\n", b""]);
        let proxies = Matcher::builder()
            .https(format!("http://user:pass@{}", proxy.authority().unwrap()))
            .build();
        let upstream = Upstream::with_proxies(Duration::from_secs(5), proxies).unwrap();
        let server: Uri = "https://login.invalid/token".parse().unwrap();
        let failure = upstream.send("test", get(server), 100).await.unwrap_err();
        assert!(matches!(failure, Failure::Unreachable(_)), "{failure:?}");
        let reads = received.join().unwrap();
        let connect = String::from_utf8(reads[0].clone()).unwrap();
        assert!(
            connect.starts_with("CONNECT login.invalid:443 HTTP/1.1\r\n"),
            "{connect}"
        );
        assert_eq!(
            header(&connect, "proxy-authorization"),
            Some("Basic dXNlcjpwYXNz"),
            "{connect}"
        );
        assert_eq!(
            (reads[1][0], reads[1][5]),
            (22, 1),
            "a ClientHello: {:?}",
            reads[1]
        );
    }

    /// A server that `NO_PROXY` lists is reached directly.
    #[tokio::test]
    async fn no_proxy_servers_are_reached_directly() {
        // The proxy is a closed port: going through it would fail.
        let closed = TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        let (server, received) = server(b"HTTP/1.1 204 No Content\r\n\r\n");
        let proxies = Matcher::builder().http(proxy).no("127.0.0.1").build();
        let upstream = Upstream::with_proxies(Duration::from_secs(5), proxies).unwrap();
        let answer = upstream.send("test", get(server), 100).await.unwrap();
        assert_eq!(answer.status, StatusCode::NO_CONTENT);
        let request = String::from_utf8(received.join().unwrap()).unwrap();
        assert!(request.starts_with("GET /p?q=1 HTTP/1.1\r\n"), "{request}");
    }

    /// A loopback server is reached directly even when every proxy variable names a proxy and
    /// `NO_PROXY` does not list it: the proxy (a listener of the test's) receives nothing.
    #[tokio::test]
    async fn a_loopback_server_is_never_reached_through_a_proxy() {
        let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
        proxy.set_nonblocking(true).unwrap();
        let proxy_url = format!("http://user:pass@{}", proxy.local_addr().unwrap());
        for host in ["127.0.0.1", "localhost"] {
            let (server, received) = server(b"HTTP/1.1 204 No Content\r\n\r\n");
            let server: Uri = server
                .to_string()
                .replace("127.0.0.1", host)
                .parse()
                .unwrap();
            let proxies = Matcher::builder()
                .http(proxy_url.clone())
                .https(proxy_url.clone())
                .all(proxy_url.clone())
                .build();
            let upstream = Upstream::with_proxies(Duration::from_secs(5), proxies).unwrap();
            let answer = upstream.send("test", get(server), 100).await.unwrap();
            assert_eq!(answer.status, StatusCode::NO_CONTENT, "{host}");
            let request = String::from_utf8(received.join().unwrap()).unwrap();
            assert!(request.starts_with("GET /p?q=1 HTTP/1.1\r\n"), "{request}");
            assert!(!request.contains("proxy-authorization"), "{request}");
        }
        assert_eq!(
            proxy.accept().unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock,
            "a connection reached the proxy"
        );
    }
}
