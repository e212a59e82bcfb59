//! The endpoints a fault or a log entry names, and how a request is told to be one.

use percent_encoding::percent_decode_str;
use serde::Serialize;

/// Which listener a request came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Listener {
    /// The resource API (`{base_url}`).
    Api,
    /// The identity server (`{auth_url}`).
    Identity,
}

/// An endpoint of the service, by the name faults and the request log use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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
    /// `GET /{appId}/v1/campaign/byshortname/{shortName}`.
    Campaign,
    /// `GET /{appId}/v1/donation/ref/{reference}`.
    Donation,
    /// `POST /{appId}/v1/event/`.
    CreateEvent,
    /// `GET /{appId}/v1/event/{eventId}/pages`.
    Pages,
}

impl Endpoint {
    /// Every endpoint, in the order the docs list them.
    pub const ALL: [Endpoint; 11] = [
        Self::Authorize,
        Self::Login,
        Self::Consent,
        Self::Token,
        Self::Revocation,
        Self::Discovery,
        Self::Jwks,
        Self::Campaign,
        Self::Donation,
        Self::CreateEvent,
        Self::Pages,
    ];

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
            Self::Campaign => "campaign",
            Self::Donation => "donation",
            Self::CreateEvent => "create_event",
            Self::Pages => "pages",
        }
    }

    /// The endpoint of this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The listener that serves it.
    pub fn listener(self) -> Listener {
        match self {
            Self::Campaign | Self::Donation | Self::CreateEvent | Self::Pages => Listener::Api,
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
                let segments: Vec<&str> = path.strip_prefix('/')?.split('/').collect();
                let endpoint = match segments.as_slice() {
                    [_, "v1", "campaign", "byshortname", _] => Self::Campaign,
                    [_, "v1", "donation", "ref", _] => Self::Donation,
                    [_, "v1", "event"] | [_, "v1", "event", ""] if method == "POST" => {
                        Self::CreateEvent
                    }
                    [_, "v1", "event", _, "pages"] => Self::Pages,
                    _ => return None,
                };
                let app = percent_decode_str(segments[0])
                    .decode_utf8()
                    .ok()
                    .map(|a| a.into_owned());
                Some((endpoint, app))
            }
        }
    }
}
