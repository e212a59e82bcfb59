//! `jsonwebtoken`'s crypto provider for the companion: RS256 signatures are verified by `ring`
//! (already in the build for rustls), everything else is `jsonwebtoken`'s own RustCrypto
//! provider.
//!
//! Why: verifying an RS256 id_token with the RustCrypto `rsa` crate took about 0.23 ms of
//! every sign-in (most of what the companion adds to the code exchange); `ring`'s
//! `RSA_PKCS1_2048_8192_SHA256` takes a tenth of that. This is the very bridge
//! `jsonwebtoken`'s own aws-lc backend uses (`RsaPublicKeyComponents::verify`), over ring's
//! identical API; `jsonwebtoken` still checks the header, the algorithm and every claim.

use jsonwebtoken::crypto::{rust_crypto, CryptoProvider, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::{Error, ErrorKind};
use jsonwebtoken::signature::{self, Verifier};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, DecodingKeyKind};
use ring::signature::{RsaPublicKeyComponents, UnparsedPublicKey, RSA_PKCS1_2048_8192_SHA256};

/// RS256 verification by `ring` (moduli of 2048 to 8192 bits).
struct RingRs256(DecodingKey);

impl Verifier<Vec<u8>> for RingRs256 {
    fn verify(&self, msg: &[u8], sig: &Vec<u8>) -> Result<(), signature::Error> {
        let checked = match self.0.kind() {
            DecodingKeyKind::RsaModulusExponent { n, e } => {
                RsaPublicKeyComponents { n, e }.verify(&RSA_PKCS1_2048_8192_SHA256, msg, sig)
            }
            DecodingKeyKind::SecretOrDer(der) => {
                UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, der).verify(msg, sig)
            }
        };
        checked.map_err(|_| signature::Error::new())
    }
}

impl JwtVerifier for RingRs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::RS256
    }
}

fn new_verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>, Error> {
    match algorithm {
        Algorithm::RS256 => {
            if key.family() != AlgorithmFamily::Rsa {
                return Err(ErrorKind::InvalidKeyFormat.into());
            }
            Ok(Box::new(RingRs256(key.clone())))
        }
        other => (rust_crypto::DEFAULT_PROVIDER.verifier_factory)(other, key),
    }
}

/// The provider: RustCrypto's, with RS256 verification by `ring`.
static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: rust_crypto::DEFAULT_PROVIDER.signer_factory,
    verifier_factory: new_verifier,
    key_utils: KeyUtils {
        rsa_pub_components_from_private_key: rust_crypto::DEFAULT_PROVIDER
            .key_utils
            .rsa_pub_components_from_private_key,
        rsa_pub_components_from_public_key: rust_crypto::DEFAULT_PROVIDER
            .key_utils
            .rsa_pub_components_from_public_key,
        ec_pub_components_from_private_key: rust_crypto::DEFAULT_PROVIDER
            .key_utils
            .ec_pub_components_from_private_key,
        ed_pub_components_from_private_key: rust_crypto::DEFAULT_PROVIDER
            .key_utils
            .ed_pub_components_from_private_key,
        compute_digest: rust_crypto::DEFAULT_PROVIDER.key_utils.compute_digest,
    },
};

/// Makes [`PROVIDER`] `jsonwebtoken`'s process-wide provider, unless one was chosen already
/// (by the embedding program, or by a first use of `jsonwebtoken`): then that one stays,
/// which is as correct and only slower.
pub fn install() {
    if CryptoProvider::install_default(&PROVIDER).is_err() {
        tracing::debug!("jsonwebtoken's crypto provider was chosen elsewhere; keeping it");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use jsonwebtoken::EncodingKey;

    const KEY: &str = include_str!("../../tests/fixtures/provider-key.pem");
    const OTHER: &str = include_str!("../../tests/fixtures/other-key.pem");

    /// An RS256 signature of `header.payload` by `jsonwebtoken` (RustCrypto).
    fn signed(pem: &str) -> Vec<u8> {
        let key = EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap();
        let sig = jsonwebtoken::crypto::sign(b"header.payload", &key, Algorithm::RS256).unwrap();
        URL_SAFE_NO_PAD.decode(sig).unwrap()
    }

    fn public(pem: &str) -> DecodingKey {
        let key = EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap();
        let (n, e) = (rust_crypto::DEFAULT_PROVIDER
            .key_utils
            .rsa_pub_components_from_private_key)(key.as_bytes())
        .unwrap();
        DecodingKey::from_rsa_raw_components(&n, &e)
    }

    #[test]
    fn ring_accepts_exactly_what_rust_crypto_accepts() {
        let raw = signed(KEY);
        for key in [public(KEY), public(OTHER)] {
            let ours = new_verifier(&Algorithm::RS256, &key)
                .unwrap()
                .verify(b"header.payload", &raw)
                .is_ok();
            let theirs = (rust_crypto::DEFAULT_PROVIDER.verifier_factory)(&Algorithm::RS256, &key)
                .unwrap()
                .verify(b"header.payload", &raw)
                .is_ok();
            assert_eq!(ours, theirs);
        }
        let good = new_verifier(&Algorithm::RS256, &public(KEY)).unwrap();
        assert!(good.verify(b"header.payload", &raw).is_ok());
        assert!(
            good.verify(b"header.payloaX", &raw).is_err(),
            "another message"
        );
        let mut flipped = raw.clone();
        flipped[10] ^= 1;
        assert!(
            good.verify(b"header.payload", &flipped).is_err(),
            "another signature"
        );
        assert!(new_verifier(&Algorithm::RS256, &public(OTHER))
            .unwrap()
            .verify(b"header.payload", &raw)
            .is_err());
        // Not an RSA key: refused before any verification.
        assert!(new_verifier(&Algorithm::RS256, &DecodingKey::from_secret(b"k")).is_err());
    }
}
