//! The client's logic on the host, without a browser: every request goes to an in-memory
//! service ([`memory::Service`], the client's [`Transport`](fundraising_client::Transport)) and
//! every wait runs on its clock, which moves only when nothing else can happen. Retries and
//! their backoff, `Retry-After`, timeouts, cancelling, BFF mode, the paths built from core's
//! operation table, the donation wait and the page walk.
#![cfg(not(target_arch = "wasm32"))]

mod memory;

mod donation;
mod pages;
mod requests;
mod retry;

use fundraising_client::{Client, ClientOptions};
use memory::{Reply, Service};

/// The service's base address in these tests.
const BASE: &str = "http://127.0.0.1:9/";

/// A client of the application `app` at [`BASE`] over `service`.
fn client(service: &Service) -> Client<Service> {
    Client::with_transport(ClientOptions::new("app", BASE), service.clone()).unwrap()
}

/// A service answering `replies` in turn, and a client over it.
fn serve(replies: impl IntoIterator<Item = Reply>) -> (Service, Client<Service>) {
    let service = Service::new(replies);
    let client = client(&service);
    (service, client)
}

/// The JSON of a fixture.
fn fixture(name: &str) -> serde_json::Value {
    let text = match name {
        "campaign" => include_str!("../fixtures/campaign.json"),
        "donation" => include_str!("../fixtures/donation.json"),
        "event-created" => include_str!("../fixtures/event-created.json"),
        "event-pages" => include_str!("../fixtures/event-pages.json"),
        other => panic!("no fixture {other}"),
    };
    serde_json::from_str(text).unwrap()
}

/// A 200 answer with the campaign fixture.
fn campaign() -> Reply {
    Reply::json(200, fixture("campaign").to_string())
}
