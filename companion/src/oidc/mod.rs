//! The OpenID Connect relying-party side: discovery, JWKS, id_token checks, token endpoint.

mod discovery;
mod id_token;
mod jwks;
mod loader;
mod provider;
mod ring_provider;
mod token_endpoint;

pub use discovery::ProviderMetadata;
pub use id_token::{decode_header, validate_id_token, Expectations, IdTokenClaims, LEEWAY_SECONDS};
pub use jwks::{JwkSet, VerificationKeys};
pub use provider::{client_secret_basic, now_seconds, Provider};
pub use token_endpoint::{TokenErrorBody, TokenGrant, TokenResponse};
