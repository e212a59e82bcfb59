//! W3C Trace Context's `traceparent` header (version 00): read from a request, written on the
//! calls made for it.

use rand::RngCore;
use std::fmt::Write as _;

/// The `traceparent` header's name.
pub const TRACEPARENT: &str = "traceparent";

/// One position in a trace: the trace id, the id of a span in it, and the sampled flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent {
    /// 16 bytes, never all zero.
    pub trace_id: [u8; 16],
    /// 8 bytes, never all zero.
    pub span_id: [u8; 8],
    /// The trace flags (bit 0: sampled).
    pub flags: u8,
}

fn hex_into<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != N * 2 || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[i * 2..i * 2 + 2], 16).ok()?;
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

impl TraceParent {
    /// Parses a `traceparent` value as the W3C recommendation reads it: lower-case hex,
    /// version `ff` refused, ids not all zero; a version above 00 may carry more fields after
    /// the four known ones. `None` for anything else (the request then starts a new trace).
    pub fn parse(value: &str) -> Option<Self> {
        let mut parts = value.trim().split('-');
        let version = hex_into::<1>(parts.next()?)?[0];
        let trace_id = hex_into::<16>(parts.next()?)?;
        let span_id = hex_into::<8>(parts.next()?)?;
        let flags = hex_into::<1>(parts.next()?)?[0];
        let rest = parts.next();
        if version == 0xff || (version == 0 && rest.is_some()) {
            return None;
        }
        if trace_id == [0; 16] || span_id == [0; 8] {
            return None;
        }
        Some(Self {
            trace_id,
            span_id,
            flags,
        })
    }

    /// A new trace: random ids, sampled.
    pub fn new_root() -> Self {
        let mut trace_id = [0u8; 16];
        let mut span_id = [0u8; 8];
        let mut rng = rand::thread_rng();
        while trace_id == [0; 16] {
            rng.fill_bytes(&mut trace_id);
        }
        while span_id == [0; 8] {
            rng.fill_bytes(&mut span_id);
        }
        Self {
            trace_id,
            span_id,
            flags: 1,
        }
    }

    /// The same trace and flags with a new span id: a span below this one.
    pub fn child(&self) -> Self {
        let mut span_id = [0u8; 8];
        let mut rng = rand::thread_rng();
        while span_id == [0; 8] {
            rng.fill_bytes(&mut span_id);
        }
        Self { span_id, ..*self }
    }

    /// The trace id in hex (as logs and trace stores show it).
    pub fn trace_id_hex(&self) -> String {
        hex(&self.trace_id)
    }

    /// The span id in hex.
    pub fn span_id_hex(&self) -> String {
        hex(&self.span_id)
    }

    /// The header value (version 00).
    pub fn header_value(&self) -> String {
        format!(
            "00-{}-{}-{:02x}",
            self.trace_id_hex(),
            self.span_id_hex(),
            self.flags
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn the_recommendations_example_reads_and_writes_back() {
        let parent = TraceParent::parse(EXAMPLE).expect("valid");
        assert_eq!(parent.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(parent.span_id_hex(), "00f067aa0ba902b7");
        assert_eq!(parent.flags, 1);
        assert_eq!(parent.header_value(), EXAMPLE);
        let child = parent.child();
        assert_eq!(child.trace_id, parent.trace_id);
        assert_ne!(child.span_id, parent.span_id);
    }

    #[test]
    fn malformed_values_start_a_new_trace() {
        for bad in [
            "",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        ] {
            assert_eq!(TraceParent::parse(bad), None, "{bad}");
        }
        // A later version may add fields.
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more";
        assert!(TraceParent::parse(later).is_some());
        let root = TraceParent::new_root();
        assert_eq!(TraceParent::parse(&root.header_value()), Some(root));
    }
}
