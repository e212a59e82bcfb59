//! `POST /auth/logout` ends the session at the identity server too (RFC 7009 revocation).

use crate::common::browser::{sign_in, FULL_SCOPE};
use crate::common::provider::*;
use crate::common::*;
use serde_json::json;

#[tokio::test]
async fn logout_revokes_the_refresh_token_with_client_authentication() {
    let provider = start_provider().await;
    let companion = start_companion(settings(&provider.url)).await;
    provider.answer_with(mint(&provider_key(), "k1", &provider.claims("n")));
    let body = json!({
        "code": "provider-code",
        "codeVerifier": "v".repeat(43),
        "nonce": "n",
        "redirectUri": HOME,
    });
    let signed = post(&companion, "/auth/token", Some(&body), None).await;
    assert_eq!(signed.status, 200, "{}", signed.body);
    assert!(provider.revocations().is_empty());

    let reply = post(&companion, "/auth/logout", None, Some(&signed.cookie())).await;
    assert_eq!(reply.status, 204);
    let revocations = provider.revocations();
    assert_eq!(revocations.len(), 1, "one revocation per logout");
    let (authorization, form) = &revocations[0];
    // RFC 6749 §2.3.1 Basic of the form-urlencoded id and secret (demo-app:demo-secret).
    assert_eq!(authorization, "Basic ZGVtby1hcHA6ZGVtby1zZWNyZXQ=");
    let fields: Vec<(String, String)> = url::form_urlencoded::parse(form.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(
        fields,
        vec![
            ("token".to_owned(), "provider-refresh-token-0".to_owned()),
            ("token_type_hint".to_owned(), "refresh_token".to_owned()),
        ]
    );
    // Without a session there is nothing to revoke.
    assert_eq!(
        post(&companion, "/auth/logout", None, None).await.status,
        204
    );
    assert_eq!(provider.revocations().len(), 1);
}

#[tokio::test]
async fn a_cookie_copied_before_logout_is_session_expired_after_it() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let copy = reply.cookie();

    let logout = post(&companion, "/auth/logout", None, Some(&copy)).await;
    assert_eq!(logout.status, 204);

    // The copy still opens (the cookie is stateless), but its refresh token was revoked.
    let after = post(&companion, "/auth/refresh", None, Some(&copy)).await;
    assert_eq!(after.status, 401, "{}", after.body);
    assert_eq!(after.error(), "session_expired");
    let cleared = after.set_cookie().expect("the cookie is cleared");
    assert!(cleared.starts_with("fundraising_session=;"), "{cleared}");
}

/// One instance, no Redis: after sign-out neither the current cookie nor one it replaced a
/// moment before (within the grace window) opens a session, and neither reaches upstream.
#[tokio::test]
async fn sign_out_ends_the_grace_window_and_the_current_cookie() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(&companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let old = reply.cookie();
    let rotated = post(&companion, "/auth/refresh", None, Some(&old)).await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let current = rotated.cookie();

    assert_eq!(
        post(&companion, "/auth/logout", None, Some(&current))
            .await
            .status,
        204
    );
    let calls = identity.token_calls();
    for cookie in [&old, &current] {
        let after = post(&companion, "/auth/refresh", None, Some(cookie)).await;
        assert_eq!(after.status, 401, "{}", after.body);
        assert_eq!(after.error(), "session_expired");
        let session = get(&companion, "/auth/session", Some(cookie)).await;
        assert_eq!(session.json()["active"], false, "{}", session.body);
        assert!(session.set_cookie().is_some(), "the cookie is cleared");
    }
    assert_eq!(identity.token_calls(), calls, "nothing went upstream");
}
