//! The example's own browser tests, run offline against the sandbox and the companion that
//! `fundraising-sandbox exec` (or `scripts/with-servers.sh`) starts, in Chromium, Firefox and
//! WebKit: the campaign, a user signed in headlessly through the test kit
//! (`fundraising-testing`), a reload that keeps the session, and the sign-out button.
//!
//!   fundraising-sandbox exec --companion -- cargo test
#![cfg(target_arch = "wasm32")]

use dioxus::prelude::*;
use fundraising_client::{Client, ClientOptions};
use fundraising_dioxus_example::{app, page_titles, Config, EVENT_ID};
use fundraising_testing::{element, until, Sandbox};
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

fn config() -> Config {
    let sandbox = Sandbox::from_env();
    Config {
        app_id: APP_ID.into(),
        base_url: sandbox.base_url().into(),
        auth_url: sandbox.auth_url().into(),
        companion_url: COMPANION_URL.into(),
    }
}

fn client() -> Client {
    Client::new(config().options()).expect("client")
}

/// The app mounted in a fresh element, as a page that just loaded.
fn mount() -> HtmlElement {
    let document = web_sys::window().unwrap().document().unwrap();
    let parent: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&parent).unwrap();
    let dom = VirtualDom::new(app).with_root_context(config().options());
    dioxus::web::launch::launch_virtual_dom(
        dom,
        dioxus::web::Config::new().rootelement(parent.clone().unchecked_into()),
    );
    parent
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
async fn the_app_shows_the_campaign_and_offers_sign_in() {
    client().sign_out().await.expect("a clean start");
    let parent = mount();
    let title = element(&parent, "[data-testid=campaign] h2").await;
    assert_eq!(text(&title), "Demo Campaign: Clean Water for Everyone");
    let progress = element(&parent, "[data-testid=progress]").await;
    assert_eq!(text(&progress), "£4670.00 raised of £10000.00");
    assert_eq!(text(&element(&parent, "#sign-in").await), "Sign in");
    assert_eq!(session_mark(&parent), "signedOut");
    assert!(parent.query_selector("[role=alert]").unwrap().is_none());
    parent.remove();
}

#[wasm_bindgen_test]
async fn the_pages_button_lists_every_page_once() {
    let parent = mount();
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
    parent.remove();
}

#[wasm_bindgen_test]
async fn a_user_signed_in_headlessly_stays_signed_in_after_a_reload_and_signs_out() {
    client().sign_out().await.expect("a clean start");
    // One call of the test kit signs the user in through the companion, whose cookie the app's
    // own client then restores: the page loads signed in.
    Sandbox::from_env()
        .sign_in(&client(), "demo@example.org")
        .await
        .expect("signed in");
    let parent = mount();
    assert_eq!(
        text(&element(&parent, "#user-name").await),
        "Demo Fundraiser"
    );
    assert_eq!(session_mark(&parent), "signedIn");
    parent.remove();

    // A reload: a new app restores the session again.
    let parent = mount();
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
    assert_eq!(client().restore_session().await.expect("asked"), None);
    parent.remove();
}
