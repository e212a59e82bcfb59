//! Server-side rendering: with the `ssr` feature, on the host, the components build no client,
//! touch no browser API (any call of one panics off wasm32) and render the pending branch; a
//! guarded route waits, and a resource shows its `<Suspense>` fallback.
//!
//!   cargo test --features ssr --target x86_64-unknown-linux-gnu --test ssr

use fundraising_leptos::*;
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::location::RequestUrl;
use leptos_router::path;

fn options() -> ClientOptions {
    ClientOptions::new("demo-app", "http://127.0.0.1:8081")
        .auth_url("http://127.0.0.1:8082")
        .redirect_uri("http://127.0.0.1:8080/")
        .companion_url("http://127.0.0.1:8080")
}

#[component]
fn Raised() -> impl IntoView {
    let campaign = use_campaign(|| "demo-campaign".to_owned());
    view! {
        <Suspense fallback=|| view! { <p>"Loading the campaign"</p> }>
            {move || Suspend::new(async move {
                campaign.await.map(|c| c.short_name).unwrap_or_else(|e| e.to_string())
            })}
        </Suspense>
    }
}

#[component]
fn App() -> impl IntoView {
    view! {
        <FundraisingProvider options=options()>
            <SessionPending><p>"Checking your session"</p></SessionPending>
            <SignedOut><p>"Signed out"</p><SignInButton>"Sign in"</SignInButton></SignedOut>
            <SignedIn><p>"Signed in"</p><SignOutButton>"Sign out"</SignOutButton></SignedIn>
            <Raised />
            <Router>
                <Routes fallback=|| "no route">
                    <Route path=path!("/account") view=|| view! {
                        <RequireSignIn fallback=|| view! { <p>"Taking you to sign in"</p> }>
                            <p>"Your account"</p>
                        </RequireSignIn>
                    } />
                </Routes>
            </Router>
        </FundraisingProvider>
    }
}

fn render(path: &str) -> String {
    let owner = Owner::new();
    owner.set();
    provide_context(RequestUrl::new(path));
    let html = App().to_html();
    owner.unset();
    html
}

#[test]
fn the_server_renders_the_pending_branch_and_builds_no_client() {
    let html = render("/account");
    assert!(html.contains("Checking your session"), "{html}");
    assert!(!html.contains("Signed out"), "{html}");
    assert!(!html.contains("Signed in"), "{html}");
    assert!(!html.contains("Sign in"), "{html}");
    // The guarded route waits for the session; the resource for the browser.
    assert!(html.contains("Taking you to sign in"), "{html}");
    assert!(!html.contains("Your account"), "{html}");
    assert!(html.contains("Loading the campaign"), "{html}");
}

#[component]
fn Hooks() -> impl IntoView {
    assert!(ON_SERVER);
    assert_eq!(use_client(), None);
    assert_eq!(use_session().get_untracked(), SessionState::Unknown);
    assert_eq!(use_profile().get_untracked(), None);
    view! { <p>"The hooks answered"</p> }
}

#[test]
fn the_hooks_answer_on_the_server_without_a_client() {
    let owner = Owner::new();
    owner.set();
    let html =
        view! { <FundraisingProvider options=options()><Hooks /></FundraisingProvider> }.to_html();
    owner.unset();
    assert!(html.contains("The hooks answered"), "{html}");
}
