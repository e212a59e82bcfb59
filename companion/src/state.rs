//! The shared state of the handlers.

use crate::config::Settings;
use crate::error::Error;
use crate::oidc::Provider;
use crate::routes::RefreshFlights;
use crate::upstream::Upstream;
use std::sync::Arc;

/// The companion's state: settings, the identity server client and the refresh flights.
/// Cheap to clone. There is no server-side session store: any instance sharing the cookie
/// key serves any request (with `--redis-url`, the instances also share refresh flights).
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) settings: Settings,
    pub(crate) provider: Provider,
    pub(crate) refreshes: RefreshFlights,
    /// The clients of the resource API (BFF mode's proxy): the upstream timeout, no redirects
    /// followed (a `Location` goes back to the page only when it is under `--api-url`).
    pub(crate) api_http: Upstream,
}

impl AppState {
    /// Builds the state (no network access happens here; discovery is fetched on first use).
    pub fn new(settings: Settings) -> Result<Self, Error> {
        let provider = Provider::new(&settings)?;
        let refreshes = RefreshFlights::new(&settings)?;
        let api_http = Upstream::new(settings.upstream_timeout)?;
        Ok(Self {
            inner: Arc::new(Inner {
                settings,
                provider,
                refreshes,
                api_http,
            }),
        })
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The identity server client.
    pub fn provider(&self) -> &Provider {
        &self.inner.provider
    }

    /// The clients of the resource API.
    pub(crate) fn api_http(&self) -> &Upstream {
        &self.inner.api_http
    }

    pub(crate) fn refreshes(&self) -> &RefreshFlights {
        &self.inner.refreshes
    }
}
