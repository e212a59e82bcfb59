//! The example's own browser tests, run offline against the sandbox (and the companion) that
//! `scripts/with-servers.sh` starts: the recipe for testing a Rust web app built on the crate,
//! signing in included (through the sandbox's headless sign-in, in Chromium, Firefox and
//! WebKit). Addresses come from the environment at build time, as in the crate's own suites.
//!
//!   scripts/with-servers.sh -- bash -c 'cd examples/leptos && cargo test'
#![cfg(target_arch = "wasm32")]

use fundraising_client::{code, Client, ClientOptions, SignInOptions};
use fundraising_leptos_example::{page_titles, App, Config, EVENT_ID};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

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
/// An address nothing answers on (the browser refuses the port).
const NOBODY: &str = "http://127.0.0.1:9";

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

/// Mounts the app with `config`'s client in a fresh element of the test page.
fn mount(config: Config) -> (HtmlElement, impl Sized) {
    mount_client(config.client().expect("client"))
}

/// Mounts the app with `client` in a fresh element of the test page.
fn mount_client(client: Client) -> (HtmlElement, impl Sized) {
    let document = web_sys::window().unwrap().document().unwrap();
    let parent: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&parent).unwrap();
    let app = leptos::mount::mount_to(parent.clone(), move || view! { <App client /> });
    (parent, app)
}

#[wasm_bindgen(inline_js = "
export async function sandbox_post(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.errorMessage);
  return answer;
}
")]
extern "C" {
    /// A POST of `body` as JSON to one of the sandbox's test routes; its answer.
    #[wasm_bindgen(catch)]
    async fn sandbox_post(url: &str, body: JsValue) -> Result<JsValue, JsValue>;
}

/// The sandbox's headless sign-in (its test routes): runs the client's own authorize request
/// as the user its `login_hint` names, who consents at once, and answers the address the
/// browser would come back to, with the code.
async fn sandbox_sign_in(authorize_url: &str) -> String {
    let body = js_sys::Object::new();
    js_sys::Reflect::set(&body, &"authorize_url".into(), &authorize_url.into()).unwrap();
    let answer = sandbox_post(&[AUTH_URL, "/_sandbox/sign-in"].concat(), body.into())
        .await
        .expect("the sandbox signed the user in");
    js_sys::Reflect::get(&answer, &"callback_url".into())
        .unwrap()
        .as_string()
        .expect("callback URL")
}

/// Makes the sandbox answer the next campaign request of demo-app `ms` late (a fault of its
/// test routes), so a loading state stays on screen however fast the machine.
async fn slow_campaign(ms: u32) {
    let body = js_sys::JSON::parse(&format!(
        r#"{{"endpoint": "campaign", "app_id": "demo-app", "delay_ms": {ms}, "times": 1}}"#
    ))
    .unwrap();
    sandbox_post(&[BASE_URL, "/_sandbox/faults"].concat(), body)
        .await
        .expect("the fault was added");
}

/// Signs `client` in as the demo user without filling in pages, through the real authorize →
/// code → companion path: the client's authorize URL (its state, nonce and PKCE challenge),
/// the sandbox's callback with a code, and the client's own redemption at the companion.
async fn sign_in(client: &Client) {
    let authorize = client
        .prepare_redirect(&SignInOptions::default().login_hint("demo@example.org"))
        .expect("authorize URL");
    let callback = sandbox_sign_in(&authorize).await;
    client
        .handle_callback(Some(&callback))
        .await
        .expect("the companion redeemed the code")
        .expect("a session");
}

/// The element `selector` finds in `parent` once `accept` holds for it (deadline 15 s).
async fn wait_for(
    parent: &HtmlElement,
    selector: &str,
    accept: impl Fn(&Element) -> bool,
) -> Element {
    let deadline = js_sys::Date::now() + 15_000.0;
    loop {
        if let Some(found) = parent
            .query_selector(selector)
            .unwrap()
            .filter(|e| accept(e))
        {
            return found;
        }
        assert!(
            js_sys::Date::now() < deadline,
            "{selector} never showed as expected: {}",
            parent.inner_html()
        );
        tick(20).await;
    }
}

fn text(element: &Element) -> String {
    element.text_content().unwrap_or_default()
}

/// The session panel's state mark (`data-session`).
fn session_mark(parent: &HtmlElement) -> String {
    parent
        .query_selector("[data-testid=session]")
        .unwrap()
        .expect("the session panel")
        .get_attribute("data-session")
        .unwrap_or_default()
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
async fn the_app_starts_unknown_then_shows_the_campaign_and_offers_sign_in() {
    slow_campaign(300).await;
    let (parent, _app) = mount(config());
    // Before the companion and the service have answered: both loading states.
    assert_eq!(session_mark(&parent), "unknown");
    let session = parent
        .query_selector("[data-testid=session] [role=status]")
        .unwrap()
        .expect("the unknown state");
    assert_eq!(text(&session), "Checking whether you are signed in…");
    // `<Suspense>` shows its fallback once it has polled the card (a turn of the event loop).
    tick(0).await;
    let campaign = parent
        .query_selector("[data-testid=campaign] [role=status]")
        .unwrap()
        .unwrap_or_else(|| panic!("the campaign's loading state: {}", parent.inner_html()));
    assert_eq!(text(&campaign), "Loading the campaign…");

    let title = wait_for(&parent, "[data-testid=campaign] h2", |_| true).await;
    assert_eq!(text(&title), "Demo Campaign: Clean Water for Everyone");
    let progress = wait_for(&parent, "[data-testid=progress]", |_| true).await;
    assert_eq!(text(&progress), "£4670.00 raised of £10000.00");

    // The companion holds no session for this browser: signed out, with a way to sign in.
    let sign_in = wait_for(&parent, "#sign-in", |_| true).await;
    assert_eq!(session_mark(&parent), "signedOut");
    assert_eq!(text(&sign_in), "Sign in");
    assert!(!sign_in.has_attribute("disabled"));
    assert!(parent.query_selector("[role=alert]").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn a_companion_and_a_service_out_of_reach_leave_the_app_signed_out_showing_the_codes() {
    let (parent, _app) = mount(Config {
        base_url: NOBODY.into(),
        companion_url: NOBODY.into(),
        ..config()
    });
    let restore = wait_for(&parent, "[data-testid=session] [role=alert]", |_| true).await;
    assert_eq!(
        restore.get_attribute("data-code").as_deref(),
        Some(code::NETWORK_ERROR)
    );
    let said = text(&restore);
    assert!(
        said.starts_with("Could not check whether you are signed in: ")
            && said.ends_with(" (network_error)"),
        "{said}"
    );
    // Signed out, and the page still offers to sign in.
    assert_eq!(session_mark(&parent), "signedOut");
    assert!(parent.query_selector("#sign-in").unwrap().is_some());

    let campaign = wait_for(&parent, "[data-testid=campaign] [role=alert]", |_| true).await;
    assert_eq!(
        campaign.get_attribute("data-code").as_deref(),
        Some(code::NETWORK_ERROR)
    );
    assert!(
        text(&campaign).starts_with("The campaign could not be loaded: "),
        "{}",
        text(&campaign)
    );
}

#[wasm_bindgen_test]
async fn a_second_click_while_the_pages_load_starts_nothing() {
    let (parent, _app) = mount(config());
    let button: HtmlElement = wait_for(&parent, "[data-testid=pages] button", |_| true)
        .await
        .unchecked_into();
    let performance = web_sys::window().unwrap().performance().unwrap();
    let started = performance.now();
    button.click();
    button.click();
    tick(0).await;
    assert!(button.has_attribute("disabled"), "{}", parent.inner_html());
    let count = wait_for(&parent, "[data-testid=page-count]", |_| true).await;
    assert_eq!(text(&count), "250 pages");
    assert!(!button.has_attribute("disabled"));

    // Each page of the listing was asked for once: the second click did not start a second run.
    let asked: Vec<String> = performance
        .get_entries_by_type("resource")
        .iter()
        .map(|entry| entry.unchecked_into::<web_sys::PerformanceEntry>())
        .filter(|entry| entry.start_time() >= started)
        .map(|entry| entry.name())
        .filter(|url| url.contains(&format!("/event/{EVENT_ID}/pages")))
        .collect();
    let mut distinct = asked.clone();
    distinct.sort();
    distinct.dedup();
    assert!(!asked.is_empty());
    assert_eq!(asked.len(), distinct.len(), "{asked:?}");
}

#[wasm_bindgen_test]
fn a_bad_address_in_the_configuration_is_refused_by_its_rust_name() {
    let bad = Config {
        base_url: "not a URL".into(),
        ..config()
    };
    let e = bad.client().unwrap_err();
    assert_eq!(e.code(), code::INVALID_ARGUMENT);
    assert!(e.to_string().contains("base_url"), "{e}");
}

#[wasm_bindgen_test]
async fn a_user_signs_in_the_app_restores_the_session_after_a_reload_and_signs_out() {
    // The companion's cookie is the browser's: start from no session.
    let client = config().client().expect("client");
    client.sign_out().await.expect("a clean start");
    let (parent, app) = mount_client(client.clone());
    wait_for(&parent, "#sign-in", |_| true).await;
    assert_eq!(session_mark(&parent), "signedOut");

    // Signed in: the app shows the user (through the client's session changes).
    sign_in(&client).await;
    let name = wait_for(&parent, "#user-name", |_| true).await;
    assert_eq!(text(&name), "Demo Fundraiser");
    assert_eq!(session_mark(&parent), "signedIn");

    // The page is loaded again: a new client and app, which restore the session from the
    // companion's cookie, unknown first.
    drop(app);
    parent.remove();
    let (parent, _app) = mount(config());
    assert_eq!(session_mark(&parent), "unknown");
    let name = wait_for(&parent, "#user-name", |_| true).await;
    assert_eq!(text(&name), "Demo Fundraiser");
    assert_eq!(session_mark(&parent), "signedIn");

    // Signing out by the app's button: signed out here and at the companion.
    let sign_out: HtmlElement = wait_for(&parent, "#sign-out", |_| true)
        .await
        .unchecked_into();
    sign_out.click();
    wait_for(&parent, "#sign-in", |_| true).await;
    assert_eq!(session_mark(&parent), "signedOut");
    assert!(parent.query_selector("[role=alert]").unwrap().is_none());
    let fresh = config().client().expect("client");
    assert_eq!(fresh.restore_session().await.expect("asked"), None);
}
