//! Random values from the platform's cryptographic source (getrandom: `crypto.getRandomValues`).

use crate::Error;

/// `N` cryptographically random bytes.
pub(crate) fn random<const N: usize>() -> Result<[u8; N], Error> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)
        .map_err(|_| Error::Unsupported("no cryptographic random source"))?;
    Ok(bytes)
}

/// A fresh, unguessable third-party reference for the simple donation integration: a GUID
/// made by core from 16 random bytes. Send the donor to the donation page with it, then wait
/// for the donation by it ([`Client::wait_for_donation`](crate::Client::wait_for_donation)).
pub fn new_donation_reference() -> Result<String, Error> {
    Ok(fundraising_core::nonce::guid_from_bytes(&random::<16>()?)?)
}
