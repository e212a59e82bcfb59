//! The client's options, as a plain struct with `Default` and builder-style setters, and the
//! checks both faces of the client apply to them.

use std::time::Duration;

use crate::Error;

/// Default time limit of one request: 10 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(10_000);

/// Options of [`Client::new`](crate::Client::new).
///
/// `app_id` and `base_url` are enough for the four resource operations; sign-in also needs
/// `auth_url`, `redirect_uri` and `companion_url`. Bad options are refused by
/// [`Client::new`](crate::Client::new) with `invalid_argument`, naming the option
/// (`base_url`, `timeout`, ...). Made with [`ClientOptions::new`] and the setters (options may
/// be added in a minor version, so the struct cannot be written as a literal).
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
#[non_exhaustive]
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
        let timeout = self.timeout.unwrap_or(DEFAULT_TIMEOUT);
        if timeout.is_zero() {
            return Err(Error::invalid("timeout", "must be longer than zero"));
        }
        Ok(millis(timeout))
    }
}

/// A duration in whole milliseconds (at least 1 for a non-zero one), at most `u32::MAX`.
pub(crate) fn millis(duration: Duration) -> u32 {
    let ms = u32::try_from(duration.as_millis()).unwrap_or(u32::MAX);
    if ms == 0 && !duration.is_zero() {
        1
    } else {
        ms
    }
}

/// Options of a sign-in ([`Client::sign_in_with_popup`](crate::Client::sign_in_with_popup),
/// [`Client::sign_in_with_redirect`](crate::Client::sign_in_with_redirect)): `Default`, then
/// the setters.
///
/// ```
/// use fundraising_client::SignInOptions;
/// let options = SignInOptions::default().prompt("login").login_hint("demo@example.org");
/// assert_eq!(options.prompt.as_deref(), Some("login"));
/// ```
#[cfg(feature = "signin")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Sets [`SignInOptions::scopes`].
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Sets [`SignInOptions::prompt`].
    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = Some(prompt.into());
        self
    }

    /// Sets [`SignInOptions::login_hint`].
    pub fn login_hint(mut self, login_hint: impl Into<String>) -> Self {
        self.login_hint = Some(login_hint.into());
        self
    }

    /// Sets [`SignInOptions::return_path`].
    pub fn return_path(mut self, return_path: impl Into<String>) -> Self {
        self.return_path = Some(return_path.into());
        self
    }

    /// Sets [`SignInOptions::timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How long the pop-up may take in milliseconds.
    pub(crate) fn timeout_ms(&self) -> Option<u32> {
        self.timeout.map(millis)
    }
}

/// Options of [`Client::wait_for_donation`](crate::Client::wait_for_donation): `Default`,
/// then the setters.
#[cfg(feature = "donation")]
#[derive(Default)]
#[non_exhaustive]
pub struct WaitOptions {
    /// How long to wait for a final status (default 10 minutes); then the wait ends with
    /// `timeout`.
    pub timeout: Option<Duration>,
    /// Called each time the donation is seen with a new status.
    #[allow(clippy::type_complexity)]
    pub on_status: Option<Box<dyn FnMut(&fundraising_core::model::Donation)>>,
}

#[cfg(feature = "donation")]
impl WaitOptions {
    /// Sets [`WaitOptions::timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets [`WaitOptions::on_status`].
    pub fn on_status(
        mut self,
        on_status: impl FnMut(&fundraising_core::model::Donation) + 'static,
    ) -> Self {
        self.on_status = Some(Box::new(on_status));
        self
    }
}

#[cfg(feature = "donation")]
impl std::fmt::Debug for WaitOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitOptions")
            .field("timeout", &self.timeout)
            .field("on_status", &self.on_status.as_ref().map(|_| "FnMut"))
            .finish()
    }
}
