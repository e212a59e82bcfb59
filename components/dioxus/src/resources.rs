//! The service's calls as `use_resource`s: run again when the signals they read change, and
//! aborted (their future dropped) when their component goes; pending where there is no
//! client (the server).

use std::future::Future;

use dioxus::prelude::*;
use fundraising_client::model::{Campaign, Donation, EventPages};
use fundraising_client::{Client, Error};

use crate::context::use_fundraising;

/// A resource of `call` on the provider's client. Dropping its task (the component goes, or
/// the resource runs again) drops the call's future, which aborts its request.
fn use_call<T, F>(mut call: impl FnMut(Client) -> F + 'static) -> Resource<Result<T, Error>>
where
    T: 'static,
    F: Future<Output = Result<T, Error>> + 'static,
{
    let client = use_fundraising().client;
    use_resource(move || {
        let call = client.read().clone().map(&mut call);
        async move {
            match call {
                Some(call) => call.await,
                None => std::future::pending().await,
            }
        }
    })
}

/// The campaign `short_name` names (read again when a signal it reads changes).
///
/// ```no_run
/// use dioxus::prelude::*;
/// use fundraising_dioxus::use_campaign;
///
/// #[component]
/// fn Raised() -> Element {
///     let campaign = use_campaign(|| "demo-campaign".to_owned());
///     let shown = match &*campaign.read() {
///         Some(Ok(c)) => rsx! { "{c.donation_summary.total_amount}" },
///         Some(Err(e)) => rsx! { "{e} ({e.code()})" },
///         None => rsx! { "Loading…" },
///     };
///     shown
/// }
/// ```
pub fn use_campaign(
    short_name: impl Fn() -> String + 'static,
) -> Resource<Result<Campaign, Error>> {
    use_call(move |client| {
        let name = short_name();
        async move { client.campaign(&name).await }
    })
}

/// The donation `reference` names (`not_found` while the service does not know it).
pub fn use_donation(reference: impl Fn() -> String + 'static) -> Resource<Result<Donation, Error>> {
    use_call(move |client| {
        let reference = reference();
        async move { client.donation(&reference).await }
    })
}

/// One page of an event's fundraising pages: `page()` gives the event id, the page (from 1)
/// and the page size, as [`Client::event_pages`] takes them.
pub fn use_event_pages(
    page: impl Fn() -> (i32, Option<u32>, Option<u32>) + 'static,
) -> Resource<Result<EventPages, Error>> {
    use_call(move |client| {
        let (event_id, page, page_size) = page();
        async move { client.event_pages(event_id, page, page_size).await }
    })
}
