//! [`Client`]: the typed Rust client, and the one request path every call of either face
//! takes (bearer token when signed in, BFF routing, timeout, retry, abort), over its
//! [`Transport`].

use std::rc::Rc;

use crate::api::ResourceApi;
use crate::http::{Browser, Transport};
use crate::options::ClientOptions;
use crate::Error;

#[cfg(feature = "signin")]
use crate::auth::{Auth, AuthConfig, Transaction};

#[cfg(feature = "__operation")]
use std::{future::Future, pin::Pin};

#[cfg(feature = "__operation")]
use web_sys::AbortSignal;

#[cfg(feature = "__operation")]
use crate::api::{self, Call};
#[cfg(feature = "__operation")]
use crate::http::{send_with_retry, HttpRequest, HttpResponse};

/// A 2xx answer on its way, or the reason there is none (see [`Client::call`]).
#[cfg(feature = "__operation")]
pub(crate) type Responding<'a> = Pin<Box<dyn Future<Output = Result<HttpResponse, Error>> + 'a>>;

/// Signs users in with the fundraising service and calls its four resource operations.
///
/// Cheap to clone (the clones share one session), and two clients are equal when they are
/// clones of one another. Every call is an `async fn` returning core's typed models; dropping
/// its future cancels it, aborting its request.
///
/// A client lives on the browser's one thread: it is neither `Send` nor `Sync` (it holds JS
/// values). Share it in a UI framework as a local value: in Leptos through
/// `StoredValue::new_local(client)`, which is `Send + Sync` itself and so may also be provided
/// as a context (`provide_context(StoredValue::new_local(client))`); in Yew as a
/// `ContextProvider<Client>` (which needs `Clone + PartialEq`, both cheap here).
///
/// ```no_run
/// # async fn run() -> Result<(), fundraising_client::Error> {
/// use fundraising_client::{Client, ClientOptions};
/// let client = Client::new(ClientOptions::new("demo-app", "http://127.0.0.1:8081"))?;
/// let campaign = client.campaign("demo-campaign").await?;
/// let raised = campaign.donation_summary.total_amount;
/// # let _ = raised;
/// # Ok(()) }
/// ```
///
/// The client makes its requests and keeps its time through a [`Transport`]: the browser's
/// `fetch` and timers ([`Browser`]) unless made with [`Client::with_transport`]. Sign-in and
/// sessions are the browser's (its storage, pop-ups and tabs): [`Client<Browser>`] only.
pub struct Client<T: Transport = Browser> {
    inner: Rc<Inner<T>>,
}

/// What a client holds.
struct Inner<T> {
    transport: T,
    api: ResourceApi,
    #[cfg(feature = "signin")]
    auth: Rc<Auth>,
    timeout_ms: u32,
}

/// A clone shares the client's session.
impl<T: Transport> Clone for Client<T> {
    fn clone(&self) -> Self {
        Client {
            inner: self.inner.clone(),
        }
    }
}

/// Equal when both are clones of one client (they share one session).
impl<T: Transport> PartialEq for Client<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

impl<T: Transport> Eq for Client<T> {}

impl<T: Transport> std::fmt::Debug for Client<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("api", &self.inner.api)
            .field("timeout_ms", &self.inner.timeout_ms)
            .finish_non_exhaustive()
    }
}

impl Client<Browser> {
    /// A client in the browser; `invalid_argument`, naming the option, for bad options.
    ///
    /// ```no_run
    /// use fundraising_client::{code, Client, ClientOptions};
    /// let e = Client::new(ClientOptions::new("demo-app", "not a URL")).unwrap_err();
    /// assert_eq!(e.code(), code::INVALID_ARGUMENT);
    /// assert_eq!(e.to_string(), "invalid base_url: must be an absolute URL");
    /// ```
    pub fn new(options: ClientOptions) -> Result<Client, Error> {
        Client::with_transport(options, Browser)
    }
}

impl<T: Transport> Client<T> {
    /// A client that makes its requests and keeps its time through `transport`;
    /// `invalid_argument`, naming the option, for bad options.
    pub fn with_transport(options: ClientOptions, transport: T) -> Result<Self, Error> {
        let timeout_ms = options.timeout_ms()?;
        let api = if options.bff {
            let companion = options.companion_url.as_deref().unwrap_or("");
            ResourceApi::through_companion(&options.app_id, companion)?
        } else {
            ResourceApi::new(&options.app_id, &options.base_url)?
        };
        #[cfg(feature = "signin")]
        let auth = {
            let config = AuthConfig::from_options(&options);
            if config.is_ok() {
                // A redirect sign-in abandoned earlier in this tab leaves its PKCE verifier
                // behind.
                Transaction::remove_expired();
            }
            Auth::new(&options.app_id, config, timeout_ms, options.bff)
        };
        Ok(Client {
            inner: Rc::new(Inner {
                transport,
                api,
                #[cfg(feature = "signin")]
                auth,
                timeout_ms,
            }),
        })
    }

    /// The sign-in state.
    #[cfg(feature = "signin")]
    pub(crate) fn auth(&self) -> &Rc<Auth> {
        &self.inner.auth
    }

    /// The transport the client runs on.
    pub fn transport(&self) -> &T {
        &self.inner.transport
    }

    /// The one request path: `call` (or the reason it could not be made), with the bearer
    /// token when signed in (not in BFF mode, where the companion attaches it), sent with its
    /// retry policy; a 2xx answer, or the service's error. (Boxed, so each operation does not
    /// carry its own copy.)
    #[cfg(feature = "__operation")]
    pub(crate) fn call<'a>(
        &'a self,
        call: Result<Call, Error>,
        signal: Option<&'a AbortSignal>,
    ) -> Responding<'a> {
        Box::pin(async move {
            let call = call?;
            let bff = self.inner.api.bff();
            #[cfg(feature = "signin")]
            let bearer = if !bff && self.inner.auth.signed_in() {
                self.inner.auth.access_token(signal).await?
            } else {
                None
            };
            #[cfg(not(feature = "signin"))]
            let bearer: Option<String> = None;
            let request = HttpRequest {
                method: call.method,
                url: &call.url,
                body: call.body.as_deref(),
                bearer: bearer.as_deref(),
                credentials: bff,
                csrf: bff,
            };
            let response = send_with_retry(
                &self.inner.transport,
                &request,
                self.inner.timeout_ms,
                signal,
                call.retry,
            )
            .await?;
            #[cfg(feature = "signin")]
            if bff && crate::auth::Companion::ended_session(&response) {
                self.inner.auth.expired();
            }
            api::check_status(response)
        })
    }

    #[cfg(feature = "campaign")]
    /// The answer of [`CAMPAIGN`](fundraising_core::operation::CAMPAIGN).
    pub(crate) fn campaign_response<'a>(
        &'a self,
        short_name: &str,
        signal: Option<&'a AbortSignal>,
    ) -> Responding<'a> {
        self.call(self.inner.api.campaign(short_name), signal)
    }

    #[cfg(feature = "donation")]
    /// The answer of [`DONATION`](fundraising_core::operation::DONATION).
    pub(crate) fn donation_response<'a>(
        &'a self,
        reference: &str,
        signal: Option<&'a AbortSignal>,
    ) -> Responding<'a> {
        self.call(self.inner.api.donation(reference), signal)
    }

    #[cfg(feature = "events")]
    /// The answer of [`CREATE_EVENT`](fundraising_core::operation::CREATE_EVENT).
    pub(crate) fn create_event_response<'a>(
        &'a self,
        event: &fundraising_core::model::Event,
        signal: Option<&'a AbortSignal>,
    ) -> Responding<'a> {
        self.call(self.inner.api.create_event(event), signal)
    }

    #[cfg(feature = "pages")]
    /// The answer of [`PAGES`](fundraising_core::operation::PAGES).
    pub(crate) fn event_pages_response<'a>(
        &'a self,
        event_id: i32,
        page: Option<u32>,
        page_size: Option<u32>,
        signal: Option<&'a AbortSignal>,
    ) -> Responding<'a> {
        self.call(
            self.inner.api.event_pages(event_id, page, page_size),
            signal,
        )
    }

    #[cfg(feature = "campaign")]
    /// A campaign by its short name ([`CAMPAIGN`](fundraising_core::operation::CAMPAIGN)).
    /// Retried on network errors, 502, 503 and 504, and on 429 with a `Retry-After` (see the
    /// retry table of `docs/api.md`).
    pub async fn campaign(
        &self,
        short_name: &str,
    ) -> Result<fundraising_core::model::Campaign, Error> {
        api::read_model(&self.campaign_response(short_name, None).await?)
    }

    #[cfg(feature = "donation")]
    /// A donation by its third-party reference
    /// ([`DONATION`](fundraising_core::operation::DONATION));
    /// `not_found` (404) while the service does not know it.
    pub async fn donation(
        &self,
        reference: &str,
    ) -> Result<fundraising_core::model::Donation, Error> {
        api::read_model(&self.donation_response(reference, None).await?)
    }

    #[cfg(feature = "events")]
    /// Registers an event ([`CREATE_EVENT`](fundraising_core::operation::CREATE_EVENT)). Never retried: a retry could create
    /// the event twice. `name` and `event_type` must not be empty, and the dates must be in
    /// order (start, completion, expiry); `id` and `error_message` are never sent.
    ///
    /// ```no_run
    /// # async fn run(client: fundraising_client::Client) -> Result<(), fundraising_client::Error> {
    /// use fundraising_client::model::{Event, EventType};
    /// use fundraising_client::ServiceDate;
    /// let event = Event::new("Riverside 10k", EventType::RunningMarathons)
    ///     .start_date(ServiceDate::from_millis(1_893_456_000_000));
    /// let created = client.create_event(&event).await?;
    /// let id = created.id;
    /// # let _ = id;
    /// # Ok(()) }
    /// ```
    pub async fn create_event(
        &self,
        event: &fundraising_core::model::Event,
    ) -> Result<fundraising_core::model::EventCreated, Error> {
        api::read_model(&self.create_event_response(event, None).await?)
    }

    #[cfg(feature = "pages")]
    /// One page of the fundraising pages of an event
    /// ([`PAGES`](fundraising_core::operation::PAGES)). `page` counts from 1,
    /// `page_size` is 1 to 100; the service's defaults apply when left out. See
    /// [`Client::event_pages_stream`] for every page summary in turn.
    pub async fn event_pages(
        &self,
        event_id: i32,
        page: Option<u32>,
        page_size: Option<u32>,
    ) -> Result<fundraising_core::model::EventPages, Error> {
        let response = self
            .event_pages_response(event_id, page, page_size, None)
            .await?;
        api::read_model(&response)
    }
}
