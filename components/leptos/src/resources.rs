//! The service's calls as `LocalResource`s: run in the browser only (pending on the server),
//! again when what they read changes, and aborted when their owner goes.

use std::future::Future;

use fundraising_client::model::{Campaign, Donation, EventPages};
use fundraising_client::{Client, Error};
use futures_util::future::abortable;
use leptos::prelude::*;

use crate::context::use_fundraising;

/// A resource of `call` on the provider's client. Its request is aborted when the resource's
/// owner is cleaned up (the component goes), or when it runs again.
fn resource<T, F>(call: impl Fn(Client) -> F + 'static) -> LocalResource<Result<T, Error>>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    let shared = use_fundraising();
    LocalResource::new(move || {
        // Where there is no client (the server), the resource stays pending.
        let call = shared.client().map(&call);
        let (running, handle) = abortable(async move {
            match call {
                Some(call) => call.await,
                None => std::future::pending().await,
            }
        });
        // Dropping the request's future aborts its request: cleaning this run up ends it.
        on_cleanup(move || handle.abort());
        async move { running.await.unwrap_or(Err(Error::Aborted)) }
    })
}

/// The campaign `short_name` names (read again when it changes).
///
/// ```no_run
/// use fundraising_leptos::use_campaign;
/// use leptos::prelude::*;
///
/// #[component]
/// fn Raised() -> impl IntoView {
///     let campaign = use_campaign(|| "demo-campaign".to_owned());
///     view! {
///         <Suspense fallback=|| "Loading…">
///             {move || Suspend::new(async move {
///                 campaign.await.map(|c| c.donation_summary.total_amount.to_string())
///                     .unwrap_or_else(|e| e.to_string())
///             })}
///         </Suspense>
///     }
/// }
/// ```
pub fn use_campaign(
    short_name: impl Fn() -> String + 'static,
) -> LocalResource<Result<Campaign, Error>> {
    resource(move |client| {
        let name = short_name();
        async move { client.campaign(&name).await }
    })
}

/// The donation `reference` names (`not_found` while the service does not know it).
pub fn use_donation(
    reference: impl Fn() -> String + 'static,
) -> LocalResource<Result<Donation, Error>> {
    resource(move |client| {
        let reference = reference();
        async move { client.donation(&reference).await }
    })
}

/// One page of an event's fundraising pages: `page()` gives the event id, the page (from 1)
/// and the page size, as [`Client::event_pages`] takes them.
pub fn use_event_pages(
    page: impl Fn() -> (i32, Option<u32>, Option<u32>) + 'static,
) -> LocalResource<Result<EventPages, Error>> {
    resource(move |client| {
        let (event_id, page, page_size) = page();
        async move { client.event_pages(event_id, page, page_size).await }
    })
}
