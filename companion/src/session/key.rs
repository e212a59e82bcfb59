//! The key that seals session cookies (AES-256-GCM: encrypted and authenticated).

use crate::error::Error;
use aes_gcm::aead::{Aead, KeyInit, OsRng, Payload};
use aes_gcm::{AeadCore, Aes256Gcm, Key, Nonce};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::Path;

const NONCE_LEN: usize = 12;

/// The cookie-sealing key. Instances sharing one key file can open each other's cookies.
/// `Debug` prints `[redacted]`.
#[derive(Clone)]
pub struct CookieKey([u8; 32]);

impl CookieKey {
    /// A fresh random key (sessions then end when the process does).
    pub fn random() -> Self {
        let key = Aes256Gcm::generate_key(OsRng);
        Self(key.into())
    }

    /// Derives the key from key material (at least 32 bytes; surrounding whitespace ignored):
    /// the AES key is SHA-256 of the material, so any format (random bytes, base64, hex) works.
    pub fn from_material(material: &[u8]) -> Result<Self, Error> {
        let trimmed = material.trim_ascii();
        if trimmed.len() < 32 {
            return Err(Error::Config(
                "the cookie key file must hold at least 32 bytes, e.g. `head -c 32 /dev/urandom | base64 > cookie.key`".into(),
            ));
        }
        Ok(Self(Sha256::digest(trimmed).into()))
    }

    /// Reads the key material from a file (see [`CookieKey::from_material`]).
    pub fn from_file(path: &Path) -> Result<Self, Error> {
        let bytes = std::fs::read(path).map_err(|e| {
            Error::Config(format!(
                "cannot read the cookie key file {}: {e}",
                path.display()
            ))
        })?;
        Self::from_material(&bytes)
    }

    /// Encrypts and authenticates `plain`, bound to `context` (the cookie name); base64url text.
    pub fn seal(&self, context: &str, plain: &[u8]) -> String {
        let cipher = Aes256Gcm::new(Key::<Aes256Gcm>::from_slice(&self.0));
        let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
        let sealed = cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plain,
                    aad: context.as_bytes(),
                },
            )
            .unwrap_or_default();
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        URL_SAFE_NO_PAD.encode(out)
    }

    /// The plain text of a value sealed with this key and `context`; `None` when it was
    /// tampered with, sealed by another key or for another context.
    pub fn open(&self, context: &str, sealed: &str) -> Option<Vec<u8>> {
        let bytes = URL_SAFE_NO_PAD.decode(sealed.trim()).ok()?;
        if bytes.len() <= NONCE_LEN {
            return None;
        }
        let (nonce, body) = bytes.split_at(NONCE_LEN);
        let cipher = Aes256Gcm::new(Key::<Aes256Gcm>::from_slice(&self.0));
        cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: body,
                    aad: context.as_bytes(),
                },
            )
            .ok()
    }
}

impl fmt::Debug for CookieKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CookieKey([redacted])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_the_same_key_and_context() {
        let key = CookieKey::random();
        let sealed = key.seal("c", b"refresh-token");
        assert!(!sealed.contains("refresh"));
        assert_eq!(key.open("c", &sealed).unwrap(), b"refresh-token");
        assert!(key.open("other", &sealed).is_none());
        assert!(CookieKey::random().open("c", &sealed).is_none());
        let mut tampered = sealed.into_bytes();
        let last = tampered.len() - 3;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(key
            .open("c", std::str::from_utf8(&tampered).unwrap())
            .is_none());
        assert!(key.open("c", "not base64 !").is_none());
        assert!(key.open("c", "").is_none());
    }

    #[test]
    fn the_same_material_gives_the_same_key() {
        let material = b"0123456789abcdef0123456789abcdef\n";
        let a = CookieKey::from_material(material).unwrap();
        let b = CookieKey::from_material(&material[..32]).unwrap();
        assert_eq!(b.open("c", &a.seal("c", b"x")).unwrap(), b"x");
        assert!(CookieKey::from_material(b"short").is_err());
        assert_eq!(format!("{a:?}"), "CookieKey([redacted])");
    }
}
