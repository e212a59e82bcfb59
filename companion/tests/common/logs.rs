//! Captures the companion's tracing output (all tests of a binary share one buffer).

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::EnvFilter;

#[derive(Clone, Default)]
pub struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Buffer {
    type Writer = Buffer;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

static BUFFER: OnceLock<Buffer> = OnceLock::new();

/// Installs the capturing subscriber (once per test binary); returns the buffer.
pub fn capture() -> Buffer {
    BUFFER
        .get_or_init(|| {
            let buffer = Buffer::default();
            tracing_subscriber::fmt()
                .with_env_filter(EnvFilter::new("fundraising_companion=debug"))
                .with_writer(buffer.clone())
                .with_ansi(false)
                .init();
            buffer
        })
        .clone()
}

/// Everything the companion logged so far.
pub fn text() -> String {
    let buffer = capture();
    let bytes = buffer.0.lock().expect("log buffer").clone();
    String::from_utf8_lossy(&bytes).into_owned()
}
