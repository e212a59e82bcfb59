//! Outcomes sealed for Redis with the cookie key (the `cookie` crate's private jar: AES-256-GCM,
//! the entry's name bound as associated data) together with their absolute expiry: Redis never
//! holds a token in the clear, an entry cannot be moved under another name, and one written
//! back after it expired is refused on read, whatever Redis's TTL says.

use crate::session::key::CookieKey;
use ::cookie::{Cookie, CookieJar};
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// What a sealed value holds: the outcome and when it stops being valid.
#[derive(Deserialize)]
struct Sealed<T> {
    /// Expiry, milliseconds since the Unix epoch.
    exp: i64,
    /// The outcome.
    v: T,
}

/// An opened entry: still valid, or past its sealed expiry.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Opened<T> {
    Fresh(T),
    Stale,
}

/// Seals `json` (an outcome's JSON) for the entry `name`, valid until `exp_ms`.
pub(super) fn seal(key: &CookieKey, name: &str, json: &str, exp_ms: i64) -> String {
    let text = format!("{{\"exp\":{exp_ms},\"v\":{json}}}");
    let mut jar = CookieJar::new();
    jar.private_mut(key.key())
        .add(Cookie::new(name.to_owned(), text));
    jar.get(name)
        .map(|c| c.value().to_owned())
        .unwrap_or_default()
}

/// Opens a value sealed by [`seal`] for `name`, fresh or stale by the time `now_ms`
/// (milliseconds since the Unix epoch); `None` if it does not open.
pub(super) fn open<T: DeserializeOwned>(
    key: &CookieKey,
    name: &str,
    sealed: &str,
    now_ms: i64,
) -> Option<Opened<T>> {
    let opened = CookieJar::new()
        .private(key.key())
        .decrypt(Cookie::new(name.to_owned(), sealed.to_owned()))?;
    let sealed: Sealed<T> = serde_json::from_str(opened.value()).ok()?;
    Some(if sealed.exp > now_ms {
        Opened::Fresh(sealed.v)
    } else {
        Opened::Stale
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;

    #[test]
    fn outcomes_are_sealed_with_their_expiry_and_bound_to_their_entry() {
        let key = CookieKey::random();
        let now = Clock::default().unix_ms();
        let later = now + 60_000;
        let sealed = seal(&key, "a", r#""rt-42""#, later);
        assert!(!sealed.contains("rt-42"));
        assert_eq!(
            open::<String>(&key, "a", &sealed, now),
            Some(Opened::Fresh("rt-42".to_owned()))
        );
        assert_eq!(
            open::<String>(&key, "b", &sealed, now),
            None,
            "another entry"
        );
        assert_eq!(
            open::<String>(&CookieKey::random(), "a", &sealed, now),
            None,
            "another key"
        );
        // Past its expiry the outcome is stale, whatever Redis's TTL says.
        let past = seal(&key, "a", r#""rt-42""#, now - 1);
        assert_eq!(open::<String>(&key, "a", &past, now), Some(Opened::Stale));
        // The expiry is inside the seal: a changed byte does not open.
        let mut tampered = past.into_bytes();
        let i = tampered.len() / 2;
        tampered[i] = if tampered[i] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(open::<String>(&key, "a", &tampered, now), None);
    }
}
