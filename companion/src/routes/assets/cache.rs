//! The bytes of the static files answered whole, kept in memory and shared by every connection
//! that sends them (an answer's chunks are slices of one buffer): a client that does not read
//! holds a few of those slices, never a copy. A file without a precompressed sibling is
//! compressed once, when first asked for in an encoding, not once per connection.
//!
//! Only files up to [`MAX_CACHED_FILE`] are kept, [`CACHE_BUDGET`] bytes in all (the least
//! recently used go first); an entry is used only while the file keeps its length and
//! modification time. Larger files are streamed from disk in small chunks.

use super::folder::Encoding;
use axum::body::Bytes;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// Largest file kept in memory (its bytes as stored; the compressed form is smaller).
pub const MAX_CACHED_FILE: u64 = 8 << 20;
/// Most bytes kept in memory for all files together.
pub const CACHE_BUDGET: usize = 64 << 20;
/// Brotli quality of the compression made here (the package's own `.br` files are made at
/// the highest quality by its build).
const BROTLI_QUALITY: u32 = 5;
const BROTLI_WINDOW: u32 = 22;

/// Which bytes of which file: the file named, the sibling sent (if any), and the encoding
/// made here (if any).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    pub named: PathBuf,
    pub sibling: Option<&'static str>,
    pub made: Option<&'static str>,
}

struct Entry {
    len: u64,
    modified: Option<SystemTime>,
    bytes: Bytes,
    used: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<Key, Entry>,
    total: usize,
    clock: u64,
}

/// The kept bytes of one folder's files.
#[derive(Default, Clone)]
pub struct Cache {
    inner: Arc<Mutex<Inner>>,
    /// One compression or read at a time: a file asked for by many at once is made once.
    making: Arc<tokio::sync::Mutex<()>>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cache")
    }
}

impl Cache {
    fn get(&self, key: &Key, len: u64, modified: Option<SystemTime>) -> Option<Bytes> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.clock += 1;
        let now = inner.clock;
        let entry = inner.entries.get_mut(key)?;
        if entry.len != len || entry.modified != modified {
            return None;
        }
        entry.used = now;
        Some(entry.bytes.clone())
    }

    fn put(&self, key: Key, len: u64, modified: Option<SystemTime>, bytes: Bytes) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.clock += 1;
        let used = inner.clock;
        if let Some(old) = inner.entries.remove(&key) {
            inner.total -= old.bytes.len();
        }
        inner.total += bytes.len();
        inner.entries.insert(
            key,
            Entry {
                len,
                modified,
                bytes,
                used,
            },
        );
        while inner.total > CACHE_BUDGET {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(gone) = inner.entries.remove(&oldest) {
                inner.total -= gone.bytes.len();
            }
        }
    }

    /// The bytes of `file` (its length and date as given), compressed in `made` if given:
    /// from memory, or read (and compressed) once and kept. `None` when the file is too large
    /// to keep or cannot be read.
    pub async fn bytes(
        &self,
        key: Key,
        file: std::fs::File,
        len: u64,
        modified: Option<SystemTime>,
        made: Option<Encoding>,
    ) -> Option<Bytes> {
        if len > MAX_CACHED_FILE {
            return None;
        }
        if let Some(bytes) = self.get(&key, len, modified) {
            return Some(bytes);
        }
        let _making = self.making.lock().await;
        if let Some(bytes) = self.get(&key, len, modified) {
            return Some(bytes);
        }
        let made_bytes = tokio::task::spawn_blocking(move || -> std::io::Result<Vec<u8>> {
            let mut raw = Vec::with_capacity(len as usize);
            (&file).take(MAX_CACHED_FILE).read_to_end(&mut raw)?;
            if raw.len() as u64 != len {
                return Err(std::io::Error::other("the file changed while it was read"));
            }
            Ok(match made {
                None => raw,
                Some(Encoding::Br) => {
                    let mut out = Vec::new();
                    {
                        let mut writer = brotli::CompressorWriter::new(
                            &mut out,
                            64 * 1024,
                            BROTLI_QUALITY,
                            BROTLI_WINDOW,
                        );
                        writer.write_all(&raw)?;
                        writer.flush()?;
                    }
                    out
                }
                Some(Encoding::Gzip) => {
                    let mut writer =
                        flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                    writer.write_all(&raw)?;
                    writer.finish()?
                }
            })
        })
        .await
        .ok()?
        .ok()?;
        let bytes = Bytes::from(made_bytes);
        self.put(key, len, modified, bytes.clone());
        Some(bytes)
    }
}
