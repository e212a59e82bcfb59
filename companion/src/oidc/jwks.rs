//! JSON Web Key Sets: the identity server's published signing keys.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rsa::{BigUint, RsaPublicKey};
use serde::Deserialize;

/// Smallest RSA modulus accepted, in bytes (2048 bits).
const MIN_MODULUS_BYTES: usize = 256;

/// A JWK Set (`{"keys": [...]}`).
#[derive(Debug, Clone, Deserialize)]
pub struct JwkSet {
    /// The keys; members other than RSA signing keys are ignored.
    #[serde(default)]
    pub keys: Vec<Jwk>,
}

/// One JSON Web Key (only the members an RSA signature check needs).
#[derive(Debug, Clone, Deserialize)]
pub struct Jwk {
    /// Key type; only `RSA` is used.
    pub kty: String,
    /// Key id, matched against the JWT header's `kid`.
    #[serde(default)]
    pub kid: Option<String>,
    /// Algorithm, when stated; must be `RS256`.
    #[serde(default)]
    pub alg: Option<String>,
    /// Intended use, when stated; must be `sig`.
    #[serde(default, rename = "use")]
    pub use_: Option<String>,
    /// RSA modulus, base64url.
    #[serde(default)]
    pub n: Option<String>,
    /// RSA public exponent, base64url.
    #[serde(default)]
    pub e: Option<String>,
}

impl Jwk {
    fn usable_for_rs256(&self) -> bool {
        self.kty == "RSA"
            && self.use_.as_deref().is_none_or(|u| u == "sig")
            && self.alg.as_deref().is_none_or(|a| a == "RS256")
    }

    /// The RSA public key, if the members form a valid one of at least 2048 bits.
    pub fn rsa_key(&self) -> Option<RsaPublicKey> {
        let n = URL_SAFE_NO_PAD
            .decode(self.n.as_deref()?.trim_end_matches('='))
            .ok()?;
        let e = URL_SAFE_NO_PAD
            .decode(self.e.as_deref()?.trim_end_matches('='))
            .ok()?;
        let key = RsaPublicKey::new(BigUint::from_bytes_be(&n), BigUint::from_bytes_be(&e)).ok()?;
        (rsa::traits::PublicKeyParts::size(&key) >= MIN_MODULUS_BYTES).then_some(key)
    }
}

impl JwkSet {
    /// The RS256 verification key for a JWT header's `kid`. Without a `kid`, the set's only
    /// RSA signing key (if there is exactly one).
    pub fn find(&self, kid: Option<&str>) -> Option<RsaPublicKey> {
        let mut candidates = self.keys.iter().filter(|k| k.usable_for_rs256());
        match kid {
            Some(kid) => candidates
                .find(|k| k.kid.as_deref() == Some(kid))?
                .rsa_key(),
            None => {
                let first = candidates.next()?;
                if candidates.next().is_some() {
                    return None;
                }
                first.rsa_key()
            }
        }
    }
}
