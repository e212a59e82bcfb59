//! The HTTP clients of the upstream calls (identity server, and the resource API in BFF mode):
//! hyper-util's pooled client, one per serving thread.
//!
//! This is the client reqwest wraps. The companion calls a handful of fixed endpoints with
//! bodies it builds itself, so reqwest's own layers (a redirect policy that parses every
//! request's URL even with redirects off, and a parsed `Url` on every response) were a tenth
//! of a code exchange's CPU and bought nothing here.

use crate::error::Error;
use axum::body::Bytes;
use axum::http::header::USER_AGENT;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use std::time::Duration;
use thread_local::ThreadLocal;
use url::Url;

/// Pooled connections idle longer than this are closed.
const POOL_IDLE: Duration = Duration::from_secs(90);

const AGENT: &str = concat!("fundraising-companion/", env!("CARGO_PKG_VERSION"));

/// https through rustls (ring, Mozilla's roots) and plain http.
#[cfg(feature = "rustls")]
type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
/// Plain http only: an https address fails to connect.
#[cfg(not(feature = "rustls"))]
type Connector = HttpConnector;

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
    timeout: Duration,
    /// The client built at start, which proves the settings work; handed out on a thread
    /// whose own client cannot be built.
    first: HttpClient,
    per_thread: ThreadLocal<HttpClient>,
}

impl Upstream {
    /// Clients with `timeout` on each call (connecting included).
    pub(crate) fn new(timeout: Duration) -> Result<Self, Error> {
        let first = build(timeout)
            .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            timeout,
            first,
            per_thread: ThreadLocal::new(),
        })
    }

    /// The calling thread's client (built on its first call).
    fn client(&self) -> &HttpClient {
        self.per_thread
            .get_or(|| build(self.timeout).unwrap_or_else(|_| self.first.clone()))
    }

    /// Sends `request` with the companion's user agent and reads the answer's body, at most
    /// `limit` bytes, all within the timeout. Redirects are answers like any other.
    pub(crate) async fn send(
        &self,
        mut request: UpstreamRequest,
        limit: usize,
    ) -> Result<Answer, Failure> {
        request
            .headers_mut()
            .insert(USER_AGENT, HeaderValue::from_static(AGENT));
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

fn connector(timeout: Duration) -> Result<Connector, String> {
    let mut http = HttpConnector::new();
    http.set_connect_timeout(Some(timeout));
    http.set_nodelay(true);
    #[cfg(feature = "rustls")]
    {
        http.enforce_http(false);
        let provider = rustls::crypto::ring::default_provider();
        Ok(hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(provider)
            .map_err(|e| e.to_string())?
            .https_or_http()
            .enable_http1()
            .wrap_connector(http))
    }
    #[cfg(not(feature = "rustls"))]
    Ok(http)
}

fn build(timeout: Duration) -> Result<HttpClient, String> {
    Ok(Client::builder(TokioExecutor::new())
        .pool_idle_timeout(POOL_IDLE)
        .pool_timer(TokioTimer::new())
        .build(connector(timeout)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    #[test]
    fn each_thread_has_its_own_client_and_keeps_it() {
        let upstream = Upstream::new(Duration::from_secs(1)).unwrap();
        let here = upstream.client() as *const HttpClient;
        assert_eq!(upstream.client() as *const HttpClient, here);
        let there = std::thread::scope(|s| {
            s.spawn(|| upstream.client() as *const HttpClient as usize)
                .join()
                .unwrap()
        });
        assert_ne!(there, here as usize);
    }

    /// A server on a free port that answers every connection's first request with `answer`
    /// and hands back what it received.
    fn server(answer: &'static [u8]) -> (Uri, std::thread::JoinHandle<Vec<u8>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let uri: Uri = format!("http://{}/p?q=1", listener.local_addr().unwrap())
            .parse()
            .unwrap();
        let handle = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            let mut received = vec![0; 4096];
            let n = socket.read(&mut received).unwrap();
            received.truncate(n);
            socket.write_all(answer).unwrap();
            std::thread::sleep(Duration::from_millis(300));
            received
        });
        (uri, handle)
    }

    fn get(uri: Uri) -> UpstreamRequest {
        Request::get(uri).body(Full::default()).unwrap()
    }

    #[tokio::test]
    async fn answers_come_back_whole_with_status_and_headers() {
        let (uri, server) =
            server(b"HTTP/1.1 302 Found\r\nlocation: /elsewhere\r\ncontent-length: 5\r\n\r\nhello");
        let upstream = Upstream::new(Duration::from_secs(5)).unwrap();
        let answer = upstream.send(get(uri), 5).await.unwrap();
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
        let upstream = Upstream::new(Duration::from_secs(5)).unwrap();
        let failure = upstream.send(get(uri), 5).await.unwrap_err();
        assert!(matches!(failure, Failure::TooLarge), "{failure:?}");
    }

    #[tokio::test]
    async fn a_slow_answer_times_out_and_a_closed_port_is_unreachable() {
        // Headers, then a body that never ends: the timeout covers reading the body.
        let (uri, _server) = server(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        let upstream = Upstream::new(Duration::from_millis(100)).unwrap();
        let failure = upstream.send(get(uri), 100).await.unwrap_err();
        assert!(matches!(failure, Failure::Timeout), "{failure:?}");

        let closed = TcpListener::bind("127.0.0.1:0").unwrap();
        let uri: Uri = format!("http://{}/", closed.local_addr().unwrap())
            .parse()
            .unwrap();
        drop(closed);
        let failure = upstream.send(get(uri), 100).await.unwrap_err();
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
        let upstream = Upstream::new(Duration::from_secs(5)).unwrap();
        let failure = upstream.send(get(https), 100).await.unwrap_err();
        assert!(matches!(failure, Failure::Unreachable(_)), "{failure:?}");
        let hello = server.join().unwrap();
        // A TLS handshake record (22), TLS 1.x, whose first message is a ClientHello (1).
        assert_eq!((hello[0], hello[1], hello[5]), (22, 3, 1), "{hello:?}");
    }
}
