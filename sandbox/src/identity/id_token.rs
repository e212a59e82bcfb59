//! The id_token: RS256 with the signing key's `kid`, or, when a fault asks, one a relying
//! party must refuse (the OpenID Connect Basic RP checks): signed by an unknown key, `alg:
//! none`, HS256 keyed with the public key, the wrong `iss` or `aud`, a second audience without
//! `azp` or with another application as `azp`, expired, or another `nonce`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::error::{Result, SandboxError};
use crate::faults::IdTokenFault;
use crate::keys::outsider_key;
use crate::state::Sandbox;

/// The application a wrong `aud` or `azp` names (no configuration may register it: it holds
/// a space).
pub const OTHER_AUDIENCE: &str = "another application";

/// Signs `claims` as the id_token, or the faulty one `fault` names.
pub async fn sign(
    state: &Sandbox,
    mut claims: Value,
    fault: Option<IdTokenFault>,
) -> Result<String> {
    let key = state.signing_key();
    match fault {
        None => return key.sign_jwt(&claims),
        Some(IdTokenFault::WrongIss) => {
            claims["iss"] = json!(format!("{}/another-issuer", state.issuer()))
        }
        Some(IdTokenFault::WrongAud) => claims["aud"] = json!(OTHER_AUDIENCE),
        Some(IdTokenFault::MissingAzp) => {
            claims["aud"] = json!([claims["aud"].clone(), OTHER_AUDIENCE]);
        }
        Some(IdTokenFault::WrongAzp) => {
            claims["aud"] = json!([claims["aud"].clone(), OTHER_AUDIENCE]);
            claims["azp"] = json!(OTHER_AUDIENCE);
        }
        Some(IdTokenFault::Expired) => {
            let now = state.clock().now_secs();
            claims["iat"] = json!(now - 7200);
            claims["exp"] = json!(now - 3600);
        }
        Some(IdTokenFault::WrongNonce) => {
            claims["nonce"] = json!(crate::grants::random_token());
        }
        Some(IdTokenFault::UnknownKey) => {
            let outsider = tokio::task::spawn_blocking(outsider_key)
                .await
                .map_err(|e| SandboxError::Key(e.to_string()))??;
            return outsider.sign_jwt(&claims);
        }
        Some(IdTokenFault::AlgNone) => {
            let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
            let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims)?);
            return Ok(format!("{header}.{payload}."));
        }
        Some(IdTokenFault::Hs256) => {
            let mut header = Header::new(Algorithm::HS256);
            header.kid = Some(key.kid().to_owned());
            let secret = EncodingKey::from_secret(key.public_pem()?.as_bytes());
            return jsonwebtoken::encode(&header, &claims, &secret)
                .map_err(|e| SandboxError::Key(e.to_string()));
        }
    }
    key.sign_jwt(&claims)
}
