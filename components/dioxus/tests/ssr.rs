//! Server rendering: with the `server` feature, on the host, the components build no client,
//! touch no browser API (any call of one panics off wasm32) and render the pending branch; a
//! guarded route waits, and a resource stays pending.
//!
//!   cargo test --features server --target x86_64-unknown-linux-gnu --test ssr

use dioxus::prelude::*;
use fundraising_dioxus::*;

fn options() -> ClientOptions {
    ClientOptions::new("demo-app", "http://127.0.0.1:8081")
        .auth_url("http://127.0.0.1:8082")
        .redirect_uri("http://127.0.0.1:8080/")
        .companion_url("http://127.0.0.1:8080")
}

#[component]
fn Raised() -> Element {
    let campaign = use_campaign(|| "demo-campaign".to_owned());
    let shown = match &*campaign.read() {
        Some(Ok(c)) => rsx! { p { "{c.short_name}" } },
        Some(Err(e)) => rsx! { p { "{e}" } },
        None => rsx! { p { "Loading the campaign" } },
    };
    shown
}

#[component]
fn Hooks() -> Element {
    assert!(ON_SERVER);
    assert_eq!(use_client(), None);
    assert_eq!(*use_session().peek(), SessionState::Unknown);
    assert_eq!(*use_profile().peek(), None);
    rsx! {}
}

fn app() -> Element {
    rsx! {
        FundraisingProvider { options: options(),
            SessionPending { p { "Checking your session" } }
            SignedOut { p { "Signed out" } SignInButton { "Sign in" } }
            SignedIn { p { "Signed in" } SignOutButton { "Sign out" } }
            Raised {}
            Hooks {}
            RequireSignIn { fallback: rsx! { p { "Taking you to sign in" } }, p { "Your account" } }
        }
    }
}

#[test]
fn the_server_renders_the_pending_branch_and_builds_no_client() {
    let mut dom = VirtualDom::new(app);
    dom.rebuild_in_place();
    let html = dioxus_ssr::render(&dom);
    assert!(html.contains("Checking your session"), "{html}");
    assert!(!html.contains("Signed out"), "{html}");
    assert!(!html.contains("Signed in"), "{html}");
    assert!(!html.contains("Sign in"), "{html}");
    assert!(html.contains("Taking you to sign in"), "{html}");
    assert!(!html.contains("Your account"), "{html}");
    assert!(html.contains("Loading the campaign"), "{html}");
}
