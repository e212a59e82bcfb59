//! JSON Web Key Sets: the identity server's published signing keys, read with
//! `jsonwebtoken`'s JWK types.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::DecodingKey;
use serde::Deserialize;

/// Smallest RSA modulus accepted, in bytes (2048 bits).
const MIN_MODULUS_BYTES: usize = 256;

/// A JWK Set (`{"keys": [...]}`). Keys `jsonwebtoken` cannot read are skipped, so one exotic
/// key does not hide the others.
#[derive(Debug, Clone, Default)]
pub struct JwkSet {
    /// The keys that parsed.
    pub keys: Vec<Jwk>,
}

impl<'de> Deserialize<'de> for JwkSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            #[serde(default)]
            keys: Vec<serde_json::Value>,
        }
        let raw = Raw::deserialize(d)?;
        let keys = raw
            .keys
            .into_iter()
            .filter_map(|k| serde_json::from_value::<Jwk>(k).ok())
            .collect();
        Ok(JwkSet { keys })
    }
}

/// An RSA signing key usable for RS256 (`use` and `alg`, when stated, agree), with a modulus
/// of at least 2048 bits.
fn rs256_key(jwk: &Jwk) -> Option<DecodingKey> {
    let AlgorithmParameters::RSA(rsa) = &jwk.algorithm else {
        return None;
    };
    let use_ok = matches!(
        jwk.common.public_key_use,
        None | Some(PublicKeyUse::Signature)
    );
    let alg_ok = matches!(jwk.common.key_algorithm, None | Some(KeyAlgorithm::RS256));
    if !use_ok || !alg_ok {
        return None;
    }
    let modulus = URL_SAFE_NO_PAD.decode(rsa.n.trim_end_matches('=')).ok()?;
    let significant = modulus.iter().skip_while(|b| **b == 0).count();
    if significant < MIN_MODULUS_BYTES {
        return None;
    }
    DecodingKey::from_jwk(jwk).ok()
}

impl JwkSet {
    /// The RS256 verification key for a JWT header's `kid`. Without a `kid`, the set's only
    /// RSA signing key (if there is exactly one).
    pub fn find(&self, kid: Option<&str>) -> Option<DecodingKey> {
        match kid {
            Some(kid) => self
                .keys
                .iter()
                .filter(|k| k.common.key_id.as_deref() == Some(kid))
                .find_map(rs256_key),
            None => {
                let mut usable = self.keys.iter().filter_map(rs256_key);
                let first = usable.next()?;
                usable.next().is_none().then_some(first)
            }
        }
    }
}
