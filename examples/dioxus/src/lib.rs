//! A Dioxus web app on `fundraising-dioxus`: it shows the demo campaign, signs the user in by
//! pop-up (by redirect when the browser blocks the pop-up), keeps the session across reloads
//! and tabs, lists the fundraising pages of event 1001, and has an account page for signed-in
//! users only (`/account`), which sends a signed-out visitor to sign in and back.
//!
//! Built under `fundraising-sandbox exec` (a dev server's loop), it takes the service's
//! addresses from exec's variables at build time and reaches the companion on its own origin;
//! otherwise it loads `config/<host>_<port>.json` from its own origin.

use std::any::Any;

use dioxus::prelude::*;
use fundraising_client::model::Campaign;
use fundraising_client::{Client, ClientOptions, Error};
use fundraising_dioxus::*;
use futures_util::StreamExt;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// The short name of the campaign the app shows.
pub const CAMPAIGN: &str = "demo-campaign";
/// The event whose fundraising pages the app lists.
pub const EVENT_ID: i32 = 1001;

/// The service's addresses.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// The application id.
    pub app_id: String,
    /// The service's resource API.
    pub base_url: String,
    /// The identity server.
    pub auth_url: String,
    /// The companion (its "/" is this app, the registered home page).
    pub companion_url: String,
}

impl Config {
    /// exec's addresses when built under `fundraising-sandbox exec` (the companion then on the
    /// page's own origin, through the dev server's proxy), else `config/<host>_<port>.json`.
    pub async fn load() -> Result<Config, String> {
        let location = web_sys::window().ok_or("no window")?.location();
        if let (Some(app_id), Some(base_url), Some(auth_url)) = (
            option_env!("FUNDRAISING_APP_ID"),
            option_env!("FUNDRAISING_BASE_URL"),
            option_env!("FUNDRAISING_AUTH_URL"),
        ) {
            let companion_url = location.origin().map_err(|_| "no origin")?;
            return Ok(Config {
                app_id: app_id.into(),
                base_url: base_url.into(),
                auth_url: auth_url.into(),
                companion_url,
            });
        }
        let file = format!(
            "config/{}_{}.json",
            location.hostname().unwrap_or_default(),
            location.port().unwrap_or_default()
        );
        let unreadable = |_| format!("{file} could not be read");
        let response: web_sys::Response =
            JsFuture::from(web_sys::window().unwrap().fetch_with_str(&file))
                .await
                .map_err(unreadable)?
                .unchecked_into();
        let text = JsFuture::from(response.text().map_err(unreadable)?)
            .await
            .map_err(unreadable)?;
        serde_json::from_str(&text.as_string().unwrap_or_default())
            .map_err(|e| format!("{file}: {e}"))
    }

    /// The client's options; the home page (redirect URI) is the companion's "/".
    pub fn options(&self) -> ClientOptions {
        ClientOptions::new(&self.app_id, &self.base_url)
            .auth_url(&self.auth_url)
            .redirect_uri(format!("{}/", self.companion_url.trim_end_matches('/')))
            .companion_url(&self.companion_url)
            .scopes(["fundraise", "offline_access", "email"])
    }
}

/// The campaign's progress, as the page shows it.
pub fn progress(campaign: &Campaign) -> String {
    let symbol = &campaign.currency.currency_symbol;
    format!(
        "{symbol}{:.2} raised of {symbol}{:.2}",
        campaign.donation_summary.total_amount, campaign.target_amount
    )
}

/// The titles of every fundraising page of the event, page after page.
pub async fn page_titles(client: &Client, event_id: i32) -> Result<Vec<String>, Error> {
    let mut pages = client.event_pages_stream(event_id, None)?;
    let mut titles = Vec::new();
    while let Some(page) = pages.next().await {
        titles.push(page?.page_title);
    }
    Ok(titles)
}

/// The app's routes.
#[derive(Routable, Clone, PartialEq, Debug)]
pub enum Route {
    /// The campaign and the event's pages.
    #[route("/")]
    Home {},
    /// For signed-in users only.
    #[route("/account")]
    Account {},
}

/// The app, with the client's options as a root context (see [`start`]): the provider
/// restores the session, the router shows the pages.
pub fn app() -> Element {
    let options = use_context::<ClientOptions>();
    rsx! {
        FundraisingProvider { options,
            main {
                h1 { "Fundraising with Dioxus" }
                SessionPanel {}
                Router::<Route> {}
            }
        }
    }
}

/// An error as the page shows it: what was being done, the message and the stable code.
#[component]
pub fn ErrorNote(doing: &'static str, error: Error) -> Element {
    let code = error.code();
    rsx! { p { role: "alert", class: "error", "data-code": code, "{doing}: {error} (" code { "{code}" } ")" } }
}

#[component]
fn SessionPanel() -> Element {
    let session = use_session();
    let profile = use_profile();
    let error = use_fundraising().error();
    let mark = match session() {
        SessionState::SignedIn(_) => "signedIn",
        SessionState::SignedOut => "signedOut",
        _ => "unknown",
    };
    let name = profile()
        .map(|p| p.name.or(p.email).unwrap_or(p.sub))
        .unwrap_or_default();
    rsx! {
        section { "data-testid": "session", "data-session": mark,
            SessionPending { p { role: "status", "Checking whether you are signed in…" } }
            SignedOut { p { "Not signed in." } SignInButton { id: "sign-in", "Sign in" } }
            SignedIn {
                p { "data-testid": "signed-in", "Signed in as " strong { id: "user-name", "{name}" } }
                a { href: "/account", "Your account" } " "
                SignOutButton { id: "sign-out", "Sign out" }
            }
            if let Some(error) = error() { ErrorNote { doing: "The session could not be checked or changed", error } }
        }
    }
}

#[component]
fn Home() -> Element {
    rsx! { CampaignCard {} EventPages {} }
}

#[component]
fn Account() -> Element {
    rsx! {
        RequireSignIn { fallback: rsx! { p { role: "status", "Taking you to sign in…" } },
            p { "data-testid": "account", "Your account." }
        }
    }
}

#[component]
fn CampaignCard() -> Element {
    let campaign = use_campaign(|| CAMPAIGN.to_owned());
    rsx! {
        section { "aria-labelledby": "campaign-title", "data-testid": "campaign",
            match &*campaign.read() {
                None => rsx! { p { role: "status", "Loading the campaign…" } },
                Some(Ok(c)) => rsx! {
                    h2 { id: "campaign-title", {c.title.clone().unwrap_or(c.short_name.clone())} }
                    p { "data-testid": "progress", {progress(c)} }
                },
                Some(Err(error)) => rsx! { ErrorNote { doing: "The campaign could not be loaded", error: error.clone() } },
            }
        }
    }
}

#[component]
fn EventPages() -> Element {
    let client = use_client();
    let mut titles = use_signal(|| None::<Result<Vec<String>, Error>>);
    let mut loading = use_signal(|| false);
    let list = move |_| {
        let Some(client) = client.clone() else { return };
        if loading() {
            return;
        }
        loading.set(true);
        spawn(async move {
            titles.set(Some(page_titles(&client, EVENT_ID).await));
            loading.set(false);
        });
    };
    rsx! {
        section { "data-testid": "pages", "aria-busy": "{loading}",
            h2 { "Fundraising pages of event {EVENT_ID}" }
            button { disabled: loading(), onclick: list, "List the pages" }
            if loading() {
                p { role: "status", "Loading the pages…" }
            } else {
                match titles() {
                    Some(Ok(list)) => rsx! {
                        p { "data-testid": "page-count", "{list.len()} pages" }
                        ol { for title in list.into_iter().take(10) { li { "{title}" } } }
                    },
                    Some(Err(error)) => rsx! { ErrorNote { doing: "The pages could not be loaded", error } },
                    None => rsx! {},
                }
            }
        }
    }
}

/// Loads the configuration and launches the app on the page's body: the binary's `main` calls it
/// (under `trunk serve` and `dx serve`).
#[wasm_bindgen]
pub fn start() {
    wasm_bindgen_futures::spawn_local(async {
        let root = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body());
        let config = dioxus::web::Config::new().rootelement(root.expect("a body").into());
        match Config::load().await {
            Ok(c) => {
                let options = c.options();
                let context = move || Box::new(options.clone()) as Box<dyn Any>;
                dioxus::web::launch::launch(app, vec![Box::new(context)], vec![Box::new(config)]);
            }
            Err(e) => web_sys::console::error_1(&e.into()),
        }
    });
}
