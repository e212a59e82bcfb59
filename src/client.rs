//! `FundraisingClient`, the class JS uses: options in, plain objects out, every failure a
//! `FundraisingError`.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use fundraising_core::model::{Campaign, Donation, Event, EventCreated, EventPages};
use fundraising_core::validate;
use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;
use web_sys::AbortSignal;

use crate::auth::Transaction;
use crate::auth::{Auth, AuthConfig, PopupSignIn, Session};
use crate::donation::{wait_for_donation, WaitOptions};
use crate::event::event_from_js;
use crate::http::{send_with_retry, HttpRequest, HttpResponse};
use crate::options::{self, CallOptions, ClientOptions, PageOptions, PagesOptions, SignInOptions};
use crate::pages::EventPagesIterator;
use crate::resources::{decode, Call, ResourceApi, DEFAULT_TIMEOUT_MS};
use crate::Error;

/// Default `pageSize` of `eventPages`.
const DEFAULT_ITERATION_PAGE_SIZE: f64 = 100.0;

/// What a client holds; shared with the promises it returns.
pub(crate) struct Inner {
    api: ResourceApi,
    auth: Rc<Auth>,
    timeout_ms: u32,
}

/// The one request path of every resource call (kept out of line, so each call does not
/// carry its own copy): bearer token when signed in, then the request with its retry policy.
type Pending = Pin<Box<dyn Future<Output = Result<HttpResponse, Error>>>>;

impl Inner {
    fn send(self: &Rc<Self>, call: Call, signal: Option<AbortSignal>) -> Pending {
        let inner = self.clone();
        Box::pin(async move {
            let signal = signal.as_ref();
            // In BFF mode the companion attaches the token; the page never holds one.
            let bearer = if !inner.api.bff() && inner.auth.session().is_some() {
                inner.auth.access_token(signal).await?
            } else {
                None
            };
            let request = HttpRequest {
                method: call.method,
                url: &call.url,
                body: call.body.as_deref(),
                bearer: bearer.as_deref(),
                companion: inner.api.bff(),
            };
            send_with_retry(&request, inner.timeout_ms, signal, call.retry).await
        })
    }

    pub(crate) async fn campaign(
        self: &Rc<Self>,
        short_name: &str,
        signal: Option<AbortSignal>,
    ) -> Result<JsValue, Error> {
        let call = self.api.campaign(short_name)?;
        decode::<Campaign>(self.send(call, signal).await?)
    }

    pub(crate) async fn donation(
        self: &Rc<Self>,
        reference: &str,
        signal: Option<AbortSignal>,
    ) -> Result<JsValue, Error> {
        let call = self.api.donation(reference)?;
        decode::<Donation>(self.send(call, signal).await?)
    }

    pub(crate) async fn create_event(
        self: &Rc<Self>,
        event: &Event,
        signal: Option<AbortSignal>,
    ) -> Result<JsValue, Error> {
        let call = self.api.create_event(event)?;
        decode::<EventCreated>(self.send(call, signal).await?)
    }

    pub(crate) async fn event_pages(
        self: &Rc<Self>,
        event_id: f64,
        page: Option<f64>,
        page_size: Option<f64>,
        signal: Option<AbortSignal>,
    ) -> Result<JsValue, Error> {
        let call = self.api.event_pages(event_id, page, page_size)?;
        decode::<EventPages>(self.send(call, signal).await?)
    }
}

fn check_pages_arguments(
    event_id: f64,
    page: Option<f64>,
    page_size: Option<f64>,
) -> Result<(), Error> {
    validate::event_id(event_id)?;
    page.map(validate::page).transpose()?;
    page_size.map(validate::page_size).transpose()?;
    Ok(())
}

/// Signs users in with the fundraising service and calls its API.
#[wasm_bindgen]
pub struct FundraisingClient {
    inner: Rc<Inner>,
}

/// Runs `work` as a Promise whose rejection is a `FundraisingError`.
/// (Generic only in this thin shell: the Promise machinery is compiled once, for the boxed future.)
fn promise<F>(work: F) -> Promise
where
    F: Future<Output = Result<JsValue, Error>> + 'static,
{
    spawn(Box::pin(work))
}

pub(crate) fn spawn(work: Pin<Box<dyn Future<Output = Result<JsValue, Error>>>>) -> Promise {
    future_to_promise(async move { work.await.map_err(JsValue::from) })
}

fn text_argument(value: &JsValue, name: &str) -> Result<String, Error> {
    value
        .as_string()
        .ok_or_else(|| Error::invalid(name, "expected a string"))
}

fn number_argument(value: &JsValue, name: &str) -> Result<f64, Error> {
    value
        .as_f64()
        .ok_or_else(|| Error::invalid(name, "expected a number"))
}

fn options_value(options: Option<Object>) -> Option<JsValue> {
    options.map(JsValue::from)
}

impl FundraisingClient {
    /// A client from Rust-side options.
    pub fn with_options(options: ClientOptions) -> Result<Self, Error> {
        let timeout_ms = options.timeout()?.unwrap_or(DEFAULT_TIMEOUT_MS);
        let bff = options.bff.unwrap_or(false);
        let api = if bff {
            let companion = options.companion_url.as_deref().unwrap_or("");
            ResourceApi::through_companion(&options.app_id, companion)?
        } else {
            ResourceApi::new(&options.app_id, &options.base_url)?
        };
        let auth = Auth::new(
            &options.app_id,
            AuthConfig::from_options(&options),
            timeout_ms,
            bff,
        );
        // A redirect sign-in abandoned earlier in this tab leaves its PKCE verifier behind.
        Transaction::remove_expired();
        Ok(FundraisingClient {
            inner: Rc::new(Inner {
                api,
                auth,
                timeout_ms,
            }),
        })
    }

    /// The sign-in state (Rust-side access for tests and embedders).
    pub fn auth(&self) -> &Rc<Auth> {
        &self.inner.auth
    }

    /// Opens the sign-in pop-up without waiting (Rust-side: the returned handle tells the
    /// state and the window; finish with [`FundraisingClient::finish_popup`]).
    pub fn open_popup(&self, options: &SignInOptions) -> Result<PopupSignIn, Error> {
        self.inner.auth.open_popup(options)
    }

    /// Waits for the pop-up of `pending` and redeems the code.
    pub async fn finish_popup(
        &self,
        pending: &PopupSignIn,
        options: &SignInOptions,
    ) -> Result<Session, Error> {
        self.inner.auth.finish_popup(pending, options).await
    }

    /// Starts a redirect sign-in without navigating; returns the authorize URL.
    pub fn prepare_redirect(&self, options: &SignInOptions) -> Result<String, Error> {
        self.inner.auth.prepare_redirect(options)
    }
}

#[wasm_bindgen]
impl FundraisingClient {
    /// A client. Throws a `FundraisingError` (`invalid_argument`) for bad options.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ClientOptions")] options: JsValue,
    ) -> Result<FundraisingClient, JsValue> {
        Ok(Self::with_options(ClientOptions::from_js(options)?)?)
    }

    /// Signs in through a pop-up, opened synchronously (call it from a click handler);
    /// resolves with the new Session.
    #[wasm_bindgen(js_name = signInWithPopup, unchecked_return_type = "Promise<Session>")]
    pub fn sign_in_with_popup(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "SignInOptions")] options: Option<Object>,
    ) -> Promise {
        let started = options::read::<SignInOptions>(options_value(options))
            .and_then(|options| Ok((self.open_popup(&options)?, options)));
        let auth = self.inner.auth.clone();
        promise(async move {
            let (pending, options) = started?;
            Ok(auth.finish_popup(&pending, &options).await?.to_js())
        })
    }

    /// Signs in by navigating this window to the identity server; the home page then calls
    /// `handleCallback()`. The Promise settles just before the navigation.
    #[wasm_bindgen(js_name = signInWithRedirect, unchecked_return_type = "Promise<void>")]
    pub fn sign_in_with_redirect(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "SignInOptions")] options: Option<Object>,
    ) -> Promise {
        let prepared = options::read::<SignInOptions>(options_value(options)).and_then(|options| {
            let return_path = options.return_path.clone().or_else(current_path);
            self.prepare_redirect(&SignInOptions {
                return_path,
                ..options
            })
        });
        promise(async move {
            let url = prepared?;
            let window =
                web_sys::window().ok_or(Error::Unsupported("sign-in needs a browser window"))?;
            window
                .location()
                .assign(&url)
                .map_err(|_| Error::Unsupported("the page refused to navigate"))?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// On the home page: finishes a sign-in. In a pop-up it hands the callback to the opener
    /// and closes (resolves `null`); after a redirect it redeems the code and resolves with
    /// the Session; resolves `null` when `url` (default: the current address) is no callback.
    #[wasm_bindgen(js_name = handleCallback, unchecked_return_type = "Promise<Session | null>")]
    pub fn handle_callback(&self, url: Option<String>) -> Promise {
        let auth = self.inner.auth.clone();
        promise(async move {
            match auth.handle_callback(url).await? {
                Some(session) => Ok(session.to_js()),
                None => Ok(JsValue::NULL),
            }
        })
    }

    /// The current Session, or `null`.
    #[wasm_bindgen(getter, unchecked_return_type = "Session | null")]
    pub fn session(&self) -> Result<JsValue, JsValue> {
        match self.inner.auth.session() {
            Some(session) => Ok(session.to_js()),
            None => Ok(JsValue::NULL),
        }
    }

    /// A valid access token (refreshed through the companion when it expires within 60 s;
    /// concurrent calls share one refresh), or `null` when not signed in.
    #[wasm_bindgen(js_name = getAccessToken, unchecked_return_type = "Promise<string | null>")]
    pub fn get_access_token(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<Object>,
    ) -> Promise {
        let auth = self.inner.auth.clone();
        let options = options::read::<CallOptions>(options_value(options));
        promise(async move {
            let options = options?;
            if auth.bff() {
                return Err(Error::TokenNotAvailable);
            }
            Ok(auth
                .access_token(options.signal.as_ref())
                .await?
                .map(JsValue::from)
                .unwrap_or(JsValue::NULL))
        })
    }

    /// Signs out: forgets the session and the companion's refresh token.
    #[wasm_bindgen(js_name = signOut, unchecked_return_type = "Promise<void>")]
    pub fn sign_out(&self) -> Promise {
        let auth = self.inner.auth.clone();
        promise(async move {
            auth.sign_out().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `GET /{appId}/v1/campaign/byshortname/{shortName}`.
    #[wasm_bindgen(js_name = getCampaign, unchecked_return_type = "Promise<Campaign>")]
    pub fn get_campaign(
        &self,
        #[wasm_bindgen(js_name = shortName, unchecked_param_type = "string")] short_name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<Object>,
    ) -> Promise {
        let inner = self.inner.clone();
        let options = options::read::<CallOptions>(options_value(options));
        promise(async move {
            let options = options?;
            let short_name = text_argument(&short_name, "shortName")?;
            inner.campaign(&short_name, options.signal).await
        })
    }

    /// `GET /{appId}/v1/donation/ref/{reference}`.
    #[wasm_bindgen(js_name = getDonationByReference, unchecked_return_type = "Promise<Donation>")]
    pub fn get_donation_by_reference(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] reference: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<Object>,
    ) -> Promise {
        let inner = self.inner.clone();
        let options = options::read::<CallOptions>(options_value(options));
        promise(async move {
            let options = options?;
            let reference = text_argument(&reference, "reference")?;
            inner.donation(&reference, options.signal).await
        })
    }

    /// `POST /{appId}/v1/event/` (never retried).
    #[wasm_bindgen(js_name = createEvent, unchecked_return_type = "Promise<EventCreated>")]
    pub fn create_event(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Event")] event: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<Object>,
    ) -> Promise {
        let inner = self.inner.clone();
        let options = options::read::<CallOptions>(options_value(options));
        let event = event_from_js(&event);
        promise(async move {
            let options = options?;
            inner.create_event(&event?, options.signal).await
        })
    }

    /// `GET /{appId}/v1/event/{eventId}/pages?page=&pagesize=`.
    #[wasm_bindgen(js_name = getEventPages, unchecked_return_type = "Promise<EventPages>")]
    pub fn get_event_pages(
        &self,
        #[wasm_bindgen(js_name = eventId, unchecked_param_type = "number")] event_id: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "PageOptions")] options: Option<Object>,
    ) -> Promise {
        let inner = self.inner.clone();
        let options = options::read::<PageOptions>(options_value(options));
        promise(async move {
            let options = options?;
            let event_id = number_argument(&event_id, "eventId")?;
            inner
                .event_pages(event_id, options.page, options.page_size, options.signal)
                .await
        })
    }

    /// Waits for the donation of `reference` (the donor back from the simple donation
    /// integration) to reach a final status (`Accepted`, `Rejected`, `Cancelled` or
    /// `Refunded`), polling with backoff and jitter through 404 and `Pending`; resolves with
    /// the donation. Rejects with `timeout` after `timeoutMs`, `aborted` on the signal.
    #[wasm_bindgen(js_name = waitForDonation, unchecked_return_type = "Promise<Donation>")]
    pub fn wait_for_donation(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] reference: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "WaitOptions")] options: Option<Object>,
    ) -> Promise {
        let inner = self.inner.clone();
        let options = options::read::<WaitOptions>(options_value(options));
        promise(async move {
            let options = options?;
            let reference = text_argument(&reference, "reference")?;
            validate::path_segment("reference", &reference)?;
            wait_for_donation(inner, reference, options).await
        })
    }

    /// Listens for `sessionchange` (`event.detail`: `{reason, session}`; `reason` is
    /// `signin`, `refresh`, `signout` or `expired`). Fires on sign-in, refresh, sign-out
    /// (here or in another tab of this origin) and a session the companion no longer holds.
    #[wasm_bindgen(js_name = addEventListener)]
    pub fn add_event_listener(
        &self,
        #[wasm_bindgen(js_name = type, unchecked_param_type = "\"sessionchange\"")] kind: &str,
        #[wasm_bindgen(unchecked_param_type = "(event: CustomEvent<SessionChange>) => void")]
        listener: &js_sys::Function,
    ) {
        if let Some(target) = self.inner.auth.events() {
            let _ = target.add_event_listener_with_callback(kind, listener);
        }
    }

    /// Stops a listener added with `addEventListener`.
    #[wasm_bindgen(js_name = removeEventListener)]
    pub fn remove_event_listener(
        &self,
        #[wasm_bindgen(js_name = type, unchecked_param_type = "\"sessionchange\"")] kind: &str,
        #[wasm_bindgen(unchecked_param_type = "(event: CustomEvent<SessionChange>) => void")]
        listener: &js_sys::Function,
    ) {
        if let Some(target) = self.inner.auth.events() {
            let _ = target.remove_event_listener_with_callback(kind, listener);
        }
    }

    /// Every FundraisingPageSummary of the event, page after page, as an async iterator
    /// (`for await (const page of client.eventPages(1001)) ...`). Throws `invalid_argument`
    /// at once for bad arguments.
    #[wasm_bindgen(js_name = eventPages, unchecked_return_type = "AsyncIterableIterator<FundraisingPageSummary>")]
    pub fn event_pages(
        &self,
        #[wasm_bindgen(js_name = eventId, unchecked_param_type = "number")] event_id: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "PagesOptions")] options: Option<Object>,
    ) -> Result<JsValue, JsValue> {
        let options = options::read::<PagesOptions>(options_value(options))?;
        let event_id = number_argument(&event_id, "eventId")?;
        let page_size = options.page_size.unwrap_or(DEFAULT_ITERATION_PAGE_SIZE);
        check_pages_arguments(event_id, None, Some(page_size))?;
        Ok(EventPagesIterator::start(
            self.inner.clone(),
            event_id as i32,
            page_size as u32,
            options.signal,
        ))
    }
}

/// The current page's path, query and fragment (the default return path of a redirect sign-in).
fn current_path() -> Option<String> {
    let location = web_sys::window()?.location();
    Some(
        [
            location.pathname().ok()?,
            location.search().ok()?,
            location.hash().ok()?,
        ]
        .concat(),
    )
}
