//! id_token validation with `jsonwebtoken`: RS256 signature, `iss`, `aud` (and `azp`), `exp`
//! with leeway, `sub` on refresh, then `nonce`.

use crate::error::Error;
use fundraising_core::companion::Profile;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Header, Validation};
use serde::Deserialize;

/// Clock skew tolerated on `exp`, in seconds.
pub const LEEWAY_SECONDS: u64 = 60;

/// The claims of a validated id_token that the companion reads (`iss`, `aud` and `exp` are
/// checked by `jsonwebtoken` itself).
#[derive(Debug, Clone, Deserialize)]
pub struct IdTokenClaims {
    /// Subject.
    pub sub: String,
    /// The nonce of the authorisation request.
    #[serde(default)]
    pub nonce: Option<String>,
    /// Authorised party (required to be the app id when present, and present when `aud`
    /// names more than one audience).
    #[serde(default)]
    pub azp: Option<String>,
    /// The audiences (already checked to include the app id by `jsonwebtoken`).
    #[serde(default)]
    pub aud: Option<serde_json::Value>,
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
        Profile::new(self.sub.clone())
            .name(self.name.clone())
            .email(self.email.clone())
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
    /// The subject the token must name (the signed-in user, on refresh).
    pub subject: Option<&'a str>,
}

fn invalid(check: &'static str) -> Error {
    tracing::warn!(check, "id_token refused");
    Error::IdTokenInvalid(check)
}

/// Decodes the JOSE header (to pick the key by `kid`); only `RS256` is accepted.
pub fn decode_header(token: &str) -> Result<Header, Error> {
    let header = jsonwebtoken::decode_header(token).map_err(|_| invalid("format"))?;
    if header.alg != Algorithm::RS256 {
        return Err(invalid("alg"));
    }
    Ok(header)
}

/// The name of the check a `jsonwebtoken` error stands for, as logged.
fn check_of(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidSignature => "signature",
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => "alg",
        ErrorKind::InvalidIssuer => "iss",
        ErrorKind::InvalidAudience => "aud",
        ErrorKind::InvalidSubject => "sub",
        ErrorKind::ExpiredSignature => "exp",
        ErrorKind::MissingRequiredClaim(claim) | ErrorKind::InvalidClaimFormat(claim) => {
            match claim.as_str() {
                "exp" => "exp",
                "iss" => "iss",
                "aud" => "aud",
                "sub" => "sub",
                _ => "claims",
            }
        }
        ErrorKind::Json(_) => "claims",
        _ => "format",
    }
}

/// Checks an id_token against `key` and `expect` with `jsonwebtoken` (RS256 only; `exp`,
/// `iss`, `aud` and `sub` required; `exp` with [`LEEWAY_SECONDS`]), then `azp` and `nonce`.
/// The header is not decoded here again: the caller did, to pick the key (see
/// [`decode_header`]), and `jsonwebtoken` reads it once more and refuses any other algorithm.
/// Every failure but the nonce is `IdTokenInvalid(<check>)` and is logged with the check's
/// name; a wrong nonce is `NonceMismatch`.
pub fn validate_id_token(
    token: &str,
    key: &DecodingKey,
    expect: &Expectations<'_>,
) -> Result<IdTokenClaims, Error> {
    let mut validation = Validation::new(Algorithm::RS256);
    validation.leeway = LEEWAY_SECONDS;
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.set_issuer(&[expect.issuer]);
    validation.set_audience(&[expect.audience]);
    validation.sub = expect.subject.map(str::to_owned);
    let claims = jsonwebtoken::decode::<IdTokenClaims>(token, key, &validation)
        .map_err(|e| invalid(check_of(e.kind())))?
        .claims;
    // OIDC Core 3.1.3.7: with several audiences, `azp` must be there (and be us).
    let audiences = match &claims.aud {
        Some(serde_json::Value::Array(list)) => list.len(),
        _ => 1,
    };
    let azp = claims.azp.as_deref();
    if azp.is_some_and(|azp| azp != expect.audience) || (audiences > 1 && azp.is_none()) {
        return Err(invalid("azp"));
    }
    if let Some(nonce) = expect.nonce {
        if claims.nonce.as_deref() != Some(nonce) {
            tracing::warn!(check = "nonce", "id_token refused");
            return Err(Error::NonceMismatch);
        }
    }
    Ok(claims)
}
