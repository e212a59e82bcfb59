//! A Leptos app (client-side rendering) on `fundraising-leptos`: it shows the demo campaign,
//! signs the user in by pop-up (by redirect when the browser blocks the pop-up), keeps the
//! session across reloads and tabs, lists the fundraising pages of event 1001, and has an
//! account page for signed-in users only (`/account`), which sends a signed-out visitor to
//! sign in and back.
//!
//! Built under `fundraising-sandbox exec` (the `trunk serve` dev loop), it takes the service's
//! addresses from exec's variables at build time and reaches the companion on its own origin;
//! otherwise it loads `config/<host>_<port>.json` from its own origin.

use fundraising_client::model::Campaign;
use fundraising_client::{Client, ClientOptions, Error};
use fundraising_leptos::*;
use futures_util::StreamExt;
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::path;
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

/// An error as the page shows it: what was being done, the message and the stable code.
#[component]
pub fn ErrorNote(doing: &'static str, error: Error) -> impl IntoView {
    let (code, mark) = (error.code().to_owned(), error.code().to_owned());
    view! { <p role="alert" class="error" data-code=mark>{doing} ": " {error.to_string()} " (" <code>{code}</code> ")"</p> }
}

/// The app: the provider restores the session; the routes show the home page and the account.
#[component]
pub fn App(client: Client) -> impl IntoView {
    view! {
        <FundraisingProvider client>
            <Router>
                <main>
                    <h1>"Fundraising with Leptos"</h1>
                    <SessionPanel />
                    <Routes fallback=|| "Not found.">
                        <Route path=path!("/") view=|| view! { <CampaignCard /><EventPages /> } />
                        <Route path=path!("/account") view=|| view! {
                            <RequireSignIn fallback=|| view! { <p role="status">"Taking you to sign in…"</p> }>
                                <p data-testid="account">"Your account."</p>
                            </RequireSignIn>
                        } />
                    </Routes>
                </main>
            </Router>
        </FundraisingProvider>
    }
}

/// Who is signed in, with Sign in / Sign out; "Checking…" while the state is unknown.
#[component]
fn SessionPanel() -> impl IntoView {
    let session = use_session();
    let profile = use_profile();
    let error = use_fundraising().error();
    let mark = move || match session.get() {
        SessionState::SignedIn(_) => "signedIn",
        SessionState::SignedOut => "signedOut",
        _ => "unknown",
    };
    let name = move || profile.get().map(|p| p.name.or(p.email).unwrap_or(p.sub));
    view! {
        <section data-testid="session" data-session=mark>
            <SessionPending><p role="status">"Checking whether you are signed in…"</p></SessionPending>
            <SignedOut><p>"Not signed in."</p><SignInButton id="sign-in">"Sign in"</SignInButton></SignedOut>
            <SignedIn>
                <p data-testid="signed-in">"Signed in as " <strong id="user-name">{name}</strong></p>
                <A href="/account">"Your account"</A> " "
                <SignOutButton id="sign-out">"Sign out"</SignOutButton>
            </SignedIn>
            {move || error.get().map(|error| view! { <ErrorNote doing="The session could not be checked or changed" error /> })}
        </section>
    }
}

/// The campaign's title and progress; "Loading…" until the service answers.
#[component]
fn CampaignCard() -> impl IntoView {
    let campaign = use_campaign(|| CAMPAIGN.to_owned());
    view! {
        <section aria-labelledby="campaign-title" data-testid="campaign">
            <Suspense fallback=|| view! { <p role="status">"Loading the campaign…"</p> }>
                {move || Suspend::new(async move {
                    match campaign.await {
                        Ok(c) => view! {
                            <h2 id="campaign-title">{c.title.clone().unwrap_or(c.short_name.clone())}</h2>
                            <p data-testid="progress">{progress(&c)}</p>
                        }.into_any(),
                        Err(error) => view! { <ErrorNote doing="The campaign could not be loaded" error /> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The event's fundraising pages, loaded on request; the button is disabled while they load.
#[component]
fn EventPages() -> impl IntoView {
    let client = use_client();
    let load = Action::new_local(move |_: &()| {
        let client = client.clone();
        async move {
            match client {
                Some(client) => page_titles(&client, EVENT_ID).await,
                None => Ok(Vec::new()),
            }
        }
    });
    let loading = load.pending();
    view! {
        <section data-testid="pages" aria-busy=move || loading.get().to_string()>
            <h2>"Fundraising pages of event " {EVENT_ID}</h2>
            <button disabled=loading on:click=move |_| if !loading.get_untracked() { load.dispatch(()); }>"List the pages"</button>
            {move || match (loading.get(), load.value().get()) {
                (true, _) => view! { <p role="status">"Loading the pages…"</p> }.into_any(),
                (_, Some(Err(error))) => view! { <ErrorNote doing="The pages could not be loaded" error /> }.into_any(),
                (_, Some(Ok(list))) => view! {
                    <p data-testid="page-count">{format!("{} pages", list.len())}</p>
                    <ol>{list.into_iter().take(10).map(|t| view! { <li>{t}</li> }).collect_view()}</ol>
                }.into_any(),
                _ => ().into_any(),
            }}
        </section>
    }
}

/// Loads the configuration and shows the app. `index.html` calls it.
#[wasm_bindgen]
pub fn start() {
    wasm_bindgen_futures::spawn_local(async {
        match Config::load().await.map(|c| Client::new(c.options())) {
            Ok(Ok(client)) => mount_to_body(move || view! { <App client /> }),
            Ok(Err(error)) => {
                mount_to_body(move || view! { <ErrorNote doing="The app could not start" error /> })
            }
            Err(e) => mount_to_body(move || view! { <p role="alert">{e}</p> }),
        }
    });
}
