//! id_token checks, with tokens minted by the tests' own provider.

use crate::common::provider::*;
use crate::common::*;
use serde_json::{json, Value};

async fn exchange(companion: &Companion, nonce: &str) -> Reply {
    let body = json!({
        "code": "provider-code",
        "codeVerifier": "v".repeat(43),
        "nonce": nonce,
        "redirectUri": HOME,
    });
    post(companion, "/auth/token", Some(&body), None).await
}

#[tokio::test]
async fn a_valid_token_of_any_compliant_provider_is_accepted() {
    let provider = start_provider().await;
    let companion = start_companion(settings(&provider.url)).await;
    provider.answer_with(mint(&provider_key(), "k1", &provider.claims("n-1")));
    let reply = exchange(&companion, "n-1").await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.json()["profile"],
        json!({"sub": "user-7", "name": "Test Person", "email": "test@example.org"})
    );
    assert_eq!(reply.json()["accessToken"], "provider-access-token");
    assert!(reply.set_cookie().is_some());
    // An audience list containing the app id, and a token expired within the leeway, pass.
    let mut claims = provider.claims("n-2");
    claims["aud"] = json!(["other-app", APP_ID]);
    claims["azp"] = json!(APP_ID);
    claims["exp"] = json!(now() - 20);
    provider.answer_with(mint(&provider_key(), "k1", &claims));
    let reply = exchange(&companion, "n-2").await;
    assert_eq!(reply.status, 200, "{}", reply.body);
}

#[tokio::test]
async fn bad_id_tokens_are_refused() {
    let provider = start_provider().await;
    let companion = start_companion(settings(&provider.url)).await;
    let good = provider.claims("n-1");
    let with = |change: &dyn Fn(&mut Value)| {
        let mut c = good.clone();
        change(&mut c);
        c
    };
    let cases: Vec<(&str, String)> = vec![
        ("wrong signature", mint(&other_key(), "k1", &good)),
        (
            "wrong iss",
            mint(
                &provider_key(),
                "k1",
                &with(&|c| c["iss"] = json!("http://impostor.example")),
            ),
        ),
        (
            "wrong aud",
            mint(
                &provider_key(),
                "k1",
                &with(&|c| c["aud"] = json!("another-app")),
            ),
        ),
        (
            "aud list without us",
            mint(
                &provider_key(),
                "k1",
                &with(&|c| c["aud"] = json!(["a", "b"])),
            ),
        ),
        (
            "aud list with us but without azp",
            mint(
                &provider_key(),
                "k1",
                &with(&|c| c["aud"] = json!([APP_ID, "another-app"])),
            ),
        ),
        (
            "wrong azp",
            mint(
                &provider_key(),
                "k1",
                &with(&|c| c["azp"] = json!("another-app")),
            ),
        ),
        (
            "expired",
            mint(
                &provider_key(),
                "k1",
                &with(&|c| c["exp"] = json!(now() - 120)),
            ),
        ),
        (
            "no exp",
            mint(
                &provider_key(),
                "k1",
                &with(&|c| drop(c.as_object_mut().unwrap().remove("exp"))),
            ),
        ),
        (
            "alg none",
            format!(
                "{}.{}.",
                base64_url(&json!({"alg": "none", "kid": "k1"})),
                base64_url(&good)
            ),
        ),
        (
            "alg HS256",
            mint_with_header(
                &provider_key(),
                &json!({"alg": "HS256", "kid": "k1"}),
                &good,
            ),
        ),
        ("garbage", "not-a-jwt".into()),
        ("unknown kid", mint(&provider_key(), "k-unknown", &good)),
    ];
    for (what, token) in cases {
        provider.answer_with(token);
        let reply = exchange(&companion, "n-1").await;
        assert_eq!(
            (reply.status, reply.error().as_str()),
            (502, "id_token_invalid"),
            "{what}: {}",
            reply.body
        );
        assert!(reply.set_cookie().is_none(), "{what}: no session");
    }
    // Another nonce is its own error.
    provider.answer_with(mint(&provider_key(), "k1", &provider.claims("n-other")));
    let reply = exchange(&companion, "n-1").await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (400, "nonce_mismatch")
    );
    let missing_nonce = with(&|c| drop(c.as_object_mut().unwrap().remove("nonce")));
    provider.answer_with(mint(&provider_key(), "k1", &missing_nonce));
    assert_eq!(exchange(&companion, "n-1").await.error(), "nonce_mismatch");
}

fn base64_url(value: &Value) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
}

#[tokio::test]
async fn the_jwks_is_cached_and_refetched_once_for_an_unknown_kid() {
    let provider = start_provider().await;
    let companion = start_companion(settings(&provider.url)).await;
    provider.answer_with(mint(&provider_key(), "k1", &provider.claims("n")));
    assert_eq!(exchange(&companion, "n").await.status, 200);
    assert_eq!(exchange(&companion, "n").await.status, 200);
    assert_eq!(provider.jwks_fetches(), 1, "cached");

    // The provider rotates to a new key: one refetch, then cached again.
    provider.publish(vec![jwk(&provider_key(), "k1"), jwk(&other_key(), "k2")]);
    provider.answer_with(mint(&other_key(), "k2", &provider.claims("n")));
    assert_eq!(exchange(&companion, "n").await.status, 200);
    assert_eq!(exchange(&companion, "n").await.status, 200);
    assert_eq!(provider.jwks_fetches(), 2);

    // A kid nobody publishes: exactly one refetch per attempt, then refused.
    provider.answer_with(mint(&other_key(), "k9", &provider.claims("n")));
    assert_eq!(exchange(&companion, "n").await.error(), "id_token_invalid");
    assert_eq!(provider.jwks_fetches(), 3);

    // A known kid with a bad signature does not trigger a refetch.
    provider.answer_with(mint(&provider_key(), "k2", &provider.claims("n")));
    assert_eq!(exchange(&companion, "n").await.error(), "id_token_invalid");
    assert_eq!(provider.jwks_fetches(), 3);
}

#[tokio::test]
async fn a_wrong_secret_is_not_blamed_on_the_browser() {
    let provider = start_provider().await;
    let mut s = settings(&provider.url);
    s.client_secret = fundraising_companion::Secret::new("wrong-secret");
    let companion = start_companion(s).await;
    provider.answer_with(mint(&provider_key(), "k1", &provider.claims("n")));
    let reply = exchange(&companion, "n").await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (502, "upstream_unavailable")
    );
    assert!(!reply.body.contains("wrong-secret"));
}

#[tokio::test]
async fn a_refresh_whose_id_token_names_another_user_is_refused() {
    let provider = start_provider().await;
    let companion = start_companion(settings(&provider.url)).await;
    provider.answer_with(mint(&provider_key(), "k1", &provider.claims("n")));
    let signed = exchange(&companion, "n").await;
    assert_eq!(signed.status, 200, "{}", signed.body);
    let cookie = signed.cookie();

    // On refresh the provider's id_token has no nonce (none is required) and the same sub.
    let mut same = provider.claims("n");
    same.as_object_mut().unwrap().remove("nonce");
    same["name"] = json!("Renamed Person");
    provider.answer_with(mint(&provider_key(), "k1", &same));
    let refreshed = post(&companion, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    assert_eq!(refreshed.json()["profile"]["name"], "Renamed Person");

    let mut other = provider.claims("n");
    other["sub"] = json!("someone-else");
    provider.answer_with(mint(&provider_key(), "k1", &other));
    let refused = post(&companion, "/auth/refresh", None, Some(&refreshed.cookie())).await;
    assert_eq!(
        (refused.status, refused.error().as_str()),
        (502, "id_token_invalid")
    );
}
