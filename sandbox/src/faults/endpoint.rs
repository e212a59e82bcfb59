//! The endpoints a fault or a log entry names, and how a request is told to be one.

use fundraising_core::operation::{self, OperationId};
use percent_encoding::percent_decode_str;
use serde::{Serialize, Serializer};

/// Which listener a request came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Listener {
    /// The resource API (`{base_url}`).
    Api,
    /// The identity server (`{auth_url}`).
    Identity,
}

/// An endpoint of the service, by the name faults and the request log use: one of the
/// identity server's, or a resource operation of the table
/// ([`fundraising_core::operation::OPERATIONS`]) under its name
/// ([`fundraising_core::operation::Operation::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `GET /connect/authorize`.
    Authorize,
    /// `GET`, `POST /connect/login`.
    Login,
    /// `GET`, `POST /connect/consent`.
    Consent,
    /// `POST /connect/token` (both grants).
    Token,
    /// `POST /connect/revocation`.
    Revocation,
    /// `GET /.well-known/openid-configuration`.
    Discovery,
    /// `GET /.well-known/jwks.json`.
    Jwks,
    /// A resource operation, at its template under `/{appId}/v1`.
    Resource(OperationId),
}

impl Serialize for Endpoint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// The identity server's endpoints, in the order the docs list them.
const IDENTITY: [Endpoint; 7] = [
    Endpoint::Authorize,
    Endpoint::Login,
    Endpoint::Consent,
    Endpoint::Token,
    Endpoint::Revocation,
    Endpoint::Discovery,
    Endpoint::Jwks,
];

impl Endpoint {
    /// Every endpoint, in the order the docs list them: the identity server's, then the
    /// operations in the table's order.
    pub fn all() -> impl Iterator<Item = Endpoint> {
        IDENTITY.into_iter().chain(
            operation::OPERATIONS
                .into_iter()
                .map(|operation| Endpoint::Resource(operation.id)),
        )
    }

    /// Its name in faults and in the request log.
    pub fn name(self) -> &'static str {
        match self {
            Self::Authorize => "authorize",
            Self::Login => "login",
            Self::Consent => "consent",
            Self::Token => "token",
            Self::Revocation => "revocation",
            Self::Discovery => "discovery",
            Self::Jwks => "jwks",
            Self::Resource(id) => operation::by_id(id).name,
        }
    }

    /// The endpoint of this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::all().find(|e| e.name() == name)
    }

    /// The listener that serves it.
    pub fn listener(self) -> Listener {
        match self {
            Self::Resource(_) => Listener::Api,
            _ => Listener::Identity,
        }
    }

    /// Whether a request to it names an application (discovery and the JWKS do not).
    pub fn has_application(self) -> bool {
        !matches!(self, Self::Discovery | Self::Jwks)
    }

    /// Whether browsers call it from other origins (its answers carry CORS headers).
    pub fn cross_origin(self) -> bool {
        matches!(self, Self::Discovery | Self::Jwks) || self.listener() == Listener::Api
    }

    /// The endpoint a request to `listener` is, with the application a resource path names.
    /// A resource path is matched against the table ([`operation::find`]): its method and its
    /// template below `/{appId}/v1`.
    pub fn of(listener: Listener, method: &str, path: &str) -> Option<(Self, Option<String>)> {
        match listener {
            Listener::Identity => {
                let endpoint = match path {
                    "/connect/authorize" => Self::Authorize,
                    "/connect/login" => Self::Login,
                    "/connect/consent" => Self::Consent,
                    "/connect/token" => Self::Token,
                    "/connect/revocation" => Self::Revocation,
                    "/.well-known/openid-configuration" => Self::Discovery,
                    "/.well-known/jwks.json" => Self::Jwks,
                    _ => return None,
                };
                Some((endpoint, None))
            }
            Listener::Api => {
                let (app, below) = path.strip_prefix('/')?.split_once('/')?;
                let below = below.strip_prefix("v1")?;
                let (found, _) = operation::find(method, below)?;
                let app = percent_decode_str(app)
                    .decode_utf8()
                    .ok()
                    .map(|a| a.into_owned());
                Some((Self::Resource(found.id), app))
            }
        }
    }
}
