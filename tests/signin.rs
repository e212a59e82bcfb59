//! Sign-in through the typed API: the redirect flow through the real login and consent pages
//! to the companion's exchange, the pop-up's message rules, the shared refresh, session
//! changes across tabs, and the transactions left by abandoned redirects.
#![cfg(target_arch = "wasm32")]

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use fundraising_client::{code, Error, PopupSignIn, Reason, Session, SessionChange, SignInOptions};
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn redirect_flow_signs_in_through_the_companion_and_a_replay_is_refused() {
    let client = signing_client();
    assert_eq!(client.session(), None);
    let authorize = client
        .prepare_redirect(&SignInOptions::default())
        .expect("authorize URL");
    assert!(
        authorize.starts_with(&[AUTH_URL, "/connect/authorize?"].concat()),
        "{authorize}"
    );
    assert!(authorize.contains("code_challenge_method=S256"));
    assert!(authorize.contains("scope=openid+profile+fundraise+offline_access+email"));

    let callback = mint(&authorize, "allow").await;
    assert!(
        callback.starts_with(&[COMPANION_URL, "/?"].concat()),
        "{callback}"
    );
    let session = client
        .handle_callback(Some(&callback))
        .await
        .expect("exchanged")
        .expect("a session");
    let token = session.access_token.clone().expect("an access token");
    assert!(!token.is_empty());
    let now = js_sys::Date::now() as i64;
    let expires = session.expires_at.millis;
    assert!(
        expires > now + 3_000_000 && expires < now + 3_700_000,
        "expiresAt {expires}"
    );
    assert_eq!(session.profile.name.as_deref(), Some("Demo Fundraiser"));
    assert_eq!(session.profile.email.as_deref(), Some("demo@example.org"));
    assert!(!session.profile.sub.is_empty());
    assert_eq!(client.session(), Some(session.clone()));
    // The token never shows in debug output.
    assert!(!format!("{session:?}").contains(&token));

    // The same callback again: its transaction is gone, no second exchange.
    let replay = client.handle_callback(Some(&callback)).await.unwrap_err();
    assert_eq!(replay.code(), code::STATE_MISMATCH);

    // Resource calls now carry the bearer token: the owner sees the real name and message.
    let d = client.donation("demo-ref-1").await.expect("donation");
    assert_eq!(d.donor_real_name.as_deref(), Some("Alex Smith"));
    assert_eq!(
        d.message.as_deref(),
        Some("Good luck on race day, we are all cheering for you!")
    );
    assert_eq!(client.access_token().await.unwrap(), Some(token));

    client.sign_out().await.expect("signed out");
    assert_eq!(client.session(), None);
    let d = client.donation("demo-ref-1").await.expect("donation");
    assert_eq!(d.donor_real_name, None);
}

#[wasm_bindgen_test]
async fn concurrent_access_token_calls_share_one_refresh() {
    let client = signing_client();
    let authorize = client.prepare_redirect(&SignInOptions::default()).unwrap();
    let callback = mint(&authorize, "allow").await;
    let first = client
        .handle_callback(Some(&callback))
        .await
        .unwrap()
        .unwrap()
        .access_token;

    // A second client in the same page restores the session from the companion's cookie:
    // three concurrent calls, one refresh, one new token for all.
    let other = signing_client();
    let tokens = futures_util::future::join_all((0..3).map(|_| other.access_token())).await;
    let tokens: Vec<String> = tokens
        .into_iter()
        .map(|t| t.expect("token").expect("a token"))
        .collect();
    assert!(tokens.iter().all(|t| t == &tokens[0]), "{tokens:?}");
    assert_ne!(
        Some(&tokens[0]),
        first.as_ref(),
        "a refresh gives a new token"
    );
    assert_eq!(
        other.session().and_then(|s| s.access_token),
        Some(tokens[0].clone())
    );
    other.sign_out().await.unwrap();
}

#[wasm_bindgen_test]
async fn denied_consent_is_access_denied_and_non_callbacks_are_none() {
    let client = signing_client();
    let authorize = client.prepare_redirect(&SignInOptions::default()).unwrap();
    let callback = mint(&authorize, "deny").await;
    assert!(callback.contains("error=access_denied"), "{callback}");
    let denied = client.handle_callback(Some(&callback)).await.unwrap_err();
    assert_eq!(denied.code(), code::ACCESS_DENIED);
    assert!(matches!(denied, Error::OAuth { .. }));

    let plain = [COMPANION_URL, "/?page=2"].concat();
    assert_eq!(client.handle_callback(Some(&plain)).await.unwrap(), None);
    // A callback with a state this browser never issued.
    let forged = [COMPANION_URL, "/?code=abc&state=forged-state-value"].concat();
    assert_eq!(
        client
            .handle_callback(Some(&forged))
            .await
            .unwrap_err()
            .code(),
        code::STATE_MISMATCH
    );
}

/// A synthetic `message` event on this window, as if posted from `origin`.
fn post_message(data: &JsValue, origin: &str) {
    let window = web_sys::window().unwrap();
    let ctor = Reflect::get(&window, &"MessageEvent".into()).unwrap();
    let init = js_sys::Object::new();
    Reflect::set(&init, &"data".into(), data).unwrap();
    Reflect::set(&init, &"origin".into(), &origin.into()).unwrap();
    let event = Reflect::construct(
        ctor.unchecked_ref::<js_sys::Function>(),
        &Array::of2(&"message".into(), &init),
    )
    .unwrap();
    window.dispatch_event(event.unchecked_ref()).unwrap();
}

fn callback_message(url: &str) -> JsValue {
    let message = js_sys::Object::new();
    Reflect::set(
        &message,
        &"type".into(),
        &"fundraising-client:callback".into(),
    )
    .unwrap();
    Reflect::set(&message, &"url".into(), &url.into()).unwrap();
    message.into()
}

type Outcome = Rc<RefCell<Option<Result<Session, Error>>>>;

/// True in WebKit (Safari's engine), which opens no window for a script without a user gesture:
/// the test runner's page has none. Chromium's and Firefox's drivers turn their pop-up
/// blockers off; WebKit's does not (docs/browsers.md).
fn pop_ups_need_a_gesture() -> bool {
    let navigator = field(&web_sys::window().unwrap(), "navigator");
    let agent = field(&navigator, "userAgent").as_string().unwrap();
    agent.contains("AppleWebKit") && !agent.contains("Chrome")
}

/// The sign-in's pop-up; or, where the engine refuses a pop-up without a user gesture, `None`
/// after checking the package's answer there is `popup_blocked` (the pop-up from a real click
/// in WebKit is tested end to end, in e2e/webdriver-signin.test.mjs).
fn open_popup(client: &fundraising_client::Client) -> Option<PopupSignIn> {
    match client.open_popup(&SignInOptions::default()) {
        Ok(pending) => {
            assert!(
                !pop_ups_need_a_gesture(),
                "WebKit opened a pop-up without a gesture"
            );
            Some(pending)
        }
        Err(e) => {
            assert!(pop_ups_need_a_gesture(), "the pop-up did not open: {e}");
            assert_eq!(e.code(), code::POPUP_BLOCKED);
            None
        }
    }
}

async fn settled(outcome: &Outcome, ms: f64) -> bool {
    let deadline = js_sys::Date::now() + ms;
    while outcome.borrow().is_none() && js_sys::Date::now() < deadline {
        pause(20).await;
    }
    outcome.borrow().is_some()
}

#[wasm_bindgen_test]
async fn popup_accepts_only_its_own_origin_and_its_own_state() {
    let client = signing_client();
    let Some(pending) = open_popup(&client) else {
        return;
    };
    let pending = Rc::new(pending);
    assert!(!pending.popup().closed().unwrap());
    let callback = mint(pending.authorize_url(), "allow").await;

    let outcome: Outcome = Rc::default();
    {
        let (client, pending, outcome) = (client.clone(), pending.clone(), outcome.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let result = client
                .finish_popup(&pending, &SignInOptions::default())
                .await;
            *outcome.borrow_mut() = Some(result);
        });
    }
    let own_origin = web_sys::window().unwrap().location().origin().unwrap();
    // The spawned task registers its listeners in its first poll, a microtask: one turn of
    // the event loop later they are in place, so the refusals below are real refusals.
    pause(0).await;

    // The right callback from a foreign origin: ignored.
    post_message(&callback_message(&callback), "http://evil.example");
    // From our origin but for a state nobody is waiting for: ignored.
    let unknown = [COMPANION_URL, "/?code=abc&state=not-pending"].concat();
    post_message(&callback_message(&unknown), &own_origin);
    // Not a callback message at all: ignored.
    post_message(&"hello".into(), &own_origin);
    assert!(
        !settled(&outcome, 500.0).await,
        "a refused message settled the sign-in"
    );

    // Our origin, our state: accepted and exchanged.
    post_message(&callback_message(&callback), &own_origin);
    assert!(
        settled(&outcome, 10_000.0).await,
        "the sign-in did not finish"
    );
    let session = outcome.borrow_mut().take().unwrap().expect("session");
    assert_eq!(session.profile.name.as_deref(), Some("Demo Fundraiser"));
    let token = session
        .access_token
        .clone()
        .expect("token-mediating mode hands over the token");
    assert!(!token.is_empty());
    assert_eq!(client.session(), Some(session));
    assert!(
        pending.popup().closed().unwrap(),
        "the pop-up is closed afterwards"
    );
}

#[wasm_bindgen_test]
async fn popup_result_also_arrives_over_the_broadcast_channel() {
    let client = signing_client();
    let Some(pending) = open_popup(&client) else {
        return;
    };
    let pending = Rc::new(pending);
    let callback = mint(pending.authorize_url(), "allow").await;
    let outcome: Outcome = Rc::default();
    {
        let (client, pending, outcome) = (client.clone(), pending.clone(), outcome.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let result = client
                .finish_popup(&pending, &SignInOptions::default())
                .await;
            *outcome.borrow_mut() = Some(result);
        });
    }
    let channel =
        web_sys::BroadcastChannel::new(&["fundraising-client:", pending.state()].concat()).unwrap();
    // The opener starts listening once the spawned task runs: post until it is heard.
    let deadline = js_sys::Date::now() + 10_000.0;
    loop {
        channel.post_message(&callback_message(&callback)).unwrap();
        if settled(&outcome, 200.0).await {
            break;
        }
        assert!(js_sys::Date::now() < deadline, "the sign-in did not finish");
    }
    channel.close();
    let session = outcome.borrow_mut().take().unwrap().expect("session");
    assert_eq!(session.profile.email.as_deref(), Some("demo@example.org"));
}

#[wasm_bindgen_test]
async fn closing_the_popup_ends_with_popup_closed_and_dropping_the_wait_closes_it() {
    let client = signing_client();
    let Some(pending) = open_popup(&client) else {
        return;
    };
    pending.popup().close().unwrap();
    let started = js_sys::Date::now();
    let error = client
        .finish_popup(&pending, &SignInOptions::default())
        .await
        .expect_err("closed");
    assert_eq!(error.code(), code::POPUP_CLOSED);
    assert!(js_sys::Date::now() - started < 5000.0);

    // Cancelling a sign-in: dropping the future that waits for the pop-up closes it.
    let Some(pending) = open_popup(&client) else {
        return;
    };
    {
        let options = SignInOptions::default();
        let finishing = Box::pin(client.finish_popup(&pending, &options));
        let waited = futures_util::future::select(finishing, Box::pin(pause(300))).await;
        assert!(
            matches!(waited, futures_util::future::Either::Right(_)),
            "the sign-in settled on its own"
        );
    }
    let popup = pending.popup().clone();
    until(5_000.0, "the pop-up stayed open", || {
        let closed = popup.closed().unwrap();
        async move { closed }
    })
    .await;
}

#[wasm_bindgen_test]
async fn sign_in_without_configuration_is_invalid_argument() {
    let client = client_for(BASE_URL);
    let e = client
        .sign_in_with_popup(&SignInOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), code::INVALID_ARGUMENT);
    // Unknown and unavailable scopes are refused before anything opens.
    let options = SignInOptions::default().scopes(["social"]);
    assert_eq!(
        signing_client()
            .prepare_redirect(&options)
            .unwrap_err()
            .code(),
        code::INVALID_ARGUMENT
    );
}

/// Records every session change of a client.
fn recorder(
    client: &fundraising_client::Client,
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

#[wasm_bindgen_test]
async fn session_changes_are_told_and_a_sign_out_reaches_the_other_tab() {
    let here = signing_client();
    let other_tab = signing_client();
    let (changes, _subscription) = recorder(&here);
    let (other_changes, _other_subscription) = recorder(&other_tab);
    let authorize = here.prepare_redirect(&SignInOptions::default()).unwrap();
    let callback = mint(&authorize, "allow").await;
    here.handle_callback(Some(&callback))
        .await
        .expect("signed in");
    {
        let changes = changes.borrow();
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].reason, Reason::SignIn);
        let session = changes[0].session().expect("the session");
        assert_eq!(session.profile.name.as_deref(), Some("Demo Fundraiser"));
    }

    // The other tab picks the sign-in up through the companion's session.
    until(
        10_000.0,
        "the other tab never picked the sign-in up",
        || async { !other_changes.borrow().is_empty() },
    )
    .await;
    assert_eq!(other_changes.borrow()[0].reason, Reason::SignIn);
    assert!(other_tab.session().is_some());

    // A sign-out here signs the other tab out.
    here.sign_out().await.expect("signed out");
    assert_eq!(changes.borrow().last().unwrap().reason, Reason::SignOut);
    assert_eq!(changes.borrow().last().unwrap().session(), None);
    until(10_000.0, "the other tab was not signed out", || async {
        other_changes.borrow().last().unwrap().reason == Reason::SignOut
    })
    .await;
    assert_eq!(other_tab.session(), None);
}

#[wasm_bindgen_test]
async fn a_dropped_subscription_hears_nothing_more() {
    let client = signing_client();
    let (changes, subscription) = recorder(&client);
    drop(subscription);
    let authorize = client.prepare_redirect(&SignInOptions::default()).unwrap();
    let callback = mint(&authorize, "allow").await;
    client
        .handle_callback(Some(&callback))
        .await
        .expect("signed in");
    client.sign_out().await.unwrap();
    assert!(changes.borrow().is_empty(), "{:?}", changes.borrow());
}

#[wasm_bindgen_test]
fn abandoned_redirect_sign_ins_are_removed_when_the_package_next_runs() {
    let storage = web_sys::window()
        .unwrap()
        .session_storage()
        .unwrap()
        .unwrap();
    let entry = |state: &str, age_ms: f64| {
        [
            r#"{"state":""#,
            state,
            r#"","nonce":"n","codeVerifier":""#,
            &"v".repeat(43),
            r#"","redirectUri":"http://127.0.0.1/","returnPath":null,"createdAt":"#,
            &(js_sys::Date::now() - age_ms).to_string(),
            "}",
        ]
        .concat()
    };
    let key = |state: &str| ["fundraising-client:signin:", state].concat();
    storage
        .set_item(&key("abandoned"), &entry("abandoned", 11.0 * 60_000.0))
        .unwrap();
    storage.set_item(&key("unreadable"), "{not json").unwrap();
    storage
        .set_item(&key("fresh"), &entry("fresh", 1_000.0))
        .unwrap();
    storage.set_item("someone-else", "kept").unwrap();

    let _client = signing_client();
    assert_eq!(storage.get_item(&key("abandoned")).unwrap(), None);
    assert_eq!(storage.get_item(&key("unreadable")).unwrap(), None);
    assert!(storage.get_item(&key("fresh")).unwrap().is_some());
    assert_eq!(
        storage.get_item("someone-else").unwrap().as_deref(),
        Some("kept")
    );
    storage.remove_item(&key("fresh")).unwrap();
    storage.remove_item("someone-else").unwrap();
}
