//! An in-memory service for the client's native tests: a [`Transport`] that answers each
//! request with the next of the replies a test scripted, on a clock the test moves ([`run`]
//! moves it to the next timer whenever nothing else can happen). It records every request,
//! when it was sent and whether it was cancelled.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use fundraising_client::http::{Body, HttpRequest, HttpResponse, Method};
use fundraising_client::{Error, ScriptError, Transport};
use web_sys::AbortSignal;

/// When the tests' clock starts: 2023-11-14T22:13:20Z.
pub const START_MS: f64 = 1_700_000_000_000.0;

/// A clock that only moves when [`run`] has nothing else to do: to the earliest timer.
#[derive(Default)]
pub struct Clock {
    now: Cell<f64>,
    timers: RefCell<Vec<(u64, f64)>>,
    next_id: Cell<u64>,
}

impl Clock {
    fn new() -> Self {
        let clock = Clock::default();
        clock.now.set(START_MS);
        clock
    }

    /// Milliseconds since the clock started.
    pub fn elapsed(&self) -> f64 {
        self.now.get() - START_MS
    }

    /// Waits until the clock reads `deadline`; the timer goes when the future is dropped.
    async fn until(&self, deadline: f64) {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.timers.borrow_mut().push((id, deadline));
        let _timer = Timer { clock: self, id };
        std::future::poll_fn(|_| {
            if self.now.get() >= deadline {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await
    }

    /// Moves to the earliest timer; false when there is none.
    fn advance(&self) -> bool {
        let next = self
            .timers
            .borrow()
            .iter()
            .map(|&(_, at)| at)
            .reduce(f64::min);
        match next {
            Some(at) => {
                self.now.set(self.now.get().max(at));
                true
            }
            None => false,
        }
    }

    /// How many timers are set.
    pub fn timers(&self) -> usize {
        self.timers.borrow().len()
    }
}

/// A timer of the clock, removed when its wait ends or is dropped.
struct Timer<'a> {
    clock: &'a Clock,
    id: u64,
}

impl Drop for Timer<'_> {
    fn drop(&mut self) {
        self.clock
            .timers
            .borrow_mut()
            .retain(|&(id, _)| id != self.id);
    }
}

/// Runs `future` to its end on `service`'s clock: polls it, and whenever it waits, moves the
/// clock to the next timer. Panics when it waits with no timer set (nothing could wake it).
pub fn run<F: Future>(service: &Service, future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        assert!(
            service.0.clock.advance(),
            "the future waits for nothing: it would never finish"
        );
    }
}

/// What the service does with a request.
#[derive(Clone)]
pub enum Reply {
    /// Answers with this status, body and `Retry-After` after `after_ms`.
    Answer {
        status: u16,
        body: String,
        retry_after: Option<String>,
        after_ms: f64,
    },
    /// Fails as an unreachable server does.
    Network,
    /// Never answers.
    Silent,
}

impl Reply {
    /// A `status` with a JSON `body`, at once.
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Reply::Answer {
            status,
            body: body.into(),
            retry_after: None,
            after_ms: 0.0,
        }
    }

    /// A `status` with an empty body, at once.
    pub fn status(status: u16) -> Self {
        Reply::json(status, "")
    }

    /// The answer with a `Retry-After` of `value`.
    pub fn retry_after(self, value: &str) -> Self {
        match self {
            Reply::Answer {
                status,
                body,
                after_ms,
                ..
            } => Reply::Answer {
                status,
                body,
                retry_after: Some(value.to_owned()),
                after_ms,
            },
            other => other,
        }
    }

    /// The answer `ms` later.
    pub fn after(self, ms: f64) -> Self {
        match self {
            Reply::Answer {
                status,
                body,
                retry_after,
                ..
            } => Reply::Answer {
                status,
                body,
                retry_after,
                after_ms: ms,
            },
            other => other,
        }
    }
}

/// A request as the service saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub method: Method,
    pub url: String,
    pub body: Option<String>,
    pub bearer: Option<String>,
    pub credentials: bool,
    pub csrf: bool,
    /// When it was sent, in milliseconds since the clock started.
    pub at: f64,
    /// Dropped before it was answered.
    pub cancelled: bool,
}

#[derive(Default)]
struct State {
    clock: Clock,
    replies: RefCell<VecDeque<Reply>>,
    seen: RefCell<Vec<Seen>>,
    random: Cell<f64>,
}

/// The in-memory service and its clock (clones share them).
#[derive(Clone)]
pub struct Service(Rc<State>);

impl Service {
    /// A service that answers the requests with `replies` in turn (and panics at one more),
    /// with a jitter of 0 (every backoff is half its ceiling).
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        Service(Rc::new(State {
            clock: Clock::new(),
            replies: RefCell::new(replies.into_iter().collect()),
            seen: RefCell::default(),
            random: Cell::new(0.0),
        }))
    }

    /// The requests so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.0.seen.borrow().clone()
    }

    /// When each request was sent (milliseconds since the clock started).
    pub fn times(&self) -> Vec<f64> {
        self.seen().iter().map(|seen| seen.at).collect()
    }

    /// The clock.
    pub fn clock(&self) -> &Clock {
        &self.0.clock
    }

    /// The replies not used yet.
    pub fn left(&self) -> usize {
        self.0.replies.borrow().len()
    }
}

/// Marks its request cancelled when the exchange is dropped before it ends.
struct Exchange<'a> {
    service: &'a State,
    index: usize,
    done: bool,
}

impl Drop for Exchange<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.service.seen.borrow_mut()[self.index].cancelled = true;
        }
    }
}

impl Transport for Service {
    fn fetch<'a>(
        &'a self,
        request: &'a HttpRequest<'a>,
        _signal: Option<&'a AbortSignal>,
    ) -> impl Future<Output = Result<HttpResponse, Error>> + 'a {
        let state = &*self.0;
        async move {
            let index = {
                let mut seen = state.seen.borrow_mut();
                seen.push(Seen {
                    method: request.method,
                    url: request.url.to_owned(),
                    body: request.body.map(str::to_owned),
                    bearer: request.bearer.map(str::to_owned),
                    credentials: request.credentials,
                    csrf: request.csrf,
                    at: state.clock.elapsed(),
                    cancelled: false,
                });
                seen.len() - 1
            };
            let mut exchange = Exchange {
                service: state,
                index,
                done: false,
            };
            let reply = state.replies.borrow_mut().pop_front();
            let reply = reply.unwrap_or_else(|| panic!("no reply left for {}", request.url));
            let outcome = match reply {
                Reply::Answer {
                    status,
                    body,
                    retry_after,
                    after_ms,
                } => {
                    state.clock.until(state.clock.now.get() + after_ms).await;
                    let response = HttpResponse::new(status, Body::from_text(body));
                    Ok(match retry_after {
                        Some(value) => response.with_retry_after(value),
                        None => response,
                    })
                }
                Reply::Network => Err(Error::Network(ScriptError::new(
                    "TypeError",
                    "Failed to fetch",
                ))),
                Reply::Silent => std::future::pending().await,
            };
            exchange.done = true;
            outcome
        }
    }

    fn now_ms(&self) -> f64 {
        self.0.clock.now.get()
    }

    fn sleep<'a>(
        &'a self,
        ms: u32,
        _signal: Option<&'a AbortSignal>,
    ) -> impl Future<Output = Result<(), Error>> + 'a {
        let clock = &self.0.clock;
        async move {
            clock.until(clock.now.get() + f64::from(ms)).await;
            Ok(())
        }
    }

    fn random(&self) -> f64 {
        self.0.random.get()
    }
}
