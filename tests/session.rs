//! The session state through the typed API: restored when a page starts, in token-mediating
//! and BFF mode, as the one state an app binds to (unknown, then signed in or signed out),
//! told through the callback and the `Stream`; no request without a companion; a companion that
//! cannot be reached leaves the page signed out with the reason. Each test starts by signing
//! out, so no session of another test is restored (the companions share the browser's cookies).
#![cfg(target_arch = "wasm32")]

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use fundraising_client::{
    code, Client, ClientOptions, Reason, SessionChange, SessionState, SignInOptions,
};
use futures_util::StreamExt;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Records every session change of a client, with the subscription that keeps them coming.
fn recorder(
    client: &Client,
) -> (
    Rc<RefCell<Vec<SessionChange>>>,
    fundraising_client::Subscription,
) {
    let seen: Rc<RefCell<Vec<SessionChange>>> = Rc::default();
    let sink = seen.clone();
    let subscription =
        client.on_session_change(move |change| sink.borrow_mut().push(change.clone()));
    (seen, subscription)
}

/// `(reason, signed in?)` of each change.
fn steps(changes: &Rc<RefCell<Vec<SessionChange>>>) -> Vec<(Reason, bool)> {
    changes
        .borrow()
        .iter()
        .map(|c| (c.reason, c.session().is_some()))
        .collect()
}

/// Signs `client` in through the real login and consent pages, as a redirect sign-in that
/// comes back to this page.
async fn sign_in(client: &Client) {
    let authorize = client
        .prepare_redirect(&SignInOptions::default())
        .expect("authorize URL");
    let callback = mint(&authorize, "allow").await;
    client
        .handle_callback(Some(&callback))
        .await
        .expect("exchanged")
        .expect("a session");
}

/// The address of every resource this page has fetched so far.
fn fetched() -> Vec<String> {
    let performance = field(&js_sys::global(), "performance");
    let entries: js_sys::Function = field(&performance, "getEntriesByType").into();
    let entries: js_sys::Array = entries
        .call1(&performance, &"resource".into())
        .unwrap()
        .into();
    entries
        .iter()
        .map(|entry| field(&entry, "name").as_string().unwrap_or_default())
        .collect()
}

#[wasm_bindgen_test]
async fn token_mediating_mode_restores_a_session_with_a_fresh_access_token() {
    signing_client().sign_out().await.expect("a clean start");

    // A page starts: unknown, then signed out, told once, with no callback on the address.
    let page = signing_client();
    assert_eq!(page.session_state(), SessionState::Unknown);
    let (changes, _subscription) = recorder(&page);
    assert_eq!(page.restore_session().await.expect("restored"), None);
    assert_eq!(page.session_state(), SessionState::SignedOut);
    assert_eq!(steps(&changes), [(Reason::Restore, false)]);
    // Once known, a restore asks nothing and tells nothing.
    assert_eq!(page.restore_session().await.expect("restored"), None);
    assert_eq!(changes.borrow().len(), 1);

    sign_in(&page).await;
    let first_token = page.session().unwrap().access_token.expect("a token");
    assert_eq!(
        steps(&changes),
        [(Reason::Restore, false), (Reason::SignIn, true)]
    );

    // The page is loaded again: the companion's cookie brings the session back with a new
    // access token, and the state is the truth for `session()` and `access_token()`.
    let reloaded = signing_client();
    let (reloaded_changes, _subscription) = recorder(&reloaded);
    assert_eq!(reloaded.session_state(), SessionState::Unknown);
    let session = reloaded
        .restore_session()
        .await
        .expect("restored")
        .expect("a session");
    let token = session.access_token.clone().expect("a fresh access token");
    assert_ne!(token, first_token);
    assert_eq!(session.profile.name.as_deref(), Some("Demo Fundraiser"));
    assert!(session.expires_at.millis as f64 > js_sys::Date::now() + 3_000_000.0);
    assert_eq!(
        reloaded.session_state(),
        SessionState::SignedIn(session.clone())
    );
    assert_eq!(reloaded.session(), Some(session));
    assert_eq!(steps(&reloaded_changes), [(Reason::Restore, true)]);
    assert_eq!(reloaded.access_token().await.unwrap(), Some(token));
    // The owner's view of a donation: the restored token is used.
    let donation = reloaded.donation("demo-ref-1").await.expect("donation");
    assert_eq!(donation.donor_real_name.as_deref(), Some("Alex Smith"));

    reloaded.sign_out().await.expect("signed out");
    assert_eq!(reloaded.session_state(), SessionState::SignedOut);
    let again = signing_client();
    assert_eq!(again.restore_session().await.expect("restored"), None);
}

#[wasm_bindgen_test]
async fn bff_mode_restores_the_profile_and_expiry_without_a_token() {
    bff_client().sign_out().await.expect("a clean start");

    let page = bff_client();
    let (changes, _subscription) = recorder(&page);
    assert_eq!(page.session_state(), SessionState::Unknown);
    assert_eq!(page.restore_session().await.expect("restored"), None);
    assert_eq!(page.session_state(), SessionState::SignedOut);
    sign_in(&page).await;
    let signed_in = page.session().expect("signed in");
    assert_eq!(signed_in.access_token, None);

    let reloaded = bff_client();
    let (reloaded_changes, _subscription) = recorder(&reloaded);
    let session = reloaded
        .restore_session()
        .await
        .expect("restored")
        .expect("a session");
    assert_eq!(session.access_token, None);
    assert_eq!(session.profile, signed_in.profile);
    assert_eq!(session.profile.email.as_deref(), Some("demo@example.org"));
    assert_eq!(session.expires_at, signed_in.expires_at);
    assert!(session.expires_at.millis as f64 > js_sys::Date::now());
    assert!(session.scope.as_deref().unwrap_or("").contains("fundraise"));
    assert_eq!(
        reloaded.session_state(),
        SessionState::SignedIn(session.clone())
    );
    assert_eq!(steps(&reloaded_changes), [(Reason::Restore, true)]);
    assert_eq!(
        reloaded.access_token().await.unwrap_err().code(),
        code::TOKEN_NOT_AVAILABLE
    );
    // The companion attaches the token: the owner's view through its proxy.
    let donation = reloaded.donation("demo-ref-1").await.expect("donation");
    assert_eq!(donation.donor_real_name.as_deref(), Some("Alex Smith"));

    // A sign-out there reaches the first page, as from another tab.
    reloaded.sign_out().await.expect("signed out");
    assert_eq!(
        bff_client().restore_session().await.expect("restored"),
        None
    );
    until(5_000.0, "the first page was not signed out", || async {
        page.session_state() == SessionState::SignedOut
    })
    .await;
    assert_eq!(
        steps(&changes),
        [
            (Reason::Restore, false),
            (Reason::SignIn, true),
            (Reason::SignOut, false)
        ]
    );
}

#[wasm_bindgen_test]
async fn the_stream_tells_each_change_and_ends_with_the_client() {
    signing_client().sign_out().await.expect("a clean start");
    let page = signing_client();
    let mut changes = page.session_changes();
    page.restore_session().await.expect("restored");
    sign_in(&page).await;
    page.sign_out().await.expect("signed out");
    let mut seen = Vec::new();
    for _ in 0..3 {
        let change = changes.next().await.expect("a change");
        seen.push((
            change.reason,
            change.state.is_known(),
            change.session().is_some(),
        ));
    }
    assert_eq!(
        seen,
        [
            (Reason::Restore, true, false),
            (Reason::SignIn, true, true),
            (Reason::SignOut, true, false),
        ]
    );
    // Dropping the client (every clone) ends the stream.
    drop(page);
    assert!(changes.next().await.is_none());

    // Dropping a stream unsubscribes: the client holds no listener for it.
    let page = signing_client();
    let (recorded, _subscription) = recorder(&page);
    drop(page.session_changes());
    page.restore_session().await.expect("restored");
    assert_eq!(recorded.borrow().len(), 1);
}

#[wasm_bindgen_test]
async fn tasks_waiting_on_the_stream_end_when_the_client_is_dropped() {
    let page = signing_client();
    // Each task waits on a stream of its own; `ended` gets what its `next()` gave.
    let ended: Rc<RefCell<Vec<Option<SessionChange>>>> = Rc::default();
    for _ in 0..2 {
        let mut changes = page.session_changes();
        let ended = ended.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let next = changes.next().await;
            ended.borrow_mut().push(next);
        });
    }
    // The tasks run their first poll in a microtask: one turn of the event loop later both
    // wait inside `next()`, with nothing to hand out.
    pause(0).await;
    assert!(ended.borrow().is_empty(), "a stream ended before the drop");

    // The client goes (every clone): each waiting task is woken, and its stream ends.
    drop(page);
    until(
        5_000.0,
        "the waiting tasks never saw their streams end",
        || {
            let done = ended.borrow().len() == 2;
            async move { done }
        },
    )
    .await;
    assert!(
        ended.borrow().iter().all(Option::is_none),
        "a stream handed out a change instead of ending"
    );
}

#[wasm_bindgen_test]
async fn a_page_without_a_companion_is_signed_out_and_asks_nobody() {
    signing_client().sign_out().await.expect("a clean start");
    // Other tests of this page ask their companion; this one's restores add nothing.
    let asked = || {
        fetched()
            .iter()
            .filter(|url| url.contains("/auth/"))
            .count()
    };
    let before = asked();
    let page = client_for(BASE_URL);
    assert_eq!(page.session_state(), SessionState::SignedOut);
    let (changes, _subscription) = recorder(&page);
    for _ in 0..2 {
        let restored = page.restore_session().await.expect("nothing to restore");
        assert_eq!(restored, None);
    }
    assert_eq!(page.session_state(), SessionState::SignedOut);
    assert!(changes.borrow().is_empty());
    assert_eq!(asked(), before);
    // ...which the count would show: a client with a companion asks it once.
    let with_companion = signing_client();
    with_companion.restore_session().await.expect("restored");
    assert_eq!(asked(), before + 1);
}

#[wasm_bindgen_test]
async fn a_companion_that_cannot_be_reached_leaves_the_page_signed_out_with_the_reason() {
    // A port nothing listens on.
    let page = Client::new(
        signing_options()
            .companion_url("http://127.0.0.1:9")
            .timeout(std::time::Duration::from_secs(5)),
    )
    .unwrap();
    let (changes, _subscription) = recorder(&page);
    let e = page.restore_session().await.expect_err("unreachable");
    assert_eq!(e.code(), code::NETWORK_ERROR, "{e}");
    assert_eq!(page.session_state(), SessionState::SignedOut);
    assert_eq!(steps(&changes), [(Reason::Restore, false)]);
    // The page stays usable: resource calls work, signed out.
    let campaign = page.campaign("demo-campaign").await.expect("campaign");
    assert_eq!(campaign.short_name, "demo-campaign");
}

#[wasm_bindgen_test]
fn clones_of_a_client_are_equal_and_other_clients_are_not() {
    let options = ClientOptions::new(APP_ID, BASE_URL);
    let a = Client::new(options.clone()).unwrap();
    let b = Client::new(options).unwrap();
    assert_eq!(a, a.clone());
    assert_ne!(a, b);
}
