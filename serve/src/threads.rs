//! Connection threads: one single-threaded tokio runtime per thread, each serving whole
//! connections.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use tokio::runtime::{Builder, Handle};
use tokio::sync::watch;

/// Threads that each run a current-thread tokio runtime, for [`serve_on`](crate::serve_on).
///
/// Each accepted connection is handed to the next thread in turn and stays there: its socket,
/// its timers, its request handlers and whatever they spawn (an HTTP client's connection task,
/// say) run on that one thread. A request is then never passed between threads, which a
/// work-stealing runtime does at every wake-up (the other worker is woken, and may take the
/// task), and which costs more than the work itself on a short request. Several threads keep
/// several cores busy when there are several connections.
///
/// Dropping it stops the threads; tasks still running on them are dropped.
///
/// ```
/// let threads = fundraising_serve::ConnectionThreads::new(2).unwrap();
/// assert_eq!(threads.len(), 2);
/// ```
#[derive(Debug)]
pub struct ConnectionThreads {
    handles: Vec<Handle>,
    next: AtomicUsize,
    stop: Option<watch::Sender<()>>,
    threads: Vec<JoinHandle<()>>,
}

impl ConnectionThreads {
    /// Starts `count` threads (at least one), named `serve-1`, `serve-2`, ...
    pub fn new(count: usize) -> io::Result<Self> {
        let (stop, stopped) = watch::channel(());
        let mut handles = Vec::new();
        let mut threads = Vec::new();
        for i in 1..=count.max(1) {
            let runtime = Builder::new_current_thread().enable_all().build()?;
            handles.push(runtime.handle().clone());
            let mut stopped = stopped.clone();
            let thread = std::thread::Builder::new()
                .name(format!("serve-{i}"))
                .spawn(move || {
                    // Drives the runtime's tasks until the sender is dropped.
                    runtime.block_on(async move { while stopped.changed().await.is_ok() {} });
                    runtime.shutdown_background();
                })?;
            threads.push(thread);
        }
        Ok(Self {
            handles,
            next: AtomicUsize::new(0),
            stop: Some(stop),
            threads,
        })
    }

    /// One thread per core (as `std::thread::available_parallelism` counts them; one if
    /// unknown).
    pub fn per_core() -> io::Result<Self> {
        Self::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// How many threads there are.
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    /// Whether there is no thread (never: there is at least one).
    pub fn is_empty(&self) -> bool {
        self.handles.is_empty()
    }

    /// The runtime of the thread whose turn it is.
    pub(crate) fn next(&self) -> &Handle {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.handles.len();
        &self.handles[i]
    }
}

impl Drop for ConnectionThreads {
    fn drop(&mut self) {
        drop(self.stop.take());
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}
