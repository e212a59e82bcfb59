//! A Leptos app (client-side rendering) on fundraising-client's typed Rust API: it shows the
//! demo campaign, signs the user in by pop-up (by redirect when the browser blocks the pop-up),
//! keeps the session across reloads and tabs, and lists the fundraising pages of event 1001.
//!
//! What it shows about the crate in Leptos 0.8:
//! - the client is shared through a context: `Client` is `!Send`, so the context holds a
//!   `StoredValue::new_local(client)` (a `Copy` handle, see [`use_client`]);
//! - the session is one signal of [`SessionState`] kept in step with
//!   [`Client::session_changes`] ([`session_state`]), restored when the app starts
//!   ([`Client::restore_session`]), which in the sign-in pop-up hands the callback over;
//! - loading states come from a `LocalResource` under `<Suspense>` (the campaign) and from
//!   `Action`s (sign-in, sign-out, the pages), whose buttons are disabled while they run so a
//!   second click cannot start a second run;
//! - errors keep their type to the view, which shows each with its stable code.
//!
//! The page's origin is the registered home page: the sign-in pop-up and the way back from a
//! redirect sign-in land on this same app. Built under `fundraising-sandbox exec` (the dev loop
//! of `trunk serve`, docs/local-development.md), it takes the service's addresses from exec's
//! variables at build time and reaches the companion on its own origin, through the dev
//! server's proxy. Otherwise it loads its configuration from its own origin,
//! `config/<host>_<port>.json`, so several test runs in one tree never read each other's.

use std::future::Future;
use std::pin::Pin;

use fundraising_client::model::{Campaign, FundraisingPageSummary};
use fundraising_client::{code, Client, ClientOptions, Error, SessionState, SignInOptions};
use futures_util::StreamExt;
use leptos::prelude::*;
use leptos::task::spawn_local_scoped_with_cancellation;
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
    /// The page's configuration: exec's addresses when it was built under
    /// `fundraising-sandbox exec` (the companion then on the page's own origin, through the dev
    /// server's proxy), else `config/<host>_<port>.json` from its own origin.
    pub async fn load() -> Result<Config, String> {
        let window = web_sys::window().ok_or("no window")?;
        let location = window.location();
        if let (Some(app_id), Some(base_url), Some(auth_url)) = (
            option_env!("FUNDRAISING_APP_ID"),
            option_env!("FUNDRAISING_BASE_URL"),
            option_env!("FUNDRAISING_AUTH_URL"),
        ) {
            return Ok(Config {
                app_id: app_id.into(),
                base_url: base_url.into(),
                auth_url: auth_url.into(),
                companion_url: location.origin().map_err(|_| "no origin")?,
            });
        }
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
    pub fn client(&self) -> Result<Client, Error> {
        Client::new(
            ClientOptions::new(&self.app_id, &self.base_url)
                .auth_url(&self.auth_url)
                .redirect_uri([self.companion_url.trim_end_matches('/'), "/"].concat())
                .companion_url(&self.companion_url)
                .scopes(["fundraise", "offline_access", "email"]),
        )
    }
}

/// The campaign's progress, as the page shows it.
pub fn progress(campaign: &Campaign) -> String {
    let raised = campaign.donation_summary.total_amount;
    let target = campaign.target_amount;
    let symbol = &campaign.currency.currency_symbol;
    format!("{symbol}{raised:.2} raised of {symbol}{target:.2}")
}

/// The titles of every fundraising page of the event, page after page.
pub async fn page_titles(client: &Client, event_id: i32) -> Result<Vec<String>, Error> {
    let mut pages = client.event_pages_stream(event_id, None)?;
    let mut titles = Vec::new();
    while let Some(page) = pages.next().await {
        let page: FundraisingPageSummary = page?;
        titles.push(page.page_title);
    }
    Ok(titles)
}

/// The session state as a signal, kept in step with every change the client tells (the
/// restore, a sign-in here or in another tab, a refresh, expiry, a sign-out) for as long as
/// the calling component lives: then the task ends and dropping the stream unsubscribes.
pub fn session_state(client: &Client) -> ReadSignal<SessionState> {
    let (state, set_state) = signal(client.session_state());
    let mut changes = client.session_changes();
    spawn_local_scoped_with_cancellation(async move {
        while let Some(change) = changes.next().await {
            set_state.set(change.state);
        }
    });
    state
}

/// The name of a state, as the page marks it (`data-session`).
pub fn state_name(state: &SessionState) -> &'static str {
    match state {
        SessionState::SignedIn(_) => "signedIn",
        SessionState::SignedOut => "signedOut",
        _ => "unknown",
    }
}

/// The client the app shares: a `Copy` handle to it in the reactive arena. `Client` is not
/// `Send`, and a Leptos context must be, so the context holds this handle
/// (`provide_context(StoredValue::new_local(client))`), never the client itself.
pub type SharedClient = StoredValue<Client, LocalStorage>;

/// The client of the nearest [`App`].
pub fn use_client() -> Client {
    expect_context::<SharedClient>().get_value()
}

/// The app: the campaign card, the session, and the event's pages. It restores the session
/// when it starts ([`Client::restore_session`]: after a sign-in by redirect it finishes it; in
/// the sign-in pop-up it hands the callback to the opener, which closes the pop-up; otherwise
/// it asks the companion once whether it still holds this browser's session).
#[component]
pub fn App(client: Client) -> impl IntoView {
    let session = session_state(&client);
    provide_context::<SharedClient>(StoredValue::new_local(client));
    let task = session_action();
    task.dispatch(SessionTask::Restore);

    view! {
        <main>
            <h1>"Fundraising with Leptos"</h1>
            <CampaignCard />
            <SessionPanel session task />
            <EventPages />
        </main>
    }
}

/// An error as the page shows it: what was being done, the message and the stable code.
#[component]
pub fn ErrorNote(
    /// What failed, for people ("Signing in failed").
    doing: &'static str,
    /// The error.
    error: Error,
) -> impl IntoView {
    view! {
        <p role="alert" class="error" data-code=error.code().to_owned()>
            {doing} ": " {error.to_string()} " (" <code>{error.code().to_owned()}</code> ")"
        </p>
    }
}

/// The campaign's title and progress; "Loading…" until the service answers.
#[component]
fn CampaignCard() -> impl IntoView {
    let client = expect_context::<SharedClient>();
    let campaign = LocalResource::new(move || {
        let client = client.get_value();
        async move { client.campaign(CAMPAIGN).await }
    });
    view! {
        <section aria-labelledby="campaign-title" data-testid="campaign">
            <Suspense fallback=|| view! { <p role="status">"Loading the campaign…"</p> }>
                {move || Suspend::new(async move {
                    match campaign.await {
                        Ok(c) => view! {
                            <h2 id="campaign-title">{c.title.clone().unwrap_or(c.short_name.clone())}</h2>
                            <p data-testid="progress">{progress(&c)}</p>
                        }
                        .into_any(),
                        Err(error) => view! {
                            <ErrorNote doing="The campaign could not be loaded" error />
                        }
                        .into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// What the session panel does; one runs at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionTask {
    /// Restore the session when the app starts.
    Restore,
    /// Sign in by pop-up (by redirect when the browser blocks the pop-up).
    SignIn,
    /// Sign out here, in the other tabs and at the companion.
    SignOut,
}

impl SessionTask {
    /// What the page says when the task fails.
    pub fn failed(self) -> &'static str {
        match self {
            SessionTask::Restore => "Could not check whether you are signed in",
            SessionTask::SignIn => "Signing in failed",
            SessionTask::SignOut => "Signing out failed",
        }
    }
}

/// How a task of the session panel ended: done, or the task that failed and why.
pub type TaskOutcome = Result<(), (SessionTask, Error)>;

/// The one action that runs the session panel's tasks: pending while one runs, its value the
/// outcome of the last.
fn session_action() -> Action<SessionTask, TaskOutcome> {
    let client = expect_context::<SharedClient>();
    Action::new_local(move |task: &SessionTask| {
        // `dispatch` calls this at once, inside the click, so the pop-up opens there.
        let task = *task;
        let running = run(client.get_value(), task);
        async move { running.await.map_err(|error| (task, error)) }
    })
}

/// A task of the session panel, started now.
fn run(client: Client, task: SessionTask) -> Pin<Box<dyn Future<Output = Result<(), Error>>>> {
    match task {
        SessionTask::Restore => Box::pin(async move { client.restore_session().await.map(drop) }),
        SessionTask::SignIn => {
            let options = SignInOptions::default();
            // The pop-up opens now, not when the future is first polled.
            let popup = client.sign_in_with_popup(&options);
            Box::pin(async move {
                match popup.await {
                    Err(e) if e.code() == code::POPUP_BLOCKED => {
                        // No pop-up from this browser: sign in in this window instead. The page
                        // navigates away, so the task stays pending until it has gone.
                        client.sign_in_with_redirect(&options)?;
                        std::future::pending().await
                    }
                    outcome => outcome.map(drop),
                }
            })
        }
        SessionTask::SignOut => Box::pin(async move { client.sign_out().await }),
    }
}

/// Who is signed in, with Sign in / Sign out; "Checking…" while the state is unknown.
#[component]
fn SessionPanel(
    session: ReadSignal<SessionState>,
    task: Action<SessionTask, TaskOutcome>,
) -> impl IntoView {
    let busy = task.pending();
    // A click while a task runs does nothing (the button is disabled too).
    let start = move |next: SessionTask| {
        if !busy.get_untracked() {
            task.dispatch(next);
        }
    };
    // The last task's failure, once no task runs.
    let problem = move || task.value().get().filter(|_| !busy.get())?.err();
    view! {
        <section data-testid="session" data-session=move || state_name(&session.get())>
            {move || match session.get() {
                SessionState::SignedIn(s) => {
                    let profile = s.profile;
                    let name = profile.name.or(profile.email).unwrap_or(profile.sub);
                    view! {
                        <p data-testid="signed-in">"Signed in as " <strong id="user-name">{name}</strong></p>
                        <button id="sign-out" disabled=busy on:click=move |_| start(SessionTask::SignOut)>
                            "Sign out"
                        </button>
                    }
                    .into_any()
                }
                SessionState::SignedOut => view! {
                    <p>"Not signed in."</p>
                    <button id="sign-in" disabled=busy on:click=move |_| start(SessionTask::SignIn)>
                        "Sign in"
                    </button>
                }
                .into_any(),
                _ => view! { <p role="status">"Checking whether you are signed in…"</p> }.into_any(),
            }}
            {move || problem().map(|(failed, error)| view! { <ErrorNote doing=failed.failed() error /> })}
        </section>
    }
}

/// The event's fundraising pages, loaded on request; the button is disabled while they load.
#[component]
fn EventPages() -> impl IntoView {
    let client = expect_context::<SharedClient>();
    let load = Action::new_local(move |_: &()| {
        let client = client.get_value();
        async move { page_titles(&client, EVENT_ID).await }
    });
    let loading = load.pending();
    view! {
        <section data-testid="pages" aria-busy=move || loading.get().to_string()>
            <h2>"Fundraising pages of event " {EVENT_ID}</h2>
            <button
                disabled=loading
                on:click=move |_| {
                    if !loading.get_untracked() {
                        load.dispatch(());
                    }
                }
            >
                "List the pages"
            </button>
            {move || {
                if loading.get() {
                    return view! { <p role="status">"Loading the pages…"</p> }.into_any();
                }
                match load.value().get() {
                    None => ().into_any(),
                    Some(Err(error)) => view! {
                        <ErrorNote doing="The pages could not be loaded" error />
                    }
                    .into_any(),
                    Some(Ok(list)) => view! {
                        <p data-testid="page-count">{format!("{} pages", list.len())}</p>
                        <ol>{list.into_iter().take(10).map(|t| view! { <li>{t}</li> }).collect_view()}</ol>
                    }
                    .into_any(),
                }
            }}
        </section>
    }
}

/// Loads the configuration and shows the app, which restores the session (in the sign-in
/// pop-up: hands the callback to the opener, which closes it). `index.html` calls it.
#[wasm_bindgen]
pub fn start() {
    // Leptos's own executor starts when the app mounts; until then, wasm-bindgen's runs this.
    wasm_bindgen_futures::spawn_local(async {
        let config = match Config::load().await {
            Ok(config) => config,
            Err(e) => return mount_to_body(move || view! { <p role="alert">{e}</p> }),
        };
        match config.client() {
            Ok(client) => mount_to_body(move || view! { <App client /> }),
            Err(error) => mount_to_body(move || {
                view! { <ErrorNote doing="The app could not start" error /> }
            }),
        }
    });
}
