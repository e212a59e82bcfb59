//! One-off values of a sign-in: the GUID `nonce` and the `state`, from the caller's random bytes.

use crate::encoding::{base64url, decimal};
use crate::Error;

/// Formats 16 random bytes as a version-4 GUID (`xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`),
/// the nonce form the service recommends.
///
/// ```
/// let g = fundraising_core::nonce::guid_from_bytes(&[0xff; 16]).unwrap();
/// assert_eq!(g, "ffffffff-ffff-4fff-bfff-ffffffffffff");
/// ```
pub fn guid_from_bytes(bytes: &[u8]) -> Result<String, Error> {
    let mut b: [u8; 16] = bytes.try_into().map_err(|_| {
        Error::invalid_argument(
            "random_bytes",
            [
                "a GUID needs exactly 16 random bytes, got ",
                &decimal(bytes.len() as u64),
            ]
            .concat(),
        )
    })?;
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut guid = String::with_capacity(36);
    for (i, x) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            guid.push('-');
        }
        guid.push(char::from(HEX[usize::from(x >> 4)]));
        guid.push(char::from(HEX[usize::from(x & 0x0f)]));
    }
    Ok(guid)
}

/// Fewest random bytes accepted for a `state`.
pub const MIN_STATE_BYTES: usize = 16;

/// A `state` value: the unpadded base64url of at least 16 random bytes.
pub fn state_from_bytes(bytes: &[u8]) -> Result<String, Error> {
    if bytes.len() < MIN_STATE_BYTES {
        return Err(Error::invalid_argument(
            "random_bytes",
            [
                "a state needs at least ",
                &decimal(MIN_STATE_BYTES as u64),
                " random bytes, got ",
                &decimal(bytes.len() as u64),
            ]
            .concat(),
        ));
    }
    Ok(base64url(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_layout() {
        let g = guid_from_bytes(&[0u8; 16]).unwrap();
        assert_eq!(g, "00000000-0000-4000-8000-000000000000");
        let bytes: Vec<u8> = (0u8..16).collect();
        assert_eq!(
            guid_from_bytes(&bytes).unwrap(),
            "00010203-0405-4607-8809-0a0b0c0d0e0f"
        );
        assert!(guid_from_bytes(&[0; 15]).is_err());
        assert_eq!(
            guid_from_bytes(&[0; 17]).unwrap_err().code(),
            "invalid_argument"
        );
    }

    #[test]
    fn state_length() {
        assert_eq!(state_from_bytes(&[0; 16]).unwrap().len(), 22);
        assert!(state_from_bytes(&[0; 15]).is_err());
        assert_ne!(
            state_from_bytes(&[1; 16]).unwrap(),
            state_from_bytes(&[2; 16]).unwrap()
        );
    }
}
