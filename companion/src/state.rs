//! The shared state of the handlers.

use crate::config::Settings;
use crate::error::Error;
use crate::metrics::Metrics;
use crate::oidc::Provider;
use crate::refresh::{self, RefreshFlights};
use crate::session::{session_in, CookieState, EndedSessions, SessionData};
use crate::upstream::Upstream;
use axum::http::HeaderMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The companion's state: settings, the identity server client, the refresh flights and the
/// metrics. Cheap to clone. There is no server-side session store: any instance sharing the
/// cookie key serves any request (with `--redis-url`, the instances also share refresh
/// flights).
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) settings: Settings,
    pub(crate) refreshes: RefreshFlights,
    /// The sessions ended by a sign-out (here, and in Redis with `--redis-url`).
    pub(crate) ended: EndedSessions,
    /// The identity server's client, and what a refresh needs of the settings.
    pub(crate) refresh_upstream: refresh::Upstream,
    /// The clients of the resource API (BFF mode's proxy): the upstream timeout, no redirects
    /// followed (a `Location` goes back to the page only when it is under `--api-url`).
    pub(crate) api_http: Upstream,
    /// The metrics, when `settings.metrics` is on.
    pub(crate) metrics: Option<Arc<Metrics>>,
    /// Set when the process was asked to stop: readiness then fails.
    pub(crate) draining: AtomicBool,
    /// Whether Redis answered the last background `PING` (with `--redis-url`).
    pub(crate) redis_answers: AtomicBool,
    /// Whether the background task keeping readiness fresh runs.
    pub(crate) kept_fresh: AtomicBool,
}

/// How often the background task checks Redis (and retries discovery, within its backoff).
pub const READINESS_INTERVAL: Duration = Duration::from_secs(1);

impl AppState {
    /// Builds the state (no network access happens here; discovery is fetched on first use).
    pub fn new(settings: Settings) -> Result<Self, Error> {
        let metrics = settings.metrics.then(|| Arc::new(Metrics::new()));
        let provider = Arc::new(Provider::new(&settings, metrics.clone())?);
        let refreshes = RefreshFlights::new(&settings, metrics.clone())?;
        let api_http = Upstream::new(
            "api",
            settings.upstream_timeout,
            settings.upstream_proxy_from_env,
            metrics.clone(),
        )?;
        let ended = EndedSessions::new(
            settings.redis_url.as_ref().map(|url| url.expose()),
            metrics.clone(),
            settings.clock.clone(),
        )
        .map_err(|_| Error::Config("--redis-url is not a usable Redis address".into()))?;
        let refresh_upstream = refresh::Upstream {
            provider,
            bff: settings.bff,
        };
        Ok(Self {
            inner: Arc::new(Inner {
                settings,
                refreshes,
                ended,
                refresh_upstream,
                api_http,
                metrics,
                draining: AtomicBool::new(false),
                redis_answers: AtomicBool::new(false),
                kept_fresh: AtomicBool::new(false),
            }),
        })
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The identity server client.
    pub fn provider(&self) -> &Provider {
        &self.inner.refresh_upstream.provider
    }

    /// The metrics (`None` unless `settings.metrics`).
    pub fn metrics(&self) -> Option<&Arc<Metrics>> {
        self.inner.metrics.as_ref()
    }

    /// Starts the drain: from now on `/readyz` answers 503, so load balancers stop sending
    /// new requests. (The listener is closed by the serving loop.)
    pub fn drain(&self) {
        if !self.inner.draining.swap(true, Ordering::SeqCst) {
            tracing::info!("draining: readiness fails from now on");
        }
    }

    /// Whether the drain has started.
    pub fn is_draining(&self) -> bool {
        self.inner.draining.load(Ordering::SeqCst)
    }

    /// Whether Redis answered the last background check: `None` without `--redis-url`.
    pub fn redis_answers(&self) -> Option<bool> {
        self.inner
            .settings
            .redis_url
            .as_ref()
            .map(|_| self.inner.redis_answers.load(Ordering::SeqCst))
    }

    /// Starts, once and on the current tokio runtime, the task that keeps what readiness
    /// reads fresh: it loads the discovery document (within the loader's backoff) until it is
    /// loaded, and checks Redis with a `PING` every [`READINESS_INTERVAL`]. `/readyz` then
    /// only reads; it never calls anyone. The task ends with the state. Outside a runtime,
    /// does nothing.
    pub fn keep_fresh(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.inner.kept_fresh.swap(true, Ordering::SeqCst) {
            return;
        }
        let state = Arc::downgrade(&self.inner);
        runtime.spawn(async move {
            loop {
                let Some(inner) = state.upgrade() else { return };
                let current = AppState { inner };
                let provider = current.provider();
                if !provider.discovery_loaded() {
                    let _ = provider.metadata().await;
                }
                if let Some(answers) = current.refreshes().store_answers().await {
                    current.inner.redis_answers.store(answers, Ordering::SeqCst);
                } else if provider.discovery_loaded() {
                    // Nothing left to keep fresh.
                    return;
                }
                drop(current);
                tokio::time::sleep(READINESS_INTERVAL).await;
            }
        });
    }

    /// What a refresh needs to call the identity server.
    pub(crate) fn refresh_upstream(&self) -> &refresh::Upstream {
        &self.inner.refresh_upstream
    }

    /// The clients of the resource API.
    pub(crate) fn api_http(&self) -> &Upstream {
        &self.inner.api_http
    }

    pub(crate) fn refreshes(&self) -> &RefreshFlights {
        &self.inner.refreshes
    }

    pub(crate) fn ended(&self) -> &EndedSessions {
        &self.inner.ended
    }

    /// The session of a request's cookie, unless a sign-out ended it (on any instance). While
    /// Redis does not answer, an instance knows the sign-outs it made or already saw (the
    /// failure is logged): the session check and sign-in never wait on Redis, and a refresh
    /// needs Redis anyway.
    pub(crate) async fn live_session(&self, headers: &HeaderMap) -> Live {
        let settings = &self.inner.settings;
        match session_in(&settings.cookie_key, settings.cookie_scope(), headers) {
            CookieState::Absent => Live::Absent,
            CookieState::Invalid => Live::Invalid,
            CookieState::Valid(session) => match &session.sid {
                Some(sid) if self.inner.ended.is_ended(sid).await.unwrap_or(false) => Live::Ended,
                _ => Live::Valid(session),
            },
        }
    }
}

/// A request's session cookie, read and checked against the sign-outs.
// One per request, matched at once: boxing the session would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Live {
    /// No session cookie was sent.
    Absent,
    /// A cookie that does not open.
    Invalid,
    /// A session a sign-out ended: its cookie is cleared and nothing goes upstream for it.
    Ended,
    /// A live session.
    Valid(SessionData),
}
