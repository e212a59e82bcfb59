//! Sign-in: the redirect flow through the real login and consent pages to the companion's
//! exchange, and the pop-up message rules.
#![cfg(target_arch = "wasm32")]

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use fundraising_client::{Error, Session, SignInOptions};
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn redirect_flow_signs_in_through_the_companion_and_a_replay_is_refused() {
    let client = signing_client();
    assert!(client.session().unwrap().is_null());
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
    let session = wait(client.handle_callback(Some(callback.clone())))
        .await
        .expect("session");
    assert!(!text(&session, "accessToken").is_empty());
    let expires = date(&session, "expiresAt");
    let now = js_sys::Date::now();
    assert!(
        expires > now + 3_000_000.0 && expires < now + 3_700_000.0,
        "expiresAt {expires}"
    );
    assert_eq!(text(&session, "profile.name"), "Demo Fundraiser");
    assert_eq!(text(&session, "profile.email"), "demo@example.org");
    assert!(!text(&session, "profile.sub").is_empty());
    assert_eq!(
        text(&client.session().unwrap(), "accessToken"),
        text(&session, "accessToken")
    );

    // The same callback again: its transaction is gone, no second exchange.
    let replay = wait(client.handle_callback(Some(callback))).await;
    assert_eq!(code(replay), "state_mismatch");

    // Resource calls now carry the bearer token: the owner sees the real name and message.
    let d = wait(client.get_donation_by_reference("demo-ref-1".into(), None))
        .await
        .expect("donation");
    assert_eq!(text(&d, "donorRealName"), "Alex Smith");
    assert_eq!(
        text(&d, "message"),
        "Good luck on race day, we are all cheering for you!"
    );
    let token = wait(client.get_access_token(None)).await.unwrap();
    assert_eq!(token.as_string(), Some(text(&session, "accessToken")));

    wait(client.sign_out()).await.expect("signed out");
    assert!(client.session().unwrap().is_null());
    let d = wait(client.get_donation_by_reference("demo-ref-1".into(), None))
        .await
        .expect("donation");
    assert_null(&d, "donorRealName");
}

#[wasm_bindgen_test]
async fn concurrent_access_token_calls_share_one_refresh() {
    let client = signing_client();
    let authorize = client.prepare_redirect(&SignInOptions::default()).unwrap();
    let callback = mint(&authorize, "allow").await;
    wait(client.handle_callback(Some(callback)))
        .await
        .expect("session");
    let first = text(&client.session().unwrap(), "accessToken");

    // A second client in the same page restores the session from the companion's cookie:
    // three concurrent calls, one refresh, one new token for all.
    let other = signing_client();
    let calls: Vec<_> = (0..3).map(|_| other.get_access_token(None)).collect();
    let mut tokens = Vec::new();
    for call in calls {
        tokens.push(
            wait(call)
                .await
                .expect("token")
                .as_string()
                .expect("a token"),
        );
    }
    assert!(tokens.iter().all(|t| t == &tokens[0]), "{tokens:?}");
    assert_ne!(tokens[0], first, "a refresh gives a new token");
    assert_eq!(text(&other.session().unwrap(), "accessToken"), tokens[0]);
    wait(other.sign_out()).await.unwrap();
}

#[wasm_bindgen_test]
async fn denied_consent_is_access_denied_and_non_callbacks_resolve_null() {
    let client = signing_client();
    let authorize = client.prepare_redirect(&SignInOptions::default()).unwrap();
    let callback = mint(&authorize, "deny").await;
    assert!(callback.contains("error=access_denied"), "{callback}");
    assert_eq!(
        code(wait(client.handle_callback(Some(callback))).await),
        "access_denied"
    );

    let plain = [COMPANION_URL, "/?page=2"].concat();
    assert!(wait(client.handle_callback(Some(plain)))
        .await
        .unwrap()
        .is_null());
    // A callback with a state this browser never issued.
    let forged = [COMPANION_URL, "/?code=abc&state=forged-state-value"].concat();
    assert_eq!(
        code(wait(client.handle_callback(Some(forged))).await),
        "state_mismatch"
    );
}

/// A synthetic `message` event on this window, as if posted from `origin`.
fn post_message(data: &JsValue, origin: &str) {
    let window = web_sys::window().unwrap();
    let ctor = Reflect::get(&window, &"MessageEvent".into()).unwrap();
    let init = object(&[("data", data.clone()), ("origin", origin.into())]);
    let event = Reflect::construct(
        ctor.unchecked_ref::<js_sys::Function>(),
        &Array::of2(&"message".into(), &init),
    )
    .unwrap();
    window.dispatch_event(event.unchecked_ref()).unwrap();
}

fn callback_message(url: &str) -> JsValue {
    object(&[
        ("type", "fundraising-client:callback".into()),
        ("url", url.into()),
    ])
}

type Outcome = Rc<RefCell<Option<Result<Session, Error>>>>;

async fn settled(outcome: &Outcome, ms: f64) -> bool {
    let deadline = js_sys::Date::now() + ms;
    while outcome.borrow().is_none() && js_sys::Date::now() < deadline {
        pause(20).await;
    }
    outcome.borrow().is_some()
}

#[wasm_bindgen_test]
async fn popup_accepts_only_its_own_origin_and_its_own_state() {
    let client = Rc::new(signing_client());
    let options = SignInOptions::default();
    let pending = Rc::new(client.open_popup(&options).expect("pop-up opened"));
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
        .expect("token-mediating mode hands over the token");
    assert!(!token.is_empty());
    assert_eq!(text(&client.session().unwrap(), "accessToken"), token);
    assert!(
        pending.popup().closed().unwrap(),
        "the pop-up is closed afterwards"
    );
}

#[wasm_bindgen_test]
async fn popup_result_also_arrives_over_the_broadcast_channel() {
    let client = Rc::new(signing_client());
    let pending = Rc::new(
        client
            .open_popup(&SignInOptions::default())
            .expect("pop-up opened"),
    );
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
async fn closing_the_popup_rejects_with_popup_closed() {
    let client = signing_client();
    let pending = client
        .open_popup(&SignInOptions::default())
        .expect("pop-up opened");
    pending.popup().close().unwrap();
    let started = js_sys::Date::now();
    let error = client
        .finish_popup(&pending, &SignInOptions::default())
        .await
        .expect_err("closed");
    assert_eq!(error.code(), "popup_closed");
    assert!(js_sys::Date::now() - started < 5000.0);
    // And through the JS surface: a FundraisingError with that code.
    let js: JsValue = error.into();
    assert_eq!(error_parts(&js).0, "popup_closed");
}

#[wasm_bindgen_test]
async fn sign_in_without_configuration_is_invalid_argument() {
    let client = client_for(BASE_URL);
    assert_eq!(
        code(wait(client.sign_in_with_popup(None)).await),
        "invalid_argument"
    );
    // Unknown and unavailable scopes are refused before anything opens.
    let client = signing_client();
    let options = SignInOptions {
        scopes: Some(vec!["social".into()]),
        ..Default::default()
    };
    assert_eq!(
        client.prepare_redirect(&options).unwrap_err().code(),
        "invalid_argument"
    );
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
