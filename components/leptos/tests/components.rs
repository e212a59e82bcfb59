//! The components in a browser, against the sandbox and the companion `scripts/with-servers.sh`
//! starts for the application `demo-components`, whose home page is this test page's origin
//! (`WASM_BINDGEN_TEST_ADDRESS`), so that a sign-in by redirect comes back here: the signed-out
//! branch, sign-in by the button (pop-up; redirect when the pop-up is blocked), the guard's
//! return to the route asked for, a reload, a sign-out in another tab, and a resource whose
//! request goes with its owner.
//!
//!   scripts/with-servers.sh -- bash -c 'cd components/leptos && cargo test'
#![cfg(target_arch = "wasm32")]

use std::sync::{Arc, Mutex};

use fundraising_client::{Client, ClientOptions, SessionState};
use fundraising_leptos::*;
use fundraising_testing::{element, until, until_async, PopupWatch, Sandbox};
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

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
struct Redirects(Arc<Mutex<Vec<String>>>);

impl Redirects {
    fn callback(&self) -> Callback<String> {
        let seen = self.0.clone();
        Callback::new(move |url: String| seen.lock().unwrap().push(url))
    }
    fn last(&self) -> Option<String> {
        self.0.lock().unwrap().last().cloned()
    }
}

/// Mounts `app` in a fresh element; dropping the handle unmounts it (its owner goes).
fn mount<V: IntoView + 'static>(app: impl FnOnce() -> V + 'static) -> (HtmlElement, impl Sized) {
    let document = web_sys::window().unwrap().document().unwrap();
    let parent: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&parent).unwrap();
    let handle = leptos::mount::mount_to(parent.clone(), app);
    (parent, handle)
}

fn state_name(state: &SessionState) -> &'static str {
    match state {
        SessionState::SignedIn(_) => "signedIn",
        SessionState::SignedOut => "signedOut",
        _ => "unknown",
    }
}

/// What an app shows of the session: its state, the three branches, the buttons, the error.
#[component]
fn SessionView() -> impl IntoView {
    let session = use_session();
    let profile = use_profile();
    let error = use_fundraising().error();
    view! {
        <div data-testid="session" data-state=move || state_name(&session.get())>
            <SessionPending><p id="pending">"Checking whether you are signed in…"</p></SessionPending>
            <SignedOut><p id="signed-out">"Not signed in."</p><SignInButton id="sign-in">"Sign in"</SignInButton></SignedOut>
            <SignedIn>
                <p id="name">{move || profile.get().and_then(|p| p.name)}</p>
                <SignOutButton id="sign-out">"Sign out"</SignOutButton>
            </SignedIn>
            <p id="error">{move || error.get().map(|e| e.code().to_owned())}</p>
        </div>
    }
}

fn app(client: Client, redirects: &Redirects) -> impl FnOnce() -> AnyView + 'static {
    let on_redirect = redirects.callback();
    move || {
        view! { <FundraisingProvider client on_redirect><SessionView /></FundraisingProvider> }
            .into_any()
    }
}

fn state_of(parent: &HtmlElement) -> String {
    parent
        .query_selector("[data-testid=session]")
        .unwrap()
        .and_then(|e| e.get_attribute("data-state"))
        .unwrap_or_default()
}

fn text(element: &Element) -> String {
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

/// The page's address, to put back after a test that moved it.
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
    let (parent, _app) = mount(app(client(), &Redirects::default()));
    // Before the companion has answered: pending.
    assert_eq!(state_of(&parent), "unknown");
    assert!(
        parent.query_selector("#pending").unwrap().is_some(),
        "{}",
        parent.inner_html()
    );
    let sign_in = element(&parent, "#sign-in").await;
    assert_eq!(state_of(&parent), "signedOut");
    assert_eq!(text(&sign_in), "Sign in");
    assert!(parent.query_selector("#pending").unwrap().is_none());
    assert!(parent.query_selector("#name").unwrap().is_none());
    assert_eq!(text(&element(&parent, "#error").await), "");
}

#[wasm_bindgen_test]
async fn the_button_signs_in_by_pop_up_and_the_next_page_restores_the_session() {
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    let redirects = Redirects::default();
    let (parent, app_handle) = mount(app(client(), &redirects));
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
        return;
    }
    assert!(watch.opened()[0].starts_with(&[sandbox.auth_url(), "/connect/authorize?"].concat()));
    watch
        .sign_in(&sandbox, USER)
        .await
        .expect("the sandbox signed the user in");
    let name = element(&parent, "#name").await;
    assert_eq!(text(&name), "Demo Fundraiser");
    assert_eq!(state_of(&parent), "signedIn");
    assert!(redirects.last().is_none());

    // A reload: a new page's client and provider restore the session from the companion.
    drop(app_handle);
    parent.remove();
    let (parent, _app) = mount(app(client(), &redirects));
    assert_eq!(state_of(&parent), "unknown");
    assert_eq!(text(&element(&parent, "#name").await), "Demo Fundraiser");
    // And the sign-out button signs out, here and at the companion.
    click(&parent, "#sign-out").await;
    element(&parent, "#sign-in").await;
    assert_eq!(client().restore_session().await.expect("asked"), None);
}

#[wasm_bindgen_test]
async fn with_the_pop_up_blocked_the_button_signs_in_by_redirect_and_the_way_back_finishes_it() {
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    let start = address();
    let redirects = Redirects::default();
    let (parent, app_handle) = mount(app(client(), &redirects));
    let watch = PopupWatch::blocking();
    click(&parent, "#sign-in").await;
    until(5_000.0, "no redirect after a blocked pop-up", || {
        redirects.last().is_some()
    })
    .await;
    drop(watch);
    let authorize = redirects.last().unwrap();
    assert!(authorize.starts_with(&[sandbox.auth_url(), "/connect/authorize?"].concat()));
    assert_eq!(text(&element(&parent, "#error").await), "");

    // The identity server sends the browser back to the home page with the code: this page,
    // loaded again at the callback's address.
    let callback = sandbox
        .callback_for(&authorize, USER)
        .await
        .expect("a callback");
    drop(app_handle);
    parent.remove();
    go_to(&callback);
    let (parent, _app) = mount(app(client(), &redirects));
    assert_eq!(text(&element(&parent, "#name").await), "Demo Fundraiser");
    // The code and state are gone from the address bar.
    let now = address();
    go_to(&start);
    assert!(!now.contains("code=") && !now.contains("state="), "{now}");
}

#[component]
fn Guarded(on_redirect: Callback<String>, client: Client) -> impl IntoView {
    view! {
        <FundraisingProvider client on_redirect>
            <Router>
                <Routes fallback=|| view! { <p id="no-route">"Not found"</p> }>
                    <Route path=path!("/") view=|| view! { <p id="home">"Home"</p> } />
                    <Route path=path!("/account") view=|| view! {
                        <RequireSignIn fallback=|| view! { <p id="guard-wait">"Taking you to sign in…"</p> }>
                            <p id="account">"Your account"</p>
                        </RequireSignIn>
                    } />
                </Routes>
            </Router>
        </FundraisingProvider>
    }
}

#[wasm_bindgen_test]
async fn the_guard_sends_a_signed_out_visitor_to_sign_in_and_back_to_the_route_asked_for() {
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    let start = address();
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    go_to(&[origin.as_str(), "/account?tab=2#gifts"].concat());
    let redirects = Redirects::default();
    let on_redirect = redirects.callback();
    let client = client();
    let (parent, app_handle) = mount(move || view! { <Guarded on_redirect client /> });
    // The router renders the route a turn later: the guard's fallback, while it sends the
    // visitor to sign in.
    element(&parent, "#guard-wait").await;
    until(
        10_000.0,
        "the guard did not send the visitor to sign in",
        || redirects.last().is_some(),
    )
    .await;
    assert!(parent.query_selector("#account").unwrap().is_none());

    // Back from the identity server at the home page, with the code.
    let callback = sandbox
        .callback_for(&redirects.last().unwrap(), USER)
        .await
        .expect("a callback");
    drop(app_handle);
    parent.remove();
    go_to(&callback);
    let on_redirect = redirects.callback();
    let client = self::client();
    let (parent, _app) = mount(move || view! { <Guarded on_redirect client /> });
    let account = element(&parent, "#account").await;
    assert_eq!(text(&account), "Your account");
    let location = web_sys::window().unwrap().location();
    let arrived = [
        location.pathname().unwrap(),
        location.search().unwrap(),
        location.hash().unwrap(),
    ]
    .concat();
    go_to(&start);
    assert_eq!(arrived, "/account?tab=2#gifts");
    assert_eq!(
        redirects.0.lock().unwrap().len(),
        1,
        "a second sign-in was started"
    );
}

#[wasm_bindgen_test]
async fn a_sign_out_in_another_tab_is_seen_here() {
    signed_out_start().await;
    let sandbox = Sandbox::from_env();
    let here = client();
    sandbox.sign_in(&here, USER).await.expect("signed in");
    let (parent, _app) = mount(app(here, &Redirects::default()));
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
}

#[component]
fn Campaign() -> impl IntoView {
    let campaign = use_campaign(|| "demo-campaign".to_owned());
    view! {
        <Suspense fallback=|| view! { <p id="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                campaign.await.map(|c| c.short_name).unwrap_or_else(|e| e.code().to_owned())
            })}
        </Suspense>
    }
}

#[wasm_bindgen_test]
async fn a_resource_shows_its_answer_and_its_request_goes_with_its_owner() {
    let sandbox = Sandbox::from_env();
    let path = ["/", APP_ID, "/v1/campaign/byshortname/demo-campaign"].concat();
    let shown = RwSignal::new(true);
    let client = client();
    let (parent, _app) = mount(move || {
        view! {
            <FundraisingProvider client>
                <div id="card"><Show when=move || shown.get()><Campaign /></Show></div>
            </FundraisingProvider>
        }
    });
    let card = element(&parent, "#card").await;
    until(10_000.0, "the campaign never showed", || {
        text(&card) == "demo-campaign"
    })
    .await;

    // Slow the next campaign request down; show the card again, and take it away while its
    // request is in flight.
    shown.set(false);
    let since = sandbox.last_request_id().await.unwrap();
    let fault = sandbox
        .add_fault(serde_json::json!({"endpoint": "campaign", "app_id": APP_ID, "delay_ms": 4000, "times": 1}))
        .await
        .expect("the fault");
    shown.set(true);
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
    shown.set(false);
    // The sandbox logs the request once it ends: no answer sent, the client gone first.
    let logged = std::cell::RefCell::new(Vec::new());
    until_async(15_000.0, "the request was never logged", || async {
        *logged.borrow_mut() = sandbox.requests(since, &[("path", &path)]).await.unwrap();
        !logged.borrow().is_empty()
    })
    .await;
    let logged = logged.into_inner();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["status"], serde_json::Value::Null, "{logged:?}");
}
