//! JSON Web Key Sets: the identity server's published signing keys, read with
//! `jsonwebtoken`'s JWK types.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::DecodingKey;
#[cfg(test)]
use jsonwebtoken::DecodingKeyKind;
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

/// The RS256 verification keys of a JWK Set, parsed once when the set is fetched (not on
/// every id_token): each with its `kid`, in the set's order.
#[derive(Clone, Default)]
pub struct VerificationKeys {
    keys: Vec<(Option<String>, DecodingKey)>,
}

impl VerificationKeys {
    /// The usable keys of `set` (see [`JwkSet::find`] for which are).
    pub fn from_set(set: &JwkSet) -> Self {
        let keys = set
            .keys
            .iter()
            .filter_map(|jwk| Some((jwk.common.key_id.clone(), rs256_key(jwk)?)))
            .collect();
        Self { keys }
    }

    /// The key for a JWT header's `kid`; without a `kid`, the only key (if there is exactly
    /// one). The same answer as [`JwkSet::find`] on the set.
    pub fn find(&self, kid: Option<&str>) -> Option<DecodingKey> {
        match kid {
            Some(kid) => self
                .keys
                .iter()
                .find(|(id, _)| id.as_deref() == Some(kid))
                .map(|(_, key)| key.clone()),
            None => match self.keys.as_slice() {
                [(_, only)] => Some(only.clone()),
                _ => None,
            },
        }
    }

    /// How many usable keys there are.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key is usable.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::crypto::rust_crypto;
    use jsonwebtoken::EncodingKey;

    /// The public JWK (`n`, `e`) of a fixture key, with `kid`.
    fn jwk(pem: &str, kid: Option<&str>) -> serde_json::Value {
        let key = EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap();
        let (n, e) = (rust_crypto::DEFAULT_PROVIDER
            .key_utils
            .rsa_pub_components_from_private_key)(key.as_bytes())
        .unwrap();
        let mut value = serde_json::json!({
            "kty": "RSA", "use": "sig", "alg": "RS256",
            "n": URL_SAFE_NO_PAD.encode(n), "e": URL_SAFE_NO_PAD.encode(e),
        });
        if let Some(kid) = kid {
            value["kid"] = kid.into();
        }
        value
    }

    #[test]
    fn parsed_keys_answer_what_the_set_answers() {
        let a = include_str!("../../tests/fixtures/provider-key.pem");
        let b = include_str!("../../tests/fixtures/other-key.pem");
        let sets = [
            serde_json::json!({"keys": [jwk(a, Some("a")), jwk(b, Some("b"))]}),
            serde_json::json!({"keys": [jwk(a, None)]}),
            serde_json::json!({"keys": [jwk(a, None), jwk(b, None)]}),
            serde_json::json!({"keys": [{"kty": "oct", "k": "AA"}, jwk(b, Some("b"))]}),
            serde_json::json!({"keys": []}),
        ];
        for set in sets {
            let set: JwkSet = serde_json::from_value(set).unwrap();
            let parsed = VerificationKeys::from_set(&set);
            for kid in [Some("a"), Some("b"), Some("c"), None] {
                assert_eq!(
                    parsed.find(kid).map(|k| format!("{:?}", k.kind())),
                    set.find(kid).map(|k| format!("{:?}", k.kind())),
                    "kid {kid:?}"
                );
                assert_eq!(
                    parsed.find(kid).is_some(),
                    set.find(kid).is_some(),
                    "kid {kid:?}"
                );
            }
        }
        let two: JwkSet = serde_json::from_value(
            serde_json::json!({"keys": [jwk(a, Some("a")), jwk(b, Some("b"))]}),
        )
        .unwrap();
        let parsed = VerificationKeys::from_set(&two);
        assert_eq!(parsed.len(), 2);
        let (ka, kb) = (
            parsed.find(Some("a")).unwrap(),
            parsed.find(Some("b")).unwrap(),
        );
        let (
            DecodingKeyKind::RsaModulusExponent { n: na, .. },
            DecodingKeyKind::RsaModulusExponent { n: nb, .. },
        ) = (ka.kind(), kb.kind())
        else {
            panic!("RSA components");
        };
        assert_ne!(na, nb, "each kid its own key");
    }
}
