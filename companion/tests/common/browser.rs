//! A test browser that goes through the identity server's real authorize, login and consent
//! pages (HTML forms, the login cookie, redirects) and collects the code at the redirect URI.

use super::{APP_ID, HOME};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};
use url::Url;

/// What the page keeps for a sign-in, and the code it got back.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub code: String,
    pub verifier: String,
    pub nonce: String,
}

fn random_text(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::thread_rng().fill_bytes(&mut buf);
    URL_SAFE_NO_PAD.encode(buf)
}

/// The value of attribute `name` in an HTML tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let needle = format!("{name}=\"");
    let start = tag.find(&needle)? + needle.len();
    let end = tag[start..].find('"')? + start;
    Some(
        tag[start..end]
            .replace("&amp;", "&")
            .replace("&quot;", "\"")
            .replace("&#x2F;", "/"),
    )
}

/// The first form of a page: its action and its hidden inputs.
fn form_of(html: &str) -> (String, Vec<(String, String)>) {
    let form_start = html.find("<form").expect("a form on the page");
    let form_tag_end = html[form_start..].find('>').expect("form tag") + form_start;
    let action = attribute(&html[form_start..form_tag_end], "action").expect("form action");
    let mut hidden = Vec::new();
    let mut rest = &html[form_tag_end..];
    while let Some(i) = rest.find("<input") {
        let end = rest[i..].find('>').expect("input tag") + i;
        let tag = &rest[i..end];
        if tag.contains("type=\"hidden\"") {
            if let (Some(n), Some(v)) = (attribute(tag, "name"), attribute(tag, "value")) {
                hidden.push((n, v));
            }
        }
        rest = &rest[end..];
    }
    (action, hidden)
}

/// Signs the demo user in with `scope` and allows the consent; returns the code.
pub async fn sign_in(identity_url: &str, scope: &str) -> SignedIn {
    let verifier = random_text(48);
    let nonce = random_text(16);
    let state = random_text(12);
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let authorize = Url::parse_with_params(
        &format!("{identity_url}/connect/authorize"),
        &[
            ("client_id", APP_ID),
            ("response_type", "code"),
            ("scope", scope),
            ("redirect_uri", HOME),
            ("state", &state),
            ("nonce", &nonce),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ],
    )
    .expect("authorize url");
    let browser = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let mut response = browser
        .get(authorize.clone())
        .send()
        .await
        .expect("authorize");
    let mut current = authorize;
    for _ in 0..10 {
        if response.status().is_redirection() {
            let location = response.headers()["location"]
                .to_str()
                .expect("location")
                .to_owned();
            let next = current.join(&location).expect("location url");
            if next.as_str().starts_with(HOME) {
                let query: std::collections::HashMap<_, _> =
                    next.query_pairs().into_owned().collect();
                assert_eq!(query.get("state"), Some(&state), "state echoed");
                let code = query
                    .get("code")
                    .unwrap_or_else(|| panic!("no code in {next}"))
                    .clone();
                return SignedIn {
                    code,
                    verifier,
                    nonce,
                };
            }
            response = browser.get(next.clone()).send().await.expect("follow");
            current = next;
            continue;
        }
        assert!(
            response.status().is_success(),
            "identity server answered {}",
            response.status()
        );
        let html = response.text().await.expect("page");
        let (action, mut fields) = form_of(&html);
        if html.contains("name=\"password\"") {
            fields.push(("username".into(), "demo@example.org".into()));
            fields.push(("password".into(), "demo-password".into()));
        } else if html.contains("name=\"allow\"") {
            fields.push(("allow".into(), "1".into()));
        } else {
            panic!("unexpected page: {html}");
        }
        let target = current.join(&action).expect("action url");
        response = browser
            .post(target.clone())
            .form(&fields)
            .send()
            .await
            .expect("post form");
        current = target;
    }
    panic!("the sign-in did not reach the redirect URI");
}

/// The scope the demo page asks for.
pub const FULL_SCOPE: &str = "openid profile email offline_access";
