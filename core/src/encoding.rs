//! Small encoders the URL and PKCE rules need, hand-rolled to keep the wasm build small:
//! form (query) percent-encoding and decoding, path-segment encoding, unpadded base64url,
//! decimal integers, and Rust names as JSON names.

/// True for RFC 3986 unreserved characters, which are never encoded.
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn encode(s: &str, space_as_plus: bool) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if unreserved(b) {
            out.push(char::from(b));
        } else if b == b' ' && space_as_plus {
            out.push('+');
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0x0f)]));
        }
    }
    out
}

/// A Rust field name (`snake_case`) as the service's JSON and the JavaScript API name it
/// (`camelCase`), the mapping of the models' `#[serde(rename_all = "camelCase")]`.
///
/// ```
/// use fundraising_core::encoding::camel_case;
/// assert_eq!(camel_case("page_size"), "pageSize");
/// assert_eq!(camel_case("base_url"), "baseUrl");
/// assert_eq!(camel_case("name"), "name");
/// ```
pub fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Encodes a query-string name or value (`application/x-www-form-urlencoded`): unreserved
/// characters stay, a space becomes `+`, every other byte becomes `%XX`.
///
/// ```
/// use fundraising_core::encoding::form_encode;
/// assert_eq!(form_encode("openid profile"), "openid+profile");
/// assert_eq!(form_encode("http://a/b?c"), "http%3A%2F%2Fa%2Fb%3Fc");
/// ```
pub fn form_encode(s: &str) -> String {
    encode(s, true)
}

/// Encodes one path segment (a short name, a reference): like [`form_encode`] but a space
/// becomes `%20`, so `/` and `?` can never change the path.
pub fn path_segment_encode(s: &str) -> String {
    encode(s, false)
}

/// The decimal digits of `n`, without `Display` (whose formatting machinery is a sizeable
/// part of the browser package).
///
/// ```
/// use fundraising_core::encoding::decimal;
/// assert_eq!((decimal(0), decimal(1_700_000_000_000)), ("0".to_owned(), "1700000000000".to_owned()));
/// ```
pub fn decimal(mut n: u64) -> String {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    digits[start..].iter().map(|&d| char::from(d)).collect()
}

/// The decimal text of a signed `n` (see [`decimal`]).
///
/// ```
/// assert_eq!(fundraising_core::encoding::signed_decimal(-42), "-42");
/// ```
pub fn signed_decimal(n: i64) -> String {
    let digits = decimal(n.unsigned_abs());
    if n < 0 {
        ["-", &digits].concat()
    } else {
        digits
    }
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes a query-string name or value: `+` is a space, `%XX` a byte. `None` when a `%`
/// is not followed by two hex digits or the bytes are not UTF-8.
pub fn form_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hi = hex_value(*bytes.get(i + 1)?)?;
                let lo = hex_value(*bytes.get(i + 2)?)?;
                out.push(hi << 4 | lo);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Unpadded base64url (RFC 4648 §5), as PKCE and state values use.
///
/// ```
/// use fundraising_core::encoding::base64url;
/// assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
/// ```
pub fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            let index = (n >> (18 - 6 * i)) & 0x3f;
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_rfc4648_vectors() {
        // RFC 4648 §10 vectors, unpadded.
        for (input, expected) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url(input.as_bytes()), expected);
        }
        assert_eq!(base64url(&[0xff, 0xef, 0xbe]), "_---");
    }

    #[test]
    fn form_round_trip_and_errors() {
        let s = "a b+c/d?e=f&g#h é~";
        let enc = form_encode(s);
        assert_eq!(enc, "a+b%2Bc%2Fd%3Fe%3Df%26g%23h+%C3%A9~");
        assert_eq!(form_decode(&enc).as_deref(), Some(s));
        assert_eq!(path_segment_encode("a b/c"), "a%20b%2Fc");
        assert_eq!(form_decode("%41%7a").as_deref(), Some("Az"));
        for bad in ["%", "%4", "%G0", "%ff", "a%2"] {
            assert_eq!(form_decode(bad), None, "{bad}");
        }
    }
}
