//! The RSA key that signs id_tokens and its JWKS form. Signing is `jsonwebtoken`'s (RS256,
//! `kid` in the header), the crate the companion validates the tokens with.

use std::fmt;
use std::path::Path;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use rsa::traits::PublicKeyParts;
use rsa::RsaPrivateKey;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::error::{Result, SandboxError};

/// File name of the key inside the data dir (PKCS#8 PEM).
pub const KEY_FILE: &str = "signing-key.pem";

/// The identity server's RS256 signing key. `Debug` never shows the private part.
#[derive(Clone)]
pub struct SigningKey {
    private: RsaPrivateKey,
    encoding: EncodingKey,
    kid: String,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .field("private", &"[redacted]")
            .finish()
    }
}

impl SigningKey {
    /// Generates a fresh 2048-bit key.
    pub fn generate() -> Result<Self> {
        let private = RsaPrivateKey::new(&mut rand::rngs::OsRng, 2048)
            .map_err(|e| SandboxError::Key(e.to_string()))?;
        let pem = private
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| SandboxError::Key(e.to_string()))?;
        Self::from_pem(&pem)
    }

    /// Reads a PKCS#8 PEM private key.
    pub fn from_pem(pem: &str) -> Result<Self> {
        let private =
            RsaPrivateKey::from_pkcs8_pem(pem).map_err(|e| SandboxError::Key(e.to_string()))?;
        let encoding = EncodingKey::from_rsa_pem(pem.as_bytes())
            .map_err(|e| SandboxError::Key(e.to_string()))?;
        let (n, e) = public_parts(&private);
        // RFC 7638 thumbprint: members in lexicographic order, no spaces.
        let canonical = format!(r#"{{"e":"{e}","kty":"RSA","n":"{n}"}}"#);
        let kid = URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()));
        Ok(Self {
            private,
            encoding,
            kid,
        })
    }

    /// The key as PKCS#8 PEM.
    pub fn to_pem(&self) -> Result<String> {
        let pem = self
            .private
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| SandboxError::Key(e.to_string()))?;
        Ok(pem.to_string())
    }

    /// Loads `signing-key.pem` from the data dir, generating and saving it on first start.
    pub fn load_or_generate(data_dir: &Path) -> Result<Self> {
        let path = data_dir.join(KEY_FILE);
        match std::fs::read_to_string(&path) {
            Ok(pem) => Self::from_pem(&pem),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = Self::generate()?;
                key.save(&path)?;
                Ok(key)
            }
            Err(source) => Err(SandboxError::Io { path, source }),
        }
    }

    /// Writes the key as PKCS#8 PEM, readable by its owner only (see [`write_private`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        let pem = self.to_pem()?;
        write_private(path, pem.as_bytes())
    }

    /// The key id (`kid`), the RFC 7638 thumbprint of the public key.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The public key as a JSON Web Key Set.
    pub fn jwks(&self) -> Value {
        json!({ "keys": [self.jwk()] })
    }

    /// The public key as a JSON Web Key.
    pub fn jwk(&self) -> Value {
        let (n, e) = public_parts(&self.private);
        json!({ "kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid, "n": n, "e": e })
    }

    /// The public key as SPKI PEM (what the algorithm-confusion attack keys HS256 with).
    pub fn public_pem(&self) -> Result<String> {
        use rsa::pkcs8::EncodePublicKey;
        self.private
            .to_public_key()
            .to_public_key_pem(LineEnding::LF)
            .map_err(|e| SandboxError::Key(e.to_string()))
    }

    /// Signs the claims as a compact RS256 JWT with `kid` in the header.
    pub fn sign_jwt(&self, claims: &Value) -> Result<String> {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding)
            .map_err(|e| SandboxError::Key(e.to_string()))
    }
}

/// Writes `bytes` to `path` so that no one but the owner can ever read them: a fresh file
/// beside it, created mode 0600 (on Unix), exclusively (`O_EXCL`: not a file someone placed
/// there) and without following a symbolic link (`O_NOFOLLOW`), then renamed over `path`
/// (which replaces a link there rather than writing through it).
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let io = |source| SandboxError::Io {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{:016x}.tmp", rand::random::<u64>()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let written = options.open(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

fn public_parts(private: &RsaPrivateKey) -> (String, String) {
    (
        URL_SAFE_NO_PAD.encode(private.n().to_bytes_be()),
        URL_SAFE_NO_PAD.encode(private.e().to_bytes_be()),
    )
}

/// Most retired keys the JWKS keeps publishing after rotations; the oldest goes beyond.
pub const MAX_RETIRED_KEYS: usize = 3;

/// The identity server's keys: the one that signs, and the retired ones the JWKS still
/// publishes (so tokens they signed still verify) after a rotation that kept them.
#[derive(Debug, Clone)]
pub struct KeyRing {
    current: SigningKey,
    retired: Vec<SigningKey>,
}

impl KeyRing {
    /// A ring of one key.
    pub fn new(current: SigningKey) -> Self {
        Self {
            current,
            retired: Vec::new(),
        }
    }

    /// The key that signs.
    pub fn current(&self) -> &SigningKey {
        &self.current
    }

    /// The JWKS: the signing key first, then the retired ones, newest first.
    pub fn jwks(&self) -> Value {
        let keys: Vec<Value> = std::iter::once(&self.current)
            .chain(self.retired.iter())
            .map(SigningKey::jwk)
            .collect();
        json!({ "keys": keys })
    }

    /// Makes `next` the signing key. With `keep_old`, the key it replaces stays in the JWKS
    /// (at most [`MAX_RETIRED_KEYS`] do); without, every old key leaves it.
    pub fn rotate(&mut self, next: SigningKey, keep_old: bool) {
        let old = std::mem::replace(&mut self.current, next);
        if keep_old {
            self.retired.insert(0, old);
            self.retired.truncate(MAX_RETIRED_KEYS);
        } else {
            self.retired.clear();
        }
    }
}

/// A key no JWKS of this sandbox holds (generated once per process, on first use): it signs
/// the id_tokens of the `unknown_key` fault.
pub fn outsider_key() -> Result<SigningKey> {
    static KEY: std::sync::OnceLock<SigningKey> = std::sync::OnceLock::new();
    if let Some(key) = KEY.get() {
        return Ok(key.clone());
    }
    let key = SigningKey::generate()?;
    Ok(KEY.get_or_init(|| key).clone())
}
