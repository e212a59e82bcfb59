//! Session changes: told to the client's subscribers, and the tabs of one origin kept in step
//! through a `BroadcastChannel`: a sign-out in one tab signs the client out in every other tab,
//! and a sign-in is picked up by the others through the companion's session.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use futures_core::Stream;

use wasm_bindgen::prelude::*;
use web_sys::{BroadcastChannel, MessageEvent};

use super::{Reason, SessionChange};

/// A subscriber of session changes.
pub(crate) type Listener = Rc<dyn Fn(&SessionChange)>;

/// The client's subscribers, the streams that may wait on them, and its channel to the other
/// tabs.
pub(crate) struct SessionEvents {
    listeners: RefCell<Vec<Listener>>,
    /// The inboxes of the [`SessionChanges`] streams: when the client goes, each waiting task is
    /// woken to see the stream end.
    streams: RefCell<Vec<Weak<RefCell<Inbox>>>>,
    channel: Option<BroadcastChannel>,
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
}

impl SessionEvents {
    /// Events for the client of `app_id`. When it can sign in (`tabs`), a channel (where the
    /// platform has one) hands what other tabs did (`signin`, `signout`) to `other_tab`; the
    /// channel never keeps a Node process alive (it is `unref`ed where the platform can).
    pub(crate) fn new(app_id: &str, tabs: bool, other_tab: impl Fn(&str) + 'static) -> Self {
        let channel = tabs
            .then(|| BroadcastChannel::new(&["fundraising-client:session:", app_id].concat()).ok())
            .flatten();
        if let Some(channel) = &channel {
            if let Ok(unref) = js_sys::Reflect::get(channel, &"unref".into()) {
                if let Some(unref) = unref.dyn_ref::<js_sys::Function>() {
                    let _ = unref.call0(channel);
                }
            }
        }
        let on_message = channel.as_ref().map(|channel| {
            let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                // What one tab tells the others: the reason, as a string.
                if let Some(kind) = event.data().as_string() {
                    other_tab(&kind);
                }
            });
            channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            on_message
        });
        SessionEvents {
            listeners: RefCell::new(Vec::new()),
            streams: RefCell::new(Vec::new()),
            channel,
            _on_message: on_message,
        }
    }

    /// Adds a subscriber.
    pub(crate) fn subscribe(&self, listener: Listener) {
        self.listeners.borrow_mut().push(listener);
    }

    /// Removes a subscriber.
    pub(crate) fn unsubscribe(&self, listener: &Listener) {
        self.listeners
            .borrow_mut()
            .retain(|l| !Rc::ptr_eq(l, listener));
    }

    /// Keeps the inbox of a stream, to wake its task when the client goes (and forgets the
    /// inboxes of streams dropped meanwhile).
    fn add_stream(&self, inbox: &Rc<RefCell<Inbox>>) {
        let mut streams = self.streams.borrow_mut();
        streams.retain(|stream| stream.strong_count() > 0);
        streams.push(Rc::downgrade(inbox));
    }

    /// Tells every subscriber (those subscribed when the change happened; a subscriber may
    /// subscribe, unsubscribe or change the session again).
    pub(crate) fn dispatch(&self, change: &SessionChange) {
        let listeners = self.listeners.borrow().clone();
        for listener in listeners {
            listener(change);
        }
    }

    /// Tells the other tabs of this origin: `signin` or `signout`.
    pub(crate) fn tell_other_tabs(&self, reason: Reason) {
        if let Some(channel) = &self.channel {
            let _ = channel.post_message(&JsValue::from_str(reason.as_str()));
        }
    }
}

impl Drop for SessionEvents {
    fn drop(&mut self) {
        if let Some(channel) = &self.channel {
            channel.set_onmessage(None);
            channel.close();
        }
        // Every task waiting on a stream polls it once more, and finds it ended.
        for stream in self.streams.get_mut().drain(..) {
            let waker = stream
                .upgrade()
                .and_then(|inbox| inbox.borrow_mut().waker.take());
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

/// A subscription to session changes
/// ([`Client::on_session_change`](crate::Client::on_session_change)); dropping it
/// unsubscribes.
#[must_use = "dropping the subscription unsubscribes at once"]
pub struct Subscription {
    events: Weak<SessionEvents>,
    listener: Listener,
}

impl Subscription {
    pub(crate) fn new(events: &Rc<SessionEvents>, listener: Listener) -> Self {
        events.subscribe(listener.clone());
        Subscription {
            events: Rc::downgrade(events),
            listener,
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(events) = self.events.upgrade() {
            events.unsubscribe(&self.listener);
        }
    }
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription").finish_non_exhaustive()
    }
}

/// The changes a [`SessionChanges`] stream has not handed out yet, and who waits for them.
#[derive(Default)]
struct Inbox {
    changes: VecDeque<SessionChange>,
    waker: Option<Waker>,
}

/// Every change of the session state from now on, as a [`Stream`]
/// ([`Client::session_changes`](crate::Client::session_changes)). Dropping it unsubscribes.
/// It ends when the client is dropped.
#[must_use = "streams do nothing unless polled; dropping it unsubscribes"]
pub struct SessionChanges {
    inbox: Rc<RefCell<Inbox>>,
    subscription: Subscription,
}

impl SessionChanges {
    pub(crate) fn new(events: &Rc<SessionEvents>) -> Self {
        let inbox = Rc::new(RefCell::new(Inbox::default()));
        let listener: Listener = {
            let inbox = inbox.clone();
            Rc::new(move |change: &SessionChange| {
                let mut inbox = inbox.borrow_mut();
                inbox.changes.push_back(change.clone());
                if let Some(waker) = inbox.waker.take() {
                    waker.wake();
                }
            })
        };
        events.add_stream(&inbox);
        SessionChanges {
            inbox,
            subscription: Subscription::new(events, listener),
        }
    }
}

impl Stream for SessionChanges {
    type Item = SessionChange;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<SessionChange>> {
        let mut inbox = self.inbox.borrow_mut();
        if let Some(change) = inbox.changes.pop_front() {
            return Poll::Ready(Some(change));
        }
        if self.subscription.events.strong_count() == 0 {
            return Poll::Ready(None);
        }
        inbox.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl std::fmt::Debug for SessionChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionChanges").finish_non_exhaustive()
    }
}
