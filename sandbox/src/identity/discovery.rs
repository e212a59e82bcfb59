//! The discovery document and the JWKS.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use crate::state::Sandbox;

/// `GET /.well-known/openid-configuration`.
pub async fn configuration(State(state): State<Sandbox>) -> Json<Value> {
    let issuer = state.issuer();
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/connect/authorize"),
        "token_endpoint": format!("{issuer}/connect/token"),
        "revocation_endpoint": format!("{issuer}{}", super::REVOCATION_PATH),
        "jwks_uri": format!("{issuer}{}", super::JWKS_PATH),
        "scopes_supported": fundraising_core::authorize::AVAILABLE_SCOPES,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": [fundraising_core::pkce::METHOD],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "subject_types_supported": ["public"],
        "claims_supported": ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "name", "email", "email_verified"],
    }))
}

/// `GET /.well-known/jwks.json`.
pub async fn jwks(State(state): State<Sandbox>) -> Json<Value> {
    Json(state.jwks())
}
