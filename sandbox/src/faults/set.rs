//! The faults in force: added by the configuration, `--token-delay-ms` and the test routes,
//! each met by the next requests it matches until its count runs out (then it is gone) or it
//! is removed.

use std::sync::{Mutex, MutexGuard};

use serde::Serialize;

use super::endpoint::Endpoint;
use super::spec::{Checked, Effect, FaultSpec, IdTokenFault, Respond};

/// Most faults in force at once; one more is refused.
pub const MAX_FAULTS: usize = 64;

/// A fault in force, as the test routes list it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FaultView {
    /// Its id (for `DELETE /_sandbox/faults/{id}`).
    pub id: u64,
    /// As written.
    #[serde(flatten)]
    pub spec: FaultSpec,
    /// Requests it will still meet; `null` until removed.
    pub remaining: Option<u32>,
}

#[derive(Debug)]
struct Entry {
    view: FaultView,
    checked: Checked,
}

/// What a request is, as faults match it.
#[derive(Debug, Clone, Default)]
pub struct Target<'a> {
    /// Its endpoint.
    pub endpoint: Option<Endpoint>,
    /// The application it names.
    pub app_id: Option<&'a str>,
    /// Its path.
    pub path: &'a str,
    /// Its grant type (token requests).
    pub grant_type: Option<&'a str>,
}

/// A fault met by a request: what to do to it.
#[derive(Debug, Clone, Copy)]
pub struct Met {
    /// The fault's id.
    pub id: u64,
    /// Wait first.
    pub delay: std::time::Duration,
    /// Then answer.
    pub respond: Respond,
}

/// Marks an answer shaped by a fault (a response extension the request log reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    /// The fault's id.
    pub id: u64,
    /// The connection was closed without an answer.
    pub dropped: bool,
}

/// A fault met by the token endpoint's issuing.
#[derive(Debug, Clone, Copy)]
pub struct IssueFault {
    /// The fault's id.
    pub id: u64,
    /// The id_token to issue instead of a valid one.
    pub id_token: Option<IdTokenFault>,
    /// The access token's lifetime, in seconds.
    pub expires_in: Option<u32>,
}

#[derive(Debug, Default)]
struct Inner {
    faults: Vec<Entry>,
    next_id: u64,
}

/// The faults in force, at most [`MAX_FAULTS`].
#[derive(Debug, Default)]
pub struct Faults {
    inner: Mutex<Inner>,
}

impl Faults {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Checks and adds a fault; the error says what is wrong, and nothing changes then.
    pub fn add(&self, spec: FaultSpec, applications: &[&str]) -> Result<FaultView, String> {
        let checked = spec.check(applications)?;
        let mut inner = self.lock();
        if inner.faults.len() >= MAX_FAULTS {
            return Err(format!(
                "at most {MAX_FAULTS} faults can be in force; remove some first"
            ));
        }
        inner.next_id += 1;
        let view = FaultView {
            id: inner.next_id,
            remaining: spec.times.map(|t| t as u32),
            spec,
        };
        inner.faults.push(Entry {
            view: view.clone(),
            checked,
        });
        Ok(view)
    }

    /// The faults in force, oldest first.
    pub fn list(&self) -> Vec<FaultView> {
        self.lock().faults.iter().map(|e| e.view.clone()).collect()
    }

    /// Removes every fault; returns how many there were.
    pub fn clear(&self) -> usize {
        std::mem::take(&mut self.lock().faults).len()
    }

    /// Removes one fault; false when there is none with that id.
    pub fn remove(&self, id: u64) -> bool {
        let mut inner = self.lock();
        let before = inner.faults.len();
        inner.faults.retain(|e| e.view.id != id);
        inner.faults.len() < before
    }

    /// The oldest fault `pick` accepts for `target`, counted as met once.
    fn take<T>(&self, target: &Target<'_>, pick: impl Fn(&Entry) -> Option<T>) -> Option<T> {
        let mut inner = self.lock();
        let index = inner.faults.iter().position(|e| {
            let c = &e.checked;
            Some(c.endpoint) == target.endpoint
                && c.app_id.as_deref().is_none_or(|a| Some(a) == target.app_id)
                && c.path.as_deref().is_none_or(|p| p == target.path)
                && c.grant_type
                    .as_deref()
                    .is_none_or(|g| Some(g) == target.grant_type)
                && pick(e).is_some()
        })?;
        let found = pick(&inner.faults[index]);
        let entry = &mut inner.faults[index];
        if let Some(remaining) = &mut entry.view.remaining {
            *remaining -= 1;
            if *remaining == 0 {
                inner.faults.remove(index);
            }
        }
        found
    }

    /// The fault a request meets on its way in, if any (counted as met).
    pub fn take_answer(&self, target: &Target<'_>) -> Option<Met> {
        self.take(target, |e| match e.checked.effect {
            Effect::Answer { delay, respond } => Some(Met {
                id: e.view.id,
                delay,
                respond,
            }),
            Effect::Issue { .. } => None,
        })
    }

    /// The fault a successful code exchange or refresh of `app_id` meets, if any (counted as
    /// met).
    pub fn take_issue(&self, app_id: &str, grant_type: &str) -> Option<IssueFault> {
        let target = Target {
            endpoint: Some(Endpoint::Token),
            app_id: Some(app_id),
            path: "/connect/token",
            grant_type: Some(grant_type),
        };
        self.take(&target, |e| match e.checked.effect {
            Effect::Issue {
                id_token,
                expires_in,
            } => Some(IssueFault {
                id: e.view.id,
                id_token,
                expires_in,
            }),
            Effect::Answer { .. } => None,
        })
    }
}
