//! The idle timeout of an accepted socket: a read or a write that waits longer than the
//! timeout without progress fails with `TimedOut`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{sleep_until, Instant, Sleep};

/// A socket whose reads and writes each time out after `timeout` without progress.
///
/// The clock of a direction starts when an operation has to wait and stops when one makes
/// progress. Stopping it leaves the timer where it is (only a flag changes), and starting it
/// again moves the timer later, which tokio does without touching its timer wheel. This guards
/// the cost of a request: a timer moved to "now" on every completed read would be filed in the
/// wheel as due, waking the runtime's thread (an eventfd write) and again a millisecond later
/// to file it back at its real deadline.
///
/// Must be created inside the runtime that will poll it (its timers belong to that runtime).
pub(crate) struct IdleTimeout<S> {
    inner: S,
    timeout: Duration,
    read: Clock,
    write: Clock,
}

/// One direction's timer.
struct Clock {
    timer: Pin<Box<Sleep>>,
    running: bool,
}

impl Clock {
    fn new() -> Self {
        Self {
            timer: Box::pin(sleep_until(Instant::now())),
            running: false,
        }
    }

    /// The operation had to wait: starts the clock (if stopped) and fails once it has run for
    /// `timeout`.
    fn poll_waited(&mut self, cx: &mut Context<'_>, timeout: Duration) -> io::Result<()> {
        if !self.running {
            self.timer.as_mut().reset(Instant::now() + timeout);
            self.running = true;
        }
        match self.timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.running = false;
                Err(io::ErrorKind::TimedOut.into())
            }
            Poll::Pending => Ok(()),
        }
    }

    /// The operation made progress (or failed): stops the clock. A timer that fires while
    /// stopped only wakes the task, which polls again.
    fn progressed(&mut self) {
        self.running = false;
    }

    /// Accounts for the outcome `poll` of an operation.
    fn track<T>(
        &mut self,
        cx: &mut Context<'_>,
        timeout: Duration,
        poll: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match poll {
            Poll::Pending => {
                self.poll_waited(cx, timeout)?;
                Poll::Pending
            }
            ready => {
                self.progressed();
                ready
            }
        }
    }
}

impl<S> IdleTimeout<S> {
    /// `inner` with `timeout` on its reads and on its writes.
    pub(crate) fn new(inner: S, timeout: Duration) -> Self {
        Self {
            inner,
            timeout,
            read: Clock::new(),
            write: Clock::new(),
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for IdleTimeout<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        this.read.track(cx, this.timeout, poll)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.write.track(cx, this.timeout, poll)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.write.track(cx, this.timeout, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_flush(cx);
        this.write.track(cx, this.timeout, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.write.track(cx, this.timeout, poll)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_read_without_progress_times_out_and_progress_restarts_the_clock() {
        let (client, server) = tokio::io::duplex(64);
        let mut server = IdleTimeout::new(server, Duration::from_secs(10));
        let mut client = client;
        let mut buf = [0u8; 8];
        // Data within the timeout, twice, 9 s apart: never 10 s without progress.
        for _ in 0..2 {
            let reading = server.read(&mut buf);
            let writing = async {
                tokio::time::sleep(Duration::from_secs(9)).await;
                client.write_all(b"x").await.unwrap();
            };
            let (read, ()) = tokio::join!(reading, writing);
            assert_eq!(read.unwrap(), 1);
        }
        // Then nothing: the read fails after 10 s, not before.
        let started = Instant::now();
        let error = server.read(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(10) && waited < Duration::from_millis(10_010),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_write_the_peer_does_not_read_times_out() {
        let (client, server) = tokio::io::duplex(16);
        let mut server = IdleTimeout::new(server, Duration::from_secs(5));
        let started = Instant::now();
        let error = server.write_all(&[0u8; 64]).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(5) && waited < Duration::from_millis(5_010),
            "{waited:?}"
        );
        drop(client);
    }
}
