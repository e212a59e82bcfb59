//! The example's own browser tests, run offline against the sandbox (and the companion) that
//! `scripts/with-servers.sh` starts: the recipe for testing a Rust web app built on the crate.
//! Addresses come from the environment at build time, as in the crate's own suites.
//!
//!   scripts/with-servers.sh -- bash -c 'cd examples/leptos && cargo test'
#![cfg(target_arch = "wasm32")]

use fundraising_client::{Client, ClientOptions};
use fundraising_leptos_example::{page_titles, App, Config, EVENT_ID};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BASE_URL: &str = match option_env!("FUNDRAISING_BASE_URL") {
    Some(url) => url,
    None => "http://127.0.0.1:8081",
};
const AUTH_URL: &str = match option_env!("FUNDRAISING_AUTH_URL") {
    Some(url) => url,
    None => "http://127.0.0.1:8082",
};
const COMPANION_URL: &str = match option_env!("FUNDRAISING_COMPANION_URL") {
    Some(url) => url,
    None => "http://127.0.0.1:8080",
};

fn config() -> Config {
    Config {
        app_id: "demo-app".into(),
        base_url: BASE_URL.into(),
        auth_url: AUTH_URL.into(),
        companion_url: COMPANION_URL.into(),
    }
}

/// Waits a moment for the app's tasks and the browser.
async fn tick(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

#[wasm_bindgen_test]
async fn every_page_title_of_the_event_comes_through_the_stream() {
    let client = Client::new(ClientOptions::new("demo-app", BASE_URL)).unwrap();
    let titles = page_titles(&client, EVENT_ID).await.expect("titles");
    assert_eq!(titles.len(), 250);
    assert!(titles[0].ends_with("#1"), "{}", titles[0]);
    assert!(titles[249].ends_with("#250"), "{}", titles[249]);
}

#[wasm_bindgen_test]
async fn the_app_shows_the_campaign_and_offers_sign_in() {
    let document = web_sys::window().unwrap().document().unwrap();
    let parent: web_sys::HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&parent).unwrap();
    let client = config().client().expect("client");
    let _app = leptos::mount::mount_to(parent.clone(), move || view! { <App client=client /> });

    let deadline = js_sys::Date::now() + 10_000.0;
    let title = loop {
        if let Some(h2) = parent.query_selector("[data-testid=campaign] h2").unwrap() {
            break h2.text_content().unwrap_or_default();
        }
        assert!(
            js_sys::Date::now() < deadline,
            "the campaign never showed: {}",
            parent.inner_html()
        );
        tick(50).await;
    };
    assert_eq!(title, "Demo Campaign: Clean Water for Everyone");
    let progress = parent
        .query_selector("[data-testid=progress]")
        .unwrap()
        .expect("progress")
        .text_content()
        .unwrap();
    assert_eq!(progress, "£4670.00 raised of £10000.00");
    let button = parent
        .query_selector("[data-testid=session] button")
        .unwrap()
        .expect("a button");
    assert_eq!(button.text_content().unwrap(), "Sign in");
}

#[wasm_bindgen_test]
fn a_bad_address_in_the_configuration_is_refused() {
    let bad = Config {
        base_url: "not a URL".into(),
        ..config()
    };
    let e = bad.client().unwrap_err();
    assert_eq!(e.code(), "invalid_argument");
    assert!(e.to_string().contains("baseUrl"), "{e}");
}
