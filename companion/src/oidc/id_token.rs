//! id_token validation: RS256 signature, `iss`, `aud` (and `azp`), `exp`, `nonce`.

use crate::error::Error;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rsa::{Pkcs1v15Sign, RsaPublicKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Clock skew tolerated on `exp`, in seconds.
pub const LEEWAY_SECONDS: i64 = 60;

/// Who signed in, as the id_token says; the `profile` member of the companion's answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// Subject: the user's stable id at the identity server.
    pub sub: String,
    /// Display name, when the `profile` scope gave it.
    pub name: Option<String>,
    /// E-mail address, when the `email` scope gave it.
    pub email: Option<String>,
}

/// The JOSE header members the companion reads.
#[derive(Debug, Clone, Deserialize)]
pub struct JwtHeader {
    /// Signature algorithm; only `RS256` is accepted.
    pub alg: String,
    /// Key id.
    #[serde(default)]
    pub kid: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

/// The claims of a validated id_token.
#[derive(Debug, Clone, Deserialize)]
pub struct IdTokenClaims {
    /// Issuer.
    pub iss: String,
    /// Subject.
    pub sub: String,
    aud: Audience,
    /// Expiry (seconds since the epoch).
    pub exp: f64,
    /// The nonce of the authorisation request.
    #[serde(default)]
    pub nonce: Option<String>,
    /// Authorised party (required to be the app id when present).
    #[serde(default)]
    pub azp: Option<String>,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// E-mail address.
    #[serde(default)]
    pub email: Option<String>,
}

impl IdTokenClaims {
    /// The profile part of the claims.
    pub fn profile(&self) -> Profile {
        Profile {
            sub: self.sub.clone(),
            name: self.name.clone(),
            email: self.email.clone(),
        }
    }
}

/// What a valid id_token must say.
#[derive(Debug, Clone)]
pub struct Expectations<'a> {
    /// The issuer from discovery.
    pub issuer: &'a str,
    /// The app id.
    pub audience: &'a str,
    /// The nonce sent with the authorisation request; `None` on refresh (OIDC §12.2).
    pub nonce: Option<&'a str>,
    /// Now, in seconds since the epoch.
    pub now: i64,
}

fn invalid(check: &'static str) -> Error {
    tracing::warn!(check, "id_token refused");
    Error::IdTokenInvalid(check)
}

/// Splits a compact JWS and decodes its header (to pick the key by `kid`).
pub fn decode_header(token: &str) -> Result<JwtHeader, Error> {
    let header = token.split('.').next().ok_or_else(|| invalid("format"))?;
    let bytes = URL_SAFE_NO_PAD
        .decode(header)
        .map_err(|_| invalid("format"))?;
    let header: JwtHeader = serde_json::from_slice(&bytes).map_err(|_| invalid("format"))?;
    if header.alg != "RS256" {
        return Err(invalid("alg"));
    }
    Ok(header)
}

/// Checks an id_token against `key` and `expect`, in this order: format and algorithm,
/// signature, `iss`, `aud`/`azp`, `exp` (with [`LEEWAY_SECONDS`]), then `nonce`. Every failure
/// but the nonce is `IdTokenInvalid(<check>)` and is logged with the check's name; a wrong
/// nonce is `NonceMismatch`.
pub fn validate_id_token(
    token: &str,
    key: &RsaPublicKey,
    expect: &Expectations<'_>,
) -> Result<IdTokenClaims, Error> {
    decode_header(token)?;
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid("format"));
    };
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| invalid("format"))?;
    let signing_input = &token[..header.len() + 1 + payload.len()];
    let digest = Sha256::digest(signing_input.as_bytes());
    key.verify(Pkcs1v15Sign::new::<Sha256>(), &digest, &signature)
        .map_err(|_| invalid("signature"))?;
    let payload = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| invalid("format"))?;
    let claims: IdTokenClaims = serde_json::from_slice(&payload).map_err(|_| invalid("claims"))?;
    if claims.iss != expect.issuer {
        return Err(invalid("iss"));
    }
    let audience_ok = match &claims.aud {
        Audience::One(aud) => aud == expect.audience,
        Audience::Many(auds) => auds.iter().any(|a| a == expect.audience),
    };
    if !audience_ok {
        return Err(invalid("aud"));
    }
    if claims
        .azp
        .as_deref()
        .is_some_and(|azp| azp != expect.audience)
    {
        return Err(invalid("azp"));
    }
    if !claims.exp.is_finite() || (claims.exp as i64) + LEEWAY_SECONDS < expect.now {
        return Err(invalid("exp"));
    }
    if let Some(nonce) = expect.nonce {
        if claims.nonce.as_deref() != Some(nonce) {
            tracing::warn!(check = "nonce", "id_token refused");
            return Err(Error::NonceMismatch);
        }
    }
    Ok(claims)
}
