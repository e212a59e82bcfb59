//! The key that seals session cookies: a `cookie` crate [`Key`] (AES-256-GCM private cookies,
//! through axum-extra's `PrivateCookieJar`).

use crate::error::Error;
use axum_extra::extract::cookie::Key;
use std::fmt;
use std::path::Path;

/// Fewest bytes of key material accepted (`Key::derive_from` needs 256 bits).
const MIN_MATERIAL_LEN: usize = 32;

/// The cookie-sealing key. Instances sharing one key file can open each other's cookies.
/// `Debug` prints `[redacted]`.
#[derive(Clone)]
pub struct CookieKey(Key);

impl CookieKey {
    /// A fresh random key (sessions then end when the process does).
    pub fn random() -> Self {
        Self(Key::generate())
    }

    /// Derives the key from key material (at least 32 bytes; surrounding whitespace ignored)
    /// with `Key::derive_from` (HKDF-SHA256), so any format (random bytes, base64, hex) works.
    pub fn from_material(material: &[u8]) -> Result<Self, Error> {
        let trimmed = material.trim_ascii();
        if trimmed.len() < MIN_MATERIAL_LEN {
            return Err(Error::Config(
                "the cookie key file must hold at least 32 bytes, e.g. `head -c 32 /dev/urandom | base64 > cookie.key`".into(),
            ));
        }
        Ok(Self(Key::derive_from(trimmed)))
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

    /// The `cookie` crate key.
    pub fn key(&self) -> &Key {
        &self.0
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
    fn the_same_material_gives_the_same_key() {
        let material = b"0123456789abcdef0123456789abcdef\n";
        let a = CookieKey::from_material(material).unwrap();
        let b = CookieKey::from_material(&material[..32]).unwrap();
        assert_eq!(a.key().master(), b.key().master());
        let c = CookieKey::from_material(b"0123456789abcdef0123456789abcdeX").unwrap();
        assert_ne!(a.key().master(), c.key().master());
        assert!(CookieKey::from_material(b"short").is_err());
        assert!(CookieKey::from_material(&[b' '; 40]).is_err());
        assert_eq!(format!("{a:?}"), "CookieKey([redacted])");
    }
}
