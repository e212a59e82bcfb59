//! A Leptos app (client-side rendering) on fundraising-client's typed Rust API: it shows the
//! demo campaign, signs the user in by pop-up, and lists the fundraising pages of event 1001.
//!
//! The page loads its configuration (the service's and the companion's addresses) from its own
//! origin, `config/<host>_<port>.json`, so several test runs in one tree never read each
//! other's. Its origin is the registered home page: in the sign-in pop-up the same app finishes
//! the sign-in with `handle_callback` and closes.

use fundraising_client::model::{Campaign, FundraisingPageSummary};
use fundraising_client::{Client, ClientOptions, Session, SignInOptions};
use futures_util::StreamExt;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// The short name of the campaign the app shows.
pub const CAMPAIGN: &str = "demo-campaign";
/// The event whose fundraising pages the app lists.
pub const EVENT_ID: i32 = 1001;

/// What the page needs to know, from `config/<host>_<port>.json` next to it.
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
    /// Reads the page's configuration from its own origin.
    pub async fn load() -> Result<Config, String> {
        let window = web_sys::window().ok_or("no window")?;
        let location = window.location();
        let (host, port) = (location.hostname(), location.port());
        let file = [
            "config/",
            &host.unwrap_or_default(),
            "_",
            &port.unwrap_or_default(),
            ".json",
        ]
        .concat();
        let unreadable = |_| format!("{file} could not be read");
        let response: web_sys::Response = JsFuture::from(window.fetch_with_str(&file))
            .await
            .map_err(unreadable)?
            .unchecked_into();
        if !response.ok() {
            return Err(format!("{file}: HTTP {}", response.status()));
        }
        let text = JsFuture::from(response.text().map_err(unreadable)?)
            .await
            .map_err(unreadable)?;
        serde_json::from_str(&text.as_string().unwrap_or_default()).map_err(|e| e.to_string())
    }

    /// The client for these addresses; the home page (redirect URI) is the companion's "/".
    pub fn client(&self) -> Result<Client, fundraising_client::Error> {
        Client::new(
            ClientOptions::new(&self.app_id, &self.base_url)
                .auth_url(&self.auth_url)
                .redirect_uri([self.companion_url.trim_end_matches('/'), "/"].concat())
                .companion_url(&self.companion_url)
                .scopes(["fundraise", "offline_access", "email"]),
        )
    }
}

/// The campaign's title and progress, as the page shows them.
pub fn progress(campaign: &Campaign) -> String {
    let raised = campaign.donation_summary.total_amount;
    let target = campaign.target_amount;
    let symbol = &campaign.currency.currency_symbol;
    format!("{symbol}{raised:.2} raised of {symbol}{target:.2}")
}

/// The titles of every fundraising page of the event, page after page.
pub async fn page_titles(client: &Client, event_id: i32) -> Result<Vec<String>, String> {
    let mut pages = client
        .event_pages_stream(event_id, None)
        .map_err(|e| e.to_string())?;
    let mut titles = Vec::new();
    while let Some(page) = pages.next().await {
        let page: FundraisingPageSummary = page.map_err(|e| e.to_string())?;
        titles.push(page.page_title);
    }
    Ok(titles)
}

/// The app: the campaign card, sign-in, and the event's pages.
#[component]
pub fn App(client: Client) -> impl IntoView {
    let campaign = RwSignal::new(None::<Result<Campaign, String>>);
    let session = RwSignal::new(client.session());
    let problem = RwSignal::new(None::<String>);
    let titles = RwSignal::new(None::<Result<Vec<String>, String>>);

    // The session follows every change: sign-in here or in another tab, refresh, sign-out.
    let subscription = client.on_session_change(move |change| session.set(change.session.clone()));
    StoredValue::new_local(subscription);

    {
        let client = client.clone();
        spawn_local(async move {
            campaign.set(Some(
                client.campaign(CAMPAIGN).await.map_err(|e| e.to_string()),
            ));
        });
    }

    // The client is not `Send`; the view's handlers reach it through a local store.
    let client = StoredValue::new_local(client);
    let sign_in = move |_| {
        problem.set(None);
        // The pop-up opens now, inside the click; the future finishes the sign-in.
        let signing_in = client.with_value(|c| c.sign_in_with_popup(&SignInOptions::default()));
        spawn_local(async move {
            if let Err(e) = signing_in.await {
                problem.set(Some(format!("Sign-in failed ({}): {e}", e.code())));
            }
        });
    };
    let sign_out = move |_| {
        let client = client.get_value();
        spawn_local(async move {
            if let Err(e) = client.sign_out().await {
                problem.set(Some(e.to_string()));
            }
        });
    };
    let list_pages = move |_| {
        let client = client.get_value();
        titles.set(None);
        spawn_local(async move {
            titles.set(Some(page_titles(&client, EVENT_ID).await));
        });
    };

    view! {
        <main>
            <h1>"Fundraising with Leptos"</h1>
            <section aria-labelledby="campaign-title" data-testid="campaign">
                {move || match campaign.get() {
                    None => view! { <p>"Loading the campaign…"</p> }.into_any(),
                    Some(Err(e)) => view! { <p role="alert">{e}</p> }.into_any(),
                    Some(Ok(c)) => view! {
                        <h2 id="campaign-title">{c.title.clone().unwrap_or(c.short_name.clone())}</h2>
                        <p data-testid="progress">{progress(&c)}</p>
                    }
                    .into_any(),
                }}
            </section>
            <section data-testid="session">
                {move || match session.get() {
                    Some(Session { profile, .. }) => view! {
                        <p data-testid="signed-in">
                            "Signed in as " {profile.name.unwrap_or(profile.sub)}
                        </p>
                        <button on:click=sign_out>"Sign out"</button>
                    }
                    .into_any(),
                    None => view! {
                        <p>"Not signed in."</p>
                        <button on:click=sign_in>"Sign in"</button>
                    }
                    .into_any(),
                }}
                {move || problem.get().map(|p| view! { <p role="alert">{p}</p> })}
            </section>
            <section data-testid="pages">
                <h2>"Fundraising pages of event " {EVENT_ID}</h2>
                <button on:click=list_pages>"List the pages"</button>
                {move || match titles.get() {
                    None => view! { <p></p> }.into_any(),
                    Some(Err(e)) => view! { <p role="alert">{e}</p> }.into_any(),
                    Some(Ok(list)) => view! {
                        <p data-testid="page-count">{format!("{} pages", list.len())}</p>
                        <ol>{list.into_iter().take(10).map(|t| view! { <li>{t}</li> }).collect_view()}</ol>
                    }
                    .into_any(),
                }}
            </section>
        </main>
    }
}

/// Loads the configuration, finishes a sign-in if this page is its callback (in the pop-up it
/// hands the callback to the opener and closes), then shows the app. `index.html` calls it.
#[wasm_bindgen]
pub fn start() {
    // Leptos's own executor starts when the app mounts; until then, wasm-bindgen's runs this.
    wasm_bindgen_futures::spawn_local(async {
        let config = match Config::load().await {
            Ok(config) => config,
            Err(e) => return mount_to_body(move || view! { <p role="alert">{e}</p> }),
        };
        let client = match config.client() {
            Ok(client) => client,
            Err(e) => {
                let e = e.to_string();
                return mount_to_body(move || view! { <p role="alert">{e}</p> });
            }
        };
        let callback = client.handle_callback(None).await;
        if let Err(e) = &callback {
            web_sys::console::error_1(&e.to_string().into());
        }
        mount_to_body(move || view! { <App client=client /> });
    });
}
