//! The client's options, as a plain struct with `Default` and builder-style setters, and the
//! checks both faces of the client apply to them.

use std::time::Duration;

use fundraising_core::model::Donation;

use crate::Error;

/// Default time limit of one request: 10 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(10_000);

/// Options of [`Client::new`](crate::Client::new).
///
/// `app_id` and `base_url` are enough for the four resource operations; sign-in also needs
/// `auth_url`, `redirect_uri` and `companion_url`. Bad options are refused by
/// [`Client::new`](crate::Client::new) with `invalid_argument`, naming the option by its
/// JavaScript name (`baseUrl`, `timeoutMs`, ...), as the JS class does.
///
/// ```
/// use std::time::Duration;
/// use fundraising_client::ClientOptions;
/// let options = ClientOptions::new("demo-app", "http://127.0.0.1:8081")
///     .auth_url("http://127.0.0.1:8082")
///     .redirect_uri("http://127.0.0.1:8080/")
///     .companion_url("http://127.0.0.1:8080")
///     .scopes(["fundraise", "offline_access"])
///     .timeout(Duration::from_secs(5));
/// assert_eq!(options.scopes, ["fundraise", "offline_access"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientOptions {
    /// The application id: the `{appId}` segment of resource paths and sign-in's `client_id`.
    pub app_id: String,
    /// The service's base address for resource calls (`{base_url}`).
    pub base_url: String,
    /// The identity server's address (`{auth_url}`); needed to sign in.
    pub auth_url: Option<String>,
    /// The application's registered home page, where sign-in returns; needed to sign in.
    pub redirect_uri: Option<String>,
    /// The companion's address, which redeems codes and refreshes tokens; needed to sign in,
    /// and in BFF mode for every call.
    pub companion_url: Option<String>,
    /// Scopes to ask for; `openid` and `profile` are always added.
    pub scopes: Vec<String>,
    /// Time limit of each request ([`DEFAULT_TIMEOUT`] when `None`).
    pub timeout: Option<Duration>,
    /// The companion runs in BFF mode: resource calls go through it
    /// (`{companion_url}/api/...`), and the access token never reaches the page.
    pub bff: bool,
}

impl ClientOptions {
    /// Options for the application `app_id` of the service at `base_url`.
    pub fn new(app_id: impl Into<String>, base_url: impl Into<String>) -> Self {
        ClientOptions {
            app_id: app_id.into(),
            base_url: base_url.into(),
            ..ClientOptions::default()
        }
    }

    /// Sets [`ClientOptions::auth_url`].
    pub fn auth_url(mut self, url: impl Into<String>) -> Self {
        self.auth_url = Some(url.into());
        self
    }

    /// Sets [`ClientOptions::redirect_uri`].
    pub fn redirect_uri(mut self, url: impl Into<String>) -> Self {
        self.redirect_uri = Some(url.into());
        self
    }

    /// Sets [`ClientOptions::companion_url`].
    pub fn companion_url(mut self, url: impl Into<String>) -> Self {
        self.companion_url = Some(url.into());
        self
    }

    /// Sets [`ClientOptions::scopes`].
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`ClientOptions::timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets [`ClientOptions::bff`].
    pub fn bff(mut self, bff: bool) -> Self {
        self.bff = bff;
        self
    }

    /// The request time limit in milliseconds, checked.
    pub(crate) fn timeout_ms(&self) -> Result<u32, Error> {
        match self.timeout {
            Some(timeout) => milliseconds(timeout.as_secs_f64() * 1000.0, "timeoutMs", false),
            None => Ok(DEFAULT_TIMEOUT.as_millis() as u32),
        }
    }
}

/// Milliseconds as a positive whole `u32` (at most `u32::MAX`); `invalid_argument` naming the
/// option otherwise.
pub(crate) fn milliseconds(ms: f64, name: &str, zero_allowed: bool) -> Result<u32, Error> {
    if ms.is_finite() && (ms > 0.0 || (zero_allowed && ms == 0.0)) {
        Ok(ms.min(f64::from(u32::MAX)) as u32)
    } else {
        Err(Error::invalid(name, "expected a positive number"))
    }
}

/// Options of a sign-in ([`Client::sign_in_with_popup`](crate::Client::sign_in_with_popup),
/// [`Client::sign_in_with_redirect`](crate::Client::sign_in_with_redirect)).
#[cfg(feature = "signin")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignInOptions {
    /// Scopes for this sign-in instead of the client's.
    pub scopes: Option<Vec<String>>,
    /// OpenID `prompt`, e.g. `login` or `consent`.
    pub prompt: Option<String>,
    /// OpenID `login_hint`: the user's e-mail address, to prefill the form.
    pub login_hint: Option<String>,
    /// Redirect only: where the page returns to after sign-in (a path of this site, starting
    /// with `/`; default: the current page).
    pub return_path: Option<String>,
    /// Pop-up only: how long the user has to finish (default 5 minutes).
    pub timeout: Option<Duration>,
}

#[cfg(feature = "signin")]
impl SignInOptions {
    /// How long the pop-up may take in milliseconds, checked.
    pub(crate) fn timeout_ms(&self) -> Result<Option<u32>, Error> {
        self.timeout
            .map(|t| milliseconds(t.as_secs_f64() * 1000.0, "timeoutMs", true))
            .transpose()
    }
}

/// Options of [`Client::wait_for_donation`](crate::Client::wait_for_donation).
#[derive(Default)]
pub struct WaitOptions {
    /// How long to wait for a final status (default 10 minutes); then the wait ends with
    /// `timeout`.
    pub timeout: Option<Duration>,
    /// Called each time the donation is seen with a new status.
    #[allow(clippy::type_complexity)]
    pub on_status: Option<Box<dyn FnMut(&Donation)>>,
}

impl WaitOptions {
    /// Sets [`WaitOptions::timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets [`WaitOptions::on_status`].
    pub fn on_status(mut self, on_status: impl FnMut(&Donation) + 'static) -> Self {
        self.on_status = Some(Box::new(on_status));
        self
    }
}

impl std::fmt::Debug for WaitOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitOptions")
            .field("timeout", &self.timeout)
            .field("on_status", &self.on_status.as_ref().map(|_| "FnMut"))
            .finish()
    }
}
