//! Refreshing a session: one upstream refresh per refresh token at a time (per instance, or
//! across instances through Redis), rotations followed to the newest state.

use crate::answer::token_answer;
use crate::config::Settings;
use crate::error::Error;
use crate::metrics::{Metrics, RefreshOutcome};
use crate::oidc::{Provider, TokenGrant};
use crate::session::{FlightError, Part, SessionData, SharedFlight, SingleFlight};
use crate::telemetry;
use fundraising_core::companion::TokenAnswer;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Most rotations followed for one late request (each is a refresh within the grace period).
const MAX_CHAIN: usize = 32;

/// The outcome of one upstream refresh, shared by all requests of the flight (sealed with
/// the cookie key when it goes through Redis).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Refreshed {
    /// What the page receives.
    pub answer: TokenAnswer,
    /// The session with the rotated refresh token.
    pub session: SessionData,
}

/// What a refresh upstream needs: the identity server's client and whether the companion
/// runs in BFF mode (then the access token stays in the session).
#[derive(Clone)]
pub struct Upstream {
    /// The identity server's client.
    pub provider: Arc<Provider>,
    /// BFF mode.
    pub bff: bool,
}

async fn refresh_upstream(upstream: Upstream, session: SessionData) -> Result<Refreshed, Error> {
    let provider = &upstream.provider;
    let grant = TokenGrant::RefreshToken {
        refresh_token: &session.refresh_token,
        redirect_uri: &session.redirect_uri,
    };
    let tokens = provider.token(grant).await?;
    let mut profile = session.profile.clone();
    if let Some(id_token) = &tokens.id_token {
        // jsonwebtoken refuses an id_token naming another user (`sub`).
        let claims = provider
            .check_id_token(id_token, None, Some(&session.profile.sub))
            .await?;
        let fresh = claims.profile();
        profile.name = fresh.name.or(profile.name);
        profile.email = fresh.email.or(profile.email);
    }
    let bff = upstream.bff;
    let answer = token_answer(&tokens, profile.clone(), session.scope.clone(), bff);
    let session = SessionData {
        access_token: bff.then(|| tokens.access_token.clone()),
        expires_at: bff.then_some(answer.expires_at),
        refresh_token: tokens
            .refresh_token
            .clone()
            .unwrap_or(session.refresh_token),
        redirect_uri: session.redirect_uri,
        profile,
        scope: answer.scope.clone(),
        sid: session.sid,
        until: None,
    };
    Ok(Refreshed { answer, session })
}

/// A refresh failure as shared through Redis with the other requests of its flight.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub enum SharedFailure {
    /// The identity server refused the refresh token.
    SessionExpired,
    /// The identity server did not answer in time.
    UpstreamTimeout,
    /// The new id_token failed a check (logged by the instance that ran the refresh).
    IdTokenInvalid,
    /// Anything else: the identity server could not be used.
    UpstreamUnavailable,
}

impl From<Error> for SharedFailure {
    fn from(error: Error) -> Self {
        match error {
            Error::SessionExpired => SharedFailure::SessionExpired,
            Error::UpstreamTimeout => SharedFailure::UpstreamTimeout,
            Error::IdTokenInvalid(_) => SharedFailure::IdTokenInvalid,
            _ => SharedFailure::UpstreamUnavailable,
        }
    }
}

impl From<SharedFailure> for Error {
    fn from(failure: SharedFailure) -> Self {
        match failure {
            SharedFailure::SessionExpired => Error::SessionExpired,
            SharedFailure::UpstreamTimeout => Error::UpstreamTimeout,
            SharedFailure::IdTokenInvalid => Error::IdTokenInvalid("shared"),
            SharedFailure::UpstreamUnavailable => Error::UpstreamUnavailable,
        }
    }
}

/// What a refresh flight stored in Redis ends with.
pub type SharedOutcome = Result<Refreshed, SharedFailure>;

impl From<FlightError> for Error {
    fn from(error: FlightError) -> Self {
        match error {
            FlightError::StoreUnavailable => Error::SessionStoreUnavailable,
            FlightError::TimedOut => Error::UpstreamTimeout,
            FlightError::Lost => Error::UpstreamUnavailable,
        }
    }
}

/// Where the flights are kept: per instance (in memory), or shared by every instance
/// through Redis (`--redis-url`).
enum Flights {
    /// Concurrent refreshes of one session share a call within this instance.
    Local(SingleFlight<Result<Refreshed, Error>>),
    /// ... within every instance using the same Redis and cookie key.
    Shared(Box<SharedFlight<SharedOutcome>>),
}

/// Most refresh tokens remembered as rotated by this instance (for telling reuse from expiry).
const MAX_ROTATED: usize = 10_000;

/// The hashes of the refresh tokens this instance rotated last (at most [`MAX_ROTATED`], the
/// oldest forgotten first): when the identity server refuses one of them later, a used token
/// came back after the grace window.
#[derive(Default)]
struct Rotated {
    seen: Mutex<Hashes>,
}

/// A set of token hashes, and their order of arrival.
type Hashes = (HashSet<[u8; 32]>, VecDeque<[u8; 32]>);

impl Rotated {
    fn hash(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }

    fn remember(&self, token: &str) {
        let hash = Self::hash(token);
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let (set, order) = &mut *seen;
        if set.insert(hash) {
            order.push_back(hash);
            if order.len() > MAX_ROTATED {
                if let Some(oldest) = order.pop_front() {
                    set.remove(&oldest);
                }
            }
        }
    }

    fn contains(&self, token: &str) -> bool {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.0.contains(&Self::hash(token))
    }
}

/// The refresh flights, and what this instance remembers of the tokens it rotated.
pub struct RefreshFlights {
    flights: Flights,
    rotated: Rotated,
    metrics: Option<Arc<Metrics>>,
}

impl RefreshFlights {
    /// Shared through Redis when the settings name one, else per instance; outcomes are
    /// counted in `metrics`.
    pub fn new(settings: &Settings, metrics: Option<Arc<Metrics>>) -> Result<Self, Error> {
        let grace = settings.refresh_grace;
        let flights = match &settings.redis_url {
            None => Flights::Local(
                SingleFlight::new(grace, |r: &Result<Refreshed, Error>| r.is_ok())
                    .with_clock(settings.clock.clone()),
            ),
            Some(url) => {
                // A claim outlives the longest refresh: discovery, token and JWKS calls, each
                // bounded by the upstream timeout.
                let lock = settings.upstream_timeout * 3 + Duration::from_secs(2);
                let group = SharedFlight::new(
                    url.expose(),
                    settings.cookie_key.clone(),
                    grace,
                    lock,
                    |r: &SharedOutcome| r.is_ok(),
                    metrics.clone(),
                    settings.clock.clone(),
                )
                .map_err(|_| Error::Config("--redis-url is not a usable Redis address".into()))?;
                Flights::Shared(Box::new(group))
            }
        };
        Ok(Self {
            flights,
            rotated: Rotated::default(),
            metrics,
        })
    }

    /// Whether the shared store answers (`None` without `--redis-url`).
    pub async fn store_answers(&self) -> Option<bool> {
        match &self.flights {
            Flights::Local(_) => None,
            Flights::Shared(group) => Some(group.ping().await),
        }
    }

    /// The outcome of the flight for `key`, started with `session` unless one runs (or ran
    /// within the grace period), and how this request took part in it.
    async fn run(
        &self,
        upstream: &Upstream,
        key: &str,
        session: SessionData,
    ) -> (Result<Refreshed, Error>, Part) {
        let flight_state = upstream.clone();
        // The upstream calls run in a task of their own: they stay part of this request.
        let call = move || telemetry::carry(refresh_upstream(flight_state, session));
        match &self.flights {
            Flights::Local(group) => match group.run(key, call).await {
                Some((outcome, part)) => (outcome, part),
                None => (Err(Error::UpstreamUnavailable), Part::Ran),
            },
            Flights::Shared(group) => {
                let shared = group
                    .run(key, move || async move {
                        call().await.map_err(SharedFailure::from)
                    })
                    .await;
                match shared {
                    Ok((outcome, part)) => (outcome.map_err(Error::from), part),
                    Err(error) => (Err(error.into()), Part::Ran),
                }
            }
        }
    }

    /// The successful outcome of a running or recent flight for `key`; never starts one.
    async fn joined(&self, key: &str) -> Result<Option<Refreshed>, Error> {
        Ok(match &self.flights {
            Flights::Local(group) => group.joined(key).await.and_then(Result::ok),
            Flights::Shared(group) => group.joined(key).await?.and_then(Result::ok),
        })
    }

    /// Counts the outcome of a refresh request for the token `key`, and remembers a token
    /// this request rotated.
    fn account(&self, key: &str, outcome: &Result<Refreshed, Error>, part: Part) {
        if let (Ok(refreshed), Part::Ran) = (outcome, part) {
            if refreshed.session.refresh_token.expose() != key {
                self.rotated.remember(key);
            }
        }
        let Some(metrics) = &self.metrics else {
            return;
        };
        metrics.refresh(match (outcome, part) {
            (Ok(_), Part::Ran) => RefreshOutcome::Rotated,
            (Ok(_), Part::Joined) => RefreshOutcome::Joined,
            (Ok(_), Part::Late) => RefreshOutcome::Grace,
            (Err(Error::SessionExpired), _) if self.rotated.contains(key) => {
                RefreshOutcome::ReuseDetected
            }
            (Err(Error::SessionExpired), _) => RefreshOutcome::Refused,
            (Err(_), _) => RefreshOutcome::Failed,
        });
    }

    /// The newest state of the session whose refresh token is `key`: refreshed once for all
    /// concurrent requests, then followed along the rotations made since (cookie 1 gave
    /// cookie 2, which gave cookie 3), so a late request never gets a used refresh token.
    ///
    /// Once a refresh is in hand it is answered: if Redis fails while the rotations are
    /// followed, the state reached so far is the answer (the identity server has rotated the
    /// token; dropping its answer would sign the user out).
    pub async fn newest(
        &self,
        upstream: &Upstream,
        session: SessionData,
    ) -> Result<Refreshed, Error> {
        let key = session.refresh_token.expose().to_owned();
        let (outcome, part) = self.run(upstream, &key, session).await;
        self.account(&key, &outcome, part);
        if let Err(Error::SessionExpired) = &outcome {
            if self.rotated.contains(&key) {
                tracing::warn!(
                    "a refresh token this instance had rotated came back after the grace window; \
                     the identity server refused it"
                );
            }
        }
        let mut refreshed = outcome?;
        let mut current = key;
        for _ in 0..MAX_CHAIN {
            let next = refreshed.session.refresh_token.expose().to_owned();
            if next == current {
                // The identity server did not rotate the token: this is the newest state.
                break;
            }
            match self.joined(&next).await {
                Ok(Some(newer)) => refreshed = newer,
                Ok(None) => break,
                Err(error) => {
                    tracing::warn!(
                        code = error.code(),
                        "later rotations of a refreshed session could not be looked up; answering the refresh in hand"
                    );
                    break;
                }
            }
            current = next;
        }
        Ok(refreshed)
    }
}
