//! A fault as a test writes it (JSON on `POST /_sandbox/faults`, or a `[[faults]]` table), and
//! its checked form.

use std::time::Duration;

use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use super::endpoint::Endpoint;

/// Longest `delay_ms` of a fault (2 minutes).
pub const MAX_FAULT_DELAY_MS: u64 = 120_000;
/// Longest `retry_after` of a fault, in seconds (a day).
pub const MAX_RETRY_AFTER_SECS: u32 = 86_400;

/// A fault as written: which requests it meets, what it does to them, and how often.
///
/// ```toml
/// [[faults]]
/// endpoint = "pages"      # which endpoint (see the docs' list)
/// status = 503            # answered instead, in the endpoint's error shape
/// retry_after = 1         # with Retry-After: 1
/// times = 2               # the next two requests; without it, until removed
/// ```
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    /// The endpoint it meets: `authorize`, `login`, `consent`, `token`, `revocation`,
    /// `discovery`, `jwks`, `campaign`, `donation`, `create_event` or `pages`.
    pub endpoint: String,
    /// `token` only: `authorization_code` (sign-ins) or `refresh_token` (refreshes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_type: Option<String>,
    /// Only requests of this application.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_id: Option<String>,
    /// Only requests to exactly this path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The next this many requests it meets; without it, every one until it is removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<i64>,
    /// Answer with this status (200-299 or 400-599) instead of the endpoint's own answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i64>,
    /// With `status`: a `Retry-After` header of this many seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<i64>,
    /// The body: `error` (with `status`, the default: the endpoint's error shape), `html`
    /// (with `status`: an HTML error page, as a proxy sends), `empty` (with `status`), or
    /// `truncated` (without `status`: the endpoint's own answer cut in half).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Wait this many milliseconds first (at most [`MAX_FAULT_DELAY_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<i64>,
    /// Close the connection without an answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drop: bool,
    /// `token` only: issue an id_token a relying party must refuse: `unknown_key`,
    /// `alg_none`, `hs256`, `wrong_iss`, `wrong_aud`, `missing_azp`, `wrong_azp`, `expired`
    /// or `wrong_nonce`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
    /// `token` only: issue access tokens that live this many seconds (`expires_in`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<i64>,
}

/// An id_token a relying party must refuse (the OpenID Connect Basic RP checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdTokenFault {
    /// Signed by a key that is not in the JWKS.
    UnknownKey,
    /// `alg: none`, no signature.
    AlgNone,
    /// HS256, keyed with the public key (the algorithm-confusion attack).
    Hs256,
    /// Another `iss`.
    WrongIss,
    /// Another `aud`.
    WrongAud,
    /// A second audience, and no `azp`.
    MissingAzp,
    /// A second audience, and an `azp` that is that other application.
    WrongAzp,
    /// Expired an hour ago.
    Expired,
    /// Another `nonce` than the sign-in's.
    WrongNonce,
}

impl IdTokenFault {
    /// Every kind, by name.
    pub const ALL: [(&'static str, IdTokenFault); 9] = [
        ("unknown_key", Self::UnknownKey),
        ("alg_none", Self::AlgNone),
        ("hs256", Self::Hs256),
        ("wrong_iss", Self::WrongIss),
        ("wrong_aud", Self::WrongAud),
        ("missing_azp", Self::MissingAzp),
        ("wrong_azp", Self::WrongAzp),
        ("expired", Self::Expired),
        ("wrong_nonce", Self::WrongNonce),
    ];
}

/// The body of a fault's own answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// The endpoint's error shape.
    Error,
    /// An HTML error page.
    Html,
    /// No body.
    Empty,
}

/// What a fault answers instead of (or after) the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Respond {
    /// The endpoint's own answer.
    Endpoint,
    /// A status of the fault's own.
    Status {
        /// The status.
        status: StatusCode,
        /// `Retry-After`, in seconds.
        retry_after: Option<u32>,
        /// Its body.
        body: BodyKind,
    },
    /// The endpoint's own answer, its body cut in half.
    Truncated,
    /// No answer: the connection is closed.
    Drop,
}

/// What a checked fault does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// To the request, on its way in and out.
    Answer {
        /// Wait first.
        delay: Duration,
        /// Then answer.
        respond: Respond,
    },
    /// To the tokens the token endpoint issues.
    Issue {
        /// The id_token.
        id_token: Option<IdTokenFault>,
        /// The access token's lifetime, in seconds.
        expires_in: Option<u32>,
    },
}

/// A checked fault: what it meets and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The grant type (token only).
    pub grant_type: Option<String>,
    /// The application.
    pub app_id: Option<String>,
    /// The exact path.
    pub path: Option<String>,
    /// What it does.
    pub effect: Effect,
}

impl FaultSpec {
    /// Checks the fault against the rules above and the registered applications; the error
    /// says what is wrong, for a 400 or a configuration error.
    pub fn check(&self, applications: &[&str]) -> Result<Checked, String> {
        let endpoint = Endpoint::from_name(&self.endpoint).ok_or_else(|| {
            let names: Vec<&str> = Endpoint::all().map(Endpoint::name).collect();
            format!(
                "unknown endpoint {:?}; use one of {}",
                self.endpoint,
                names.join(", ")
            )
        })?;
        let token_only = |what: &str| -> Result<(), String> {
            if endpoint == Endpoint::Token {
                Ok(())
            } else {
                Err(format!("{what} applies to the token endpoint only"))
            }
        };
        if let Some(grant) = &self.grant_type {
            token_only("grant_type")?;
            if grant != "authorization_code" && grant != "refresh_token" {
                return Err(format!(
                    "grant_type {grant:?} must be authorization_code or refresh_token"
                ));
            }
        }
        if let Some(app) = &self.app_id {
            if !endpoint.has_application() {
                return Err(format!("{} names no application", endpoint.name()));
            }
            if !applications.contains(&app.as_str()) {
                return Err(format!("app_id {app:?} is not a registered application"));
            }
        }
        if let Some(path) = &self.path {
            if !path.starts_with('/') || path.len() > 1024 {
                return Err("path must start with / and be at most 1024 bytes".into());
            }
        }
        if self
            .times
            .is_some_and(|t| !(1..=i64::from(u32::MAX)).contains(&t))
        {
            return Err(format!(
                "times must be 1 to {} (leave it out for a fault until removed)",
                u32::MAX
            ));
        }
        let delay_ms = self.delay_ms.unwrap_or(0);
        if !(0..=MAX_FAULT_DELAY_MS as i64).contains(&delay_ms) {
            return Err(format!("delay_ms must be 0 to {MAX_FAULT_DELAY_MS}"));
        }
        let delay_ms = delay_ms as u64;
        if self
            .retry_after
            .is_some_and(|s| !(0..=i64::from(MAX_RETRY_AFTER_SECS)).contains(&s))
        {
            return Err(format!(
                "retry_after must be 0 to {MAX_RETRY_AFTER_SECS} seconds"
            ));
        }
        let retry_after = self.retry_after.map(|s| s as u32);
        let issue = self.id_token.is_some() || self.expires_in.is_some();
        if issue {
            token_only(if self.id_token.is_some() {
                "id_token"
            } else {
                "expires_in"
            })?;
            if self.status.is_some() || self.body.is_some() || self.drop || delay_ms > 0 {
                return Err(
                    "id_token and expires_in change the tokens issued; they cannot be combined with status, body, drop or delay_ms (add a second fault)"
                        .into(),
                );
            }
            let id_token = match &self.id_token {
                None => None,
                Some(name) => Some(
                    IdTokenFault::ALL
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, kind)| *kind)
                        .ok_or_else(|| {
                            let names: Vec<&str> =
                                IdTokenFault::ALL.iter().map(|(n, _)| *n).collect();
                            format!(
                                "unknown id_token fault {name:?}; use one of {}",
                                names.join(", ")
                            )
                        })?,
                ),
            };
            if self.expires_in.is_some_and(|s| !(1..=3600).contains(&s)) {
                return Err("expires_in must be 1 to 3600 seconds".into());
            }
            return Ok(self.checked(
                endpoint,
                Effect::Issue {
                    id_token,
                    expires_in: self.expires_in.map(|s| s as u32),
                },
            ));
        }
        let respond = match (self.status, self.body.as_deref(), self.drop) {
            (None, None, true) => Respond::Drop,
            (_, _, true) => {
                return Err("drop closes the connection; it takes no status or body".into())
            }
            (None, Some("truncated"), false) => Respond::Truncated,
            (Some(_), Some("truncated"), false) => {
                return Err(
                    "body truncated cuts the endpoint's own answer; it takes no status".into(),
                )
            }
            (None, Some(_), false) => return Err("body needs a status (except truncated)".into()),
            (None, None, false) if self.retry_after.is_some() => {
                return Err("retry_after needs a status".into())
            }
            (None, None, false) if delay_ms == 0 => return Err(
                "the fault does nothing: give status, body, delay_ms, drop, id_token or expires_in"
                    .into(),
            ),
            (None, None, false) => Respond::Endpoint,
            (Some(status), body, false) => {
                let valid = matches!(status, 200..=299 | 400..=599);
                let status = u16::try_from(status)
                    .ok()
                    .and_then(|s| StatusCode::from_u16(s).ok())
                    .filter(|_| valid)
                    .ok_or_else(|| format!("status {status} must be 200-299 or 400-599"))?;
                let body = match body {
                    None | Some("error") => BodyKind::Error,
                    Some("html") => BodyKind::Html,
                    Some("empty") => BodyKind::Empty,
                    Some(other) => {
                        return Err(format!(
                            "body {other:?} must be error, html, empty or truncated"
                        ))
                    }
                };
                Respond::Status {
                    status,
                    retry_after,
                    body,
                }
            }
        };
        if self.retry_after.is_some() && !matches!(respond, Respond::Status { .. }) {
            return Err("retry_after needs a status".into());
        }
        Ok(self.checked(
            endpoint,
            Effect::Answer {
                delay: Duration::from_millis(delay_ms),
                respond,
            },
        ))
    }

    fn checked(&self, endpoint: Endpoint, effect: Effect) -> Checked {
        Checked {
            endpoint,
            grant_type: self.grant_type.clone(),
            app_id: self.app_id.clone(),
            path: self.path.clone(),
            effect,
        }
    }
}
