//! The example's own browser tests, run offline against the sandbox and the companion that
//! `fundraising-sandbox exec` (or `scripts/with-servers.sh`) starts, in Chromium, Firefox and
//! WebKit: the recipe for testing a Rust web app on the crates, signing in included, through
//! the test kit's headless sign-in (`fundraising-testing`). Addresses come from the environment
//! at build time.
//!
//!   fundraising-sandbox exec --companion -- cargo test
#![cfg(target_arch = "wasm32")]

use fundraising_client::{code, Client, ClientOptions};
use fundraising_leptos_example::{page_titles, App, Config, EVENT_ID};
use fundraising_testing::{element, until, Sandbox};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

const COMPANION_URL: &str = match option_env!("FUNDRAISING_COMPANION_URL") {
    Some(url) => url,
    None => "http://127.0.0.1:8080",
};
const APP_ID: &str = match option_env!("FUNDRAISING_APP_ID") {
    Some(id) => id,
    None => "demo-app",
};
/// An address nothing answers on (the browser refuses the port).
const NOBODY: &str = "http://127.0.0.1:9";

fn config() -> Config {
    let sandbox = Sandbox::from_env();
    Config {
        app_id: APP_ID.into(),
        base_url: sandbox.base_url().into(),
        auth_url: sandbox.auth_url().into(),
        companion_url: COMPANION_URL.into(),
    }
}

/// The app with `client`, mounted in a fresh element: a page that just loaded. Dropping the
/// handle unmounts it.
fn mount(client: Client) -> (HtmlElement, impl Sized) {
    let document = web_sys::window().unwrap().document().unwrap();
    let parent: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&parent).unwrap();
    let app = leptos::mount::mount_to(parent.clone(), move || view! { <App client /> });
    (parent, app)
}

fn client(config: Config) -> Client {
    Client::new(config.options()).expect("client")
}

fn text(element: &Element) -> String {
    element.text_content().unwrap_or_default()
}

fn session_mark(parent: &HtmlElement) -> String {
    parent
        .query_selector("[data-testid=session]")
        .unwrap()
        .and_then(|e| e.get_attribute("data-session"))
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn every_page_title_of_the_event_comes_through_the_stream() {
    let client = Client::new(ClientOptions::new(APP_ID, config().base_url)).unwrap();
    let titles = page_titles(&client, EVENT_ID).await.expect("titles");
    assert_eq!(titles.len(), 250);
    assert!(
        titles[0].ends_with("#1") && titles[249].ends_with("#250"),
        "{titles:?}"
    );
}

#[wasm_bindgen_test]
async fn the_app_starts_unknown_then_shows_the_campaign_and_offers_sign_in() {
    client(config()).sign_out().await.expect("a clean start");
    let (parent, _app) = mount(client(config()));
    assert_eq!(session_mark(&parent), "unknown");
    let title = element(&parent, "[data-testid=campaign] h2").await;
    assert_eq!(text(&title), "Demo Campaign: Clean Water for Everyone");
    let progress = element(&parent, "[data-testid=progress]").await;
    assert_eq!(text(&progress), "£4670.00 raised of £10000.00");
    let sign_in = element(&parent, "#sign-in").await;
    assert_eq!(session_mark(&parent), "signedOut");
    assert_eq!(text(&sign_in), "Sign in");
    assert!(parent.query_selector("[role=alert]").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn a_companion_and_a_service_out_of_reach_leave_the_app_signed_out_showing_the_codes() {
    let (parent, _app) = mount(client(Config {
        base_url: NOBODY.into(),
        companion_url: NOBODY.into(),
        ..config()
    }));
    let restore = element(&parent, "[data-testid=session] [role=alert]").await;
    assert_eq!(
        restore.get_attribute("data-code").as_deref(),
        Some(code::NETWORK_ERROR)
    );
    assert_eq!(session_mark(&parent), "signedOut");
    let campaign = element(&parent, "[data-testid=campaign] [role=alert]").await;
    assert_eq!(
        campaign.get_attribute("data-code").as_deref(),
        Some(code::NETWORK_ERROR)
    );
}

#[wasm_bindgen_test]
async fn a_second_click_while_the_pages_load_starts_nothing() {
    let (parent, _app) = mount(client(config()));
    let button: HtmlElement = element(&parent, "[data-testid=pages] button")
        .await
        .unchecked_into();
    button.click();
    button.click();
    let count = element(&parent, "[data-testid=page-count]").await;
    assert_eq!(text(&count), "250 pages");
    // The first ten titles are listed, and no more.
    let li = |n: u32| format!("[data-testid=pages] li:nth-of-type({n})");
    assert!(
        parent.query_selector(&li(10)).unwrap().is_some(),
        "{}",
        parent.inner_html()
    );
    assert!(parent.query_selector(&li(11)).unwrap().is_none());
}

#[wasm_bindgen_test]
async fn a_user_signed_in_headlessly_stays_signed_in_after_a_reload_and_signs_out() {
    let here = client(config());
    here.sign_out().await.expect("a clean start");
    let (parent, app) = mount(here.clone());
    element(&parent, "#sign-in").await;

    // One call of the test kit: the app's own client signs in, and the app shows the user.
    Sandbox::from_env()
        .sign_in(&here, "demo@example.org")
        .await
        .expect("signed in");
    assert_eq!(
        text(&element(&parent, "#user-name").await),
        "Demo Fundraiser"
    );
    assert_eq!(session_mark(&parent), "signedIn");

    // A reload: a new client and app restore the session from the companion's cookie.
    drop(app);
    parent.remove();
    let (parent, _app) = mount(client(config()));
    assert_eq!(session_mark(&parent), "unknown");
    assert_eq!(
        text(&element(&parent, "#user-name").await),
        "Demo Fundraiser"
    );

    // Signing out by the app's button: signed out here and at the companion.
    let sign_out: HtmlElement = element(&parent, "#sign-out").await.unchecked_into();
    until(10_000.0, "Sign out stayed disabled", || {
        !sign_out.has_attribute("disabled")
    })
    .await;
    sign_out.click();
    element(&parent, "#sign-in").await;
    assert_eq!(session_mark(&parent), "signedOut");
    assert!(parent.query_selector("[role=alert]").unwrap().is_none());
    assert_eq!(
        client(config()).restore_session().await.expect("asked"),
        None
    );
}
