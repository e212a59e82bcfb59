//! Every fundraising page summary of an event, page after page: the walk both faces share
//! ([`Pages`]), and the typed [`PageStream`].

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use fundraising_core::model::{EventPages, FundraisingPageSummary};
use fundraising_core::validate;
use futures_core::Stream;
use web_sys::AbortSignal;

use crate::http::{Browser, HttpResponse, Transport};
use crate::{api, Client, Error};

/// Default page size of a walk over every page: the largest the service allows.
pub(crate) const DEFAULT_PAGE_SIZE: u32 = 100;

/// How a face reads one page's answer: its summaries go into the buffer; it tells how many
/// there were and the number of pages, if the answer says.
pub(crate) type ReadPage<T> =
    fn(&HttpResponse, &mut VecDeque<T>) -> Result<(usize, Option<f64>), Error>;

/// Where a walk over the pages of an event stands: its client (over the transport `T`), and
/// the summaries `S` read but not yet handed out.
pub(crate) struct Pages<T: Transport, S> {
    client: Client<T>,
    event_id: i32,
    page_size: u32,
    read: ReadPage<S>,
    next_page: u32,
    buffer: VecDeque<S>,
    finished: bool,
}

impl<T: Transport, S> Pages<T, S> {
    /// A walk from page 1; `invalid_argument` at once for a bad page size.
    pub(crate) fn new(
        client: Client<T>,
        event_id: i32,
        page_size: u32,
        read: ReadPage<S>,
    ) -> Result<Self, Error> {
        Ok(Pages {
            client,
            event_id,
            page_size: validate::page_size(page_size)?,
            read,
            next_page: 1,
            buffer: VecDeque::new(),
            finished: false,
        })
    }

    /// The next summary, fetching the next page when the current one is used up; `None` at
    /// the end.
    pub(crate) async fn next(&mut self, signal: Option<&AbortSignal>) -> Result<Option<S>, Error> {
        loop {
            if let Some(item) = self.buffer.pop_front() {
                return Ok(Some(item));
            }
            if self.finished {
                return Ok(None);
            }
            let page = self.next_page;
            let response = self
                .client
                .event_pages_response(self.event_id, Some(page), Some(self.page_size), signal)
                .await?;
            let (count, total_pages) = (self.read)(&response, &mut self.buffer)?;
            self.next_page = page + 1;
            // Without a page count, a short page is the last one.
            self.finished = count == 0
                || match total_pages {
                    Some(total) if total > 0.0 => f64::from(page) >= total,
                    _ => count < self.page_size as usize,
                };
        }
    }
}

/// A typed page of the walk.
fn typed_page(
    response: &HttpResponse,
    buffer: &mut VecDeque<FundraisingPageSummary>,
) -> Result<(usize, Option<f64>), Error> {
    let pages: EventPages = api::read_model(response)?;
    let count = pages.fundraising_pages.len();
    buffer.extend(pages.fundraising_pages);
    Ok((count, Some(f64::from(pages.total_pages))))
}

/// The walk's next step: the walk back, with the next summary.
type Step<T> = Pin<
    Box<
        dyn Future<
            Output = (
                Pages<T, FundraisingPageSummary>,
                Result<Option<FundraisingPageSummary>, Error>,
            ),
        >,
    >,
>;

/// Every fundraising page summary of an event, as a [`Stream`]
/// ([`Client::event_pages_stream`]). An error ends the stream after it is yielded.
pub struct PageStream<T: Transport = Browser> {
    state: StreamState<T>,
}

enum StreamState<T: Transport> {
    Idle(Box<Pages<T, FundraisingPageSummary>>),
    Fetching(Step<T>),
    Done,
}

impl<T: Transport> Stream for PageStream<T> {
    type Item = Result<FundraisingPageSummary, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            match std::mem::replace(&mut self.state, StreamState::Done) {
                StreamState::Done => return Poll::Ready(None),
                StreamState::Idle(mut pages) => {
                    if let Some(item) = pages.buffer.pop_front() {
                        self.state = StreamState::Idle(pages);
                        return Poll::Ready(Some(Ok(item)));
                    }
                    self.state = StreamState::Fetching(Box::pin(async move {
                        let next = pages.next(None).await;
                        (*pages, next)
                    }));
                }
                StreamState::Fetching(mut step) => match step.as_mut().poll(cx) {
                    Poll::Pending => {
                        self.state = StreamState::Fetching(step);
                        return Poll::Pending;
                    }
                    Poll::Ready((pages, next)) => {
                        return Poll::Ready(match next {
                            Ok(Some(item)) => {
                                self.state = StreamState::Idle(Box::new(pages));
                                Some(Ok(item))
                            }
                            Ok(None) => None,
                            Err(e) => Some(Err(e)),
                        });
                    }
                },
            }
        }
    }
}

impl<T: Transport> std::fmt::Debug for PageStream<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageStream").finish_non_exhaustive()
    }
}

impl<T: Transport> Client<T> {
    /// Every fundraising page summary of the event, page after page (`page_size` per request,
    /// 1 to 100; 100 when `None`), as a [`Stream`]. Fails at once with `invalid_argument` for
    /// a bad page size. Dropping the stream cancels the request in flight.
    ///
    /// ```no_run
    /// # async fn run(client: fundraising_client::Client) -> Result<(), fundraising_client::Error> {
    /// use futures_util::StreamExt;
    /// let mut pages = client.event_pages_stream(1001, None)?;
    /// while let Some(page) = pages.next().await {
    ///     show(&page?.page_title);
    /// }
    /// # Ok(()) }
    /// # fn show(_: &str) {}
    /// ```
    pub fn event_pages_stream(
        &self,
        event_id: i32,
        page_size: Option<u32>,
    ) -> Result<PageStream<T>, Error> {
        let pages = Pages::new(
            self.clone(),
            event_id,
            page_size.unwrap_or(DEFAULT_PAGE_SIZE),
            typed_page,
        )?;
        Ok(PageStream {
            state: StreamState::Idle(Box::new(pages)),
        })
    }
}
