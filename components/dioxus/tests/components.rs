//! The components in a browser, against the sandbox and the companion `scripts/with-servers.sh`
//! starts for the application `demo-components`, whose home page is this test page's origin
//! (`WASM_BINDGEN_TEST_ADDRESS`), so that a sign-in by redirect comes back here: the signed-out
//! branch, sign-in by the button (pop-up; redirect when the pop-up is blocked), the guard's
//! return to the route asked for, a reload, a sign-out in another tab, and a resource whose
//! request goes with its component.
//!
//!   scripts/with-servers.sh -- bash -c 'cd components/dioxus && cargo test'
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use dioxus::prelude::*;
use fundraising_client::{Client, ClientOptions, SessionState};
use fundraising_dioxus::*;
use fundraising_testing::{element, until, until_async, PopupWatch, Sandbox};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element as DomElement, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

const APP_ID: &str = match option_env!("FUNDRAISING_COMPONENTS_APP_ID") {
    Some(id) => id,
    None => "demo-components",
};
const COMPANION_URL: &str = match option_env!("FUNDRAISING_COMPONENTS_COMPANION_URL") {
    Some(url) => url,
    None => "http://127.0.0.1:8085",
};
const TEST_ADDRESS: &str = match option_env!("WASM_BINDGEN_TEST_ADDRESS") {
    Some(address) => address,
    None => "127.0.0.1:8000",
};
const USER: &str = "demo@example.org";

fn options() -> ClientOptions {
    let sandbox = Sandbox::from_env();
    ClientOptions::new(APP_ID, sandbox.base_url())
        .auth_url(sandbox.auth_url())
        .redirect_uri(["http://", TEST_ADDRESS, "/"].concat())
        .companion_url(COMPANION_URL)
        .scopes(["fundraise", "offline_access", "email"])
}

/// A client of a page that just loaded (a fresh client restores from the companion's cookie).
fn client() -> Client {
    Client::new(options()).expect("the options")
}

/// The authorize URLs the provider was asked to go to (instead of navigating this test page).
#[derive(Clone, Default)]
struct Redirects(Rc<RefCell<Vec<String>>>);

impl PartialEq for Redirects {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Redirects {
    fn last(&self) -> Option<String> {
        self.0.borrow().last().cloned()
    }
}

/// The apps the tests mount.
#[derive(Clone, Copy, PartialEq)]
enum App {
    Session,
    Routed,
    Toggled,
}

/// What the tests mount: which app, its client and where its redirects go.
#[derive(Clone, PartialEq, Props)]
struct TestProps {
    client: Client,
    redirects: Redirects,
    app: App,
}

#[allow(non_snake_case)]
fn TestRoot(props: TestProps) -> Element {
    let redirects = props.redirects.clone();
    let on_redirect =
        use_hook(|| EventHandler::new(move |url: String| redirects.0.borrow_mut().push(url)));
    rsx! {
        FundraisingProvider { client: props.client.clone(), on_redirect, Slot { app: props.app } }
    }
}

/// The app, as a child of the provider.
#[component]
fn Slot(app: App) -> Element {
    match app {
        App::Session => rsx! { SessionView {} },
        App::Routed => rsx! { Router::<Route> {} },
        App::Toggled => rsx! { Toggled {} },
    }
}

/// Mounts `app` with `client` in a fresh element of the page: a page that just loaded.
fn mount(app: App, client: Client, redirects: &Redirects) -> HtmlElement {
    let document = web_sys::window().unwrap().document().unwrap();
    let parent: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&parent).unwrap();
    let dom = VirtualDom::new_with_props(
        TestRoot,
        TestProps {
            client,
            redirects: redirects.clone(),
            app,
        },
    );
    dioxus::web::launch::launch_virtual_dom(
        dom,
        dioxus::web::Config::new().rootelement(parent.clone().unchecked_into()),
    );
    parent
}

fn state_name(state: &SessionState) -> &'static str {
    match state {
        SessionState::SignedIn(_) => "signedIn",
        SessionState::SignedOut => "signedOut",
        _ => "unknown",
    }
}

/// What an app shows of the session: its state, the three branches, the buttons, the error.
#[allow(non_snake_case)]
fn SessionView() -> Element {
    let session = use_session();
    let profile = use_profile();
    let error = use_fundraising().error();
    let name = profile().and_then(|p| p.name).unwrap_or_default();
    let code = error().map(|e| e.code().to_owned()).unwrap_or_default();
    rsx! {
        div { "data-testid": "session", "data-state": state_name(&session()),
            SessionPending { p { id: "pending", "Checking whether you are signed in…" } }
            SignedOut { p { id: "signed-out", "Not signed in." } SignInButton { id: "sign-in", "Sign in" } }
            SignedIn { p { id: "name", "{name}" } SignOutButton { id: "sign-out", "Sign out" } }
            p { id: "error", "{code}" }
        }
    }
}

fn state_of(parent: &HtmlElement) -> String {
    parent
        .query_selector("[data-testid=session]")
        .unwrap()
        .and_then(|e| e.get_attribute("data-state"))
        .unwrap_or_default()
}

fn text(element: &DomElement) -> String {
    element.text_content().unwrap_or_default()
}

async fn click(parent: &HtmlElement, selector: &str) {
    let button: HtmlElement = element(parent, selector).await.unchecked_into();
    until(10_000.0, "the button stayed disabled", || {
        !button.has_attribute("disabled")
    })
    .await;
    button.click();
}

/// Starts from no session: the companion's cookie is the browser's, shared by every test.
async fn signed_out_start() {
    client().sign_out().await.expect("a clean start");
}

/// True in WebKit, whose driver leaves the pop-up blocker on: a script's click opens no window
/// there (docs/browsers.md).
fn pop_ups_need_a_gesture() -> bool {
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).unwrap();
    let agent = js_sys::Reflect::get(&navigator, &"userAgent".into())
        .unwrap()
        .as_string()
        .unwrap();
    agent.contains("AppleWebKit") && !agent.contains("Chrome")
}

fn address() -> String {
    web_sys::window().unwrap().location().href().unwrap()
}

fn go_to(url: &str) {
    let history = web_sys::window().unwrap().history().unwrap();
    history
        .replace_state_with_url(&JsValue::NULL, "", Some(url))
        .unwrap();
}

#[wasm_bindgen_test]
async fn a_visitor_without_a_session_sees_the_pending_then_the_signed_out_branch() {
    signed_out_start().await;
    let parent = mount(App::Session, client(), &Redirects::default());
    let sign_in = element(&parent, "#sign-in").await;
    assert_eq!(state_of(&parent), "signedOut");
    assert_eq!(text(&sign_in), "Sign in");
    assert!(parent.query_selector("#pending").unwrap().is_none());
    assert!(parent.query_selector("#name").unwrap().is_none());
    assert_eq!(text(&element(&parent, "#error").await), "");
    parent.remove();
}

#[wasm_bindgen_test]
async fn the_branch_is_pending_until_the_companion_has_answered() {
    // A signed-in browser whose restore the identity server answers 2 s late (the companion's
    // refresh): the page shows the pending branch meanwhile, then the user.
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    sandbox.sign_in(&client(), USER).await.expect("signed in");
    sandbox
        .add_fault(serde_json::json!({"endpoint": "token", "app_id": APP_ID, "grant_type": "refresh_token", "delay_ms": 2000, "times": 1}))
        .await
        .expect("the fault");
    let parent = mount(App::Session, client(), &Redirects::default());
    let pending = element(&parent, "#pending").await;
    assert_eq!(text(&pending), "Checking whether you are signed in…");
    assert_eq!(state_of(&parent), "unknown");
    assert!(parent.query_selector("#sign-in").unwrap().is_none());
    assert_eq!(text(&element(&parent, "#name").await), "Demo Fundraiser");
    parent.remove();
}

#[wasm_bindgen_test]
async fn the_button_signs_in_by_pop_up_and_the_next_page_restores_the_session() {
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    let redirects = Redirects::default();
    let parent = mount(App::Session, client(), &redirects);
    let watch = PopupWatch::start();
    click(&parent, "#sign-in").await;
    until(5_000.0, "the button opened no pop-up", || {
        !watch.opened().is_empty()
    })
    .await;
    if pop_ups_need_a_gesture() {
        // WebKit's blocker refuses the script's click: the button went for the redirect.
        until(5_000.0, "no redirect after a blocked pop-up", || {
            redirects.last().is_some()
        })
        .await;
        parent.remove();
        return;
    }
    assert!(watch.opened()[0].starts_with(&[sandbox.auth_url(), "/connect/authorize?"].concat()));
    watch
        .sign_in(&sandbox, USER)
        .await
        .expect("the sandbox signed the user in");
    assert_eq!(text(&element(&parent, "#name").await), "Demo Fundraiser");
    assert_eq!(state_of(&parent), "signedIn");
    assert!(redirects.last().is_none());
    parent.remove();

    // A reload: a new page's client and provider restore the session from the companion.
    let parent = mount(App::Session, client(), &redirects);
    assert_eq!(text(&element(&parent, "#name").await), "Demo Fundraiser");
    click(&parent, "#sign-out").await;
    element(&parent, "#sign-in").await;
    assert_eq!(client().restore_session().await.expect("asked"), None);
    parent.remove();
}

#[wasm_bindgen_test]
async fn with_the_pop_up_blocked_the_button_signs_in_by_redirect_and_the_way_back_finishes_it() {
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    let start = address();
    let redirects = Redirects::default();
    let parent = mount(App::Session, client(), &redirects);
    let watch = PopupWatch::blocking();
    click(&parent, "#sign-in").await;
    until(5_000.0, "no redirect after a blocked pop-up", || {
        redirects.last().is_some()
    })
    .await;
    drop(watch);
    let authorize = redirects.last().unwrap();
    assert!(authorize.starts_with(&[sandbox.auth_url(), "/connect/authorize?"].concat()));
    parent.remove();

    // Back at the home page, this page, with the code.
    let callback = sandbox
        .callback_for(&authorize, USER)
        .await
        .expect("a callback");
    go_to(&callback);
    let parent = mount(App::Session, client(), &redirects);
    assert_eq!(text(&element(&parent, "#name").await), "Demo Fundraiser");
    let now = address();
    go_to(&start);
    assert!(!now.contains("code=") && !now.contains("state="), "{now}");
    parent.remove();
}

#[derive(Routable, Clone, PartialEq, Debug)]
enum Route {
    #[route("/")]
    Home {},
    #[route("/account")]
    Account {},
}

#[component]
fn Home() -> Element {
    rsx! { p { id: "home", "Home" } }
}

#[component]
fn Account() -> Element {
    rsx! {
        RequireSignIn { fallback: rsx! { p { id: "guard-wait", "Taking you to sign in…" } },
            p { id: "account", "Your account" }
        }
    }
}

#[wasm_bindgen_test]
async fn the_guard_sends_a_signed_out_visitor_to_sign_in_and_back_to_the_route_asked_for() {
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    let start = address();
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    go_to(&[origin.as_str(), "/account"].concat());
    let redirects = Redirects::default();
    let parent = mount(App::Routed, client(), &redirects);
    element(&parent, "#guard-wait").await;
    until(
        10_000.0,
        "the guard did not send the visitor to sign in",
        || redirects.last().is_some(),
    )
    .await;
    assert!(parent.query_selector("#account").unwrap().is_none());
    parent.remove();

    // Back from the identity server at the home page, with the code.
    let callback = sandbox
        .callback_for(&redirects.last().unwrap(), USER)
        .await
        .expect("a callback");
    go_to(&callback);
    let redirects_after = Redirects::default();
    let parent = mount(App::Routed, client(), &redirects_after);
    let account = element(&parent, "#account").await;
    assert_eq!(text(&account), "Your account");
    let location = web_sys::window().unwrap().location();
    let arrived = [location.pathname().unwrap(), location.search().unwrap()].concat();
    go_to(&start);
    assert_eq!(arrived, "/account");
    assert!(
        redirects_after.last().is_none(),
        "a second sign-in was started"
    );
    parent.remove();
}

#[wasm_bindgen_test]
async fn a_sign_out_in_another_tab_is_seen_here() {
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    let here = client();
    sandbox.sign_in(&here, USER).await.expect("signed in");
    let parent = mount(App::Session, here, &Redirects::default());
    assert_eq!(text(&element(&parent, "#name").await), "Demo Fundraiser");

    // Another tab of this origin: its own client, which signs out.
    let other_tab = client();
    other_tab
        .restore_session()
        .await
        .expect("the other tab restored");
    other_tab.sign_out().await.expect("signed out there");
    element(&parent, "#sign-in").await;
    assert_eq!(state_of(&parent), "signedOut");
    parent.remove();
}

#[component]
fn Campaign() -> Element {
    let campaign = use_campaign(|| "demo-campaign".to_owned());
    let shown = match &*campaign.read() {
        Some(Ok(c)) => rsx! { "{c.short_name}" },
        Some(Err(e)) => rsx! { "{e.code()}" },
        None => rsx! { p { id: "loading", "Loading…" } },
    };
    shown
}

#[allow(non_snake_case)]
fn Toggled() -> Element {
    let mut shown = use_signal(|| true);
    rsx! {
        button { id: "toggle", onclick: move |_| shown.toggle(), "Toggle" }
        div { id: "card", if shown() { Campaign {} } }
    }
}

#[wasm_bindgen_test]
async fn a_resource_shows_its_answer_and_its_request_goes_with_its_component() {
    let sandbox = Sandbox::from_env();
    let path = ["/", APP_ID, "/v1/campaign/byshortname/demo-campaign"].concat();
    let parent = mount(App::Toggled, client(), &Redirects::default());
    let card = element(&parent, "#card").await;
    until(10_000.0, "the campaign never showed", || {
        text(&card) == "demo-campaign"
    })
    .await;

    // Slow the next campaign request down; show the card again, and take it away while its
    // request is in flight.
    click(&parent, "#toggle").await;
    until(5_000.0, "the card stayed", || text(&card).is_empty()).await;
    let since = sandbox.last_request_id().await.unwrap();
    let fault = sandbox
        .add_fault(serde_json::json!({"endpoint": "campaign", "app_id": APP_ID, "delay_ms": 4000, "times": 1}))
        .await
        .expect("the fault");
    click(&parent, "#toggle").await;
    element(&parent, "#loading").await;
    until_async(
        10_000.0,
        "the slowed request never reached the sandbox",
        || async {
            let faults = sandbox.faults().await.unwrap();
            !faults.iter().any(|f| f["id"].as_u64() == Some(fault))
        },
    )
    .await;
    click(&parent, "#toggle").await;
    // The sandbox logs the request once it ends: no answer sent, the client gone first.
    let logged = RefCell::new(Vec::new());
    until_async(15_000.0, "the request was never logged", || async {
        *logged.borrow_mut() = sandbox.requests(since, &[("path", &path)]).await.unwrap();
        !logged.borrow().is_empty()
    })
    .await;
    let logged = logged.into_inner();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["status"], serde_json::Value::Null, "{logged:?}");
    parent.remove();
}
