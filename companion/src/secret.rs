//! A string that must never be printed: the client secret, tokens, codes (core's type).

pub use fundraising_core::secret::Secret;
