//! The OpenID Connect identity server (`{auth_url}`).

mod authorize;
mod discovery;
mod headless;
mod html;
mod id_token;
mod interaction;
mod oauth_error;
mod redirect;
mod token;

use axum::http::{header, Method};
use axum::routing::{any, get};
use axum::Router;
use tower_http::cors::{Any, CorsLayer};

use crate::state::Sandbox;

pub use authorize::MAX_PARAM_LEN as MAX_AUTHORIZE_PARAM_LEN;
pub use headless::sign_in as headless_sign_in;
pub(crate) use html::error_page;
pub use id_token::OTHER_AUDIENCE;
pub use oauth_error::OAuthError;
pub use token::MAX_BODY_BYTES as MAX_TOKEN_BODY_BYTES;

/// Name of the login-session cookie (distinct from any cookie of the companion, which may
/// share the host).
pub const SESSION_COOKIE: &str = "fundraising_sandbox_login";

/// Path of the RFC 7009 revocation endpoint.
pub const REVOCATION_PATH: &str = "/connect/revocation";

/// Path of the JWKS document.
pub const JWKS_PATH: &str = "/.well-known/jwks.json";

/// The identity server's routes: discovery, JWKS, authorize, login, consent, token and
/// revocation.
pub fn routes() -> Router<Sandbox> {
    let public = Router::new()
        .route(
            "/.well-known/openid-configuration",
            get(discovery::configuration),
        )
        .route(JWKS_PATH, get(discovery::jwks))
        .layer(
            CorsLayer::new()
                .allow_origin(Any)
                .allow_methods([Method::GET])
                .allow_headers([header::CONTENT_TYPE]),
        );
    Router::new()
        .route("/connect/authorize", get(authorize::authorize))
        .route(
            "/connect/login",
            get(interaction::login_page).post(interaction::login),
        )
        .route(
            "/connect/consent",
            get(interaction::consent_page).post(interaction::consent),
        )
        .route(html::STYLESHEET_PATH, get(html::stylesheet))
        .route(html::FAVICON_PATH, get(html::favicon))
        .route("/connect/token", any(token::token))
        .route(REVOCATION_PATH, any(token::revocation))
        .merge(public)
        .fallback(html::not_found)
}
