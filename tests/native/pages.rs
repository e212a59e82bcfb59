//! The walk over every fundraising page summary of an event, page after page.

use futures_util::StreamExt;

use fundraising_client::code;

use super::fixture;
use super::memory::{run, Reply};
use super::serve;

/// Page `number` of `total` with `count` summaries (the fixture's first, numbered by title).
fn page(number: u32, total: Option<u32>, count: usize) -> Reply {
    let mut pages = fixture("event-pages");
    let summary = pages["fundraisingPages"][0].clone();
    let summaries: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            let mut s = summary.clone();
            s["pageTitle"] = format!("p{number}-{i}").into();
            s
        })
        .collect();
    pages["fundraisingPages"] = summaries.into();
    pages["pageNumber"] = number.into();
    pages["totalPages"] = total.unwrap_or(0).into();
    Reply::json(200, pages.to_string())
}

/// Every item of the walk of event 4711 with `page_size`, errors as their codes.
fn walk(replies: Vec<Reply>, page_size: Option<u32>) -> (Vec<String>, Vec<String>) {
    let (service, client) = serve(replies);
    let items = run(&service, async {
        let stream = client.event_pages_stream(4711, page_size).unwrap();
        stream
            .map(|item| match item {
                Ok(summary) => summary.page_title,
                Err(e) => ["error ", e.code()].concat(),
            })
            .collect::<Vec<String>>()
            .await
    });
    let urls = service
        .seen()
        .iter()
        .map(|s| s.url.rsplit('?').next().unwrap().to_owned())
        .collect();
    (items, urls)
}

#[test]
fn the_walk_reads_every_page_the_answer_counts() {
    let (items, queries) = walk(
        vec![
            page(1, Some(3), 2),
            page(2, Some(3), 2),
            page(3, Some(3), 1),
        ],
        Some(2),
    );
    assert_eq!(items, ["p1-0", "p1-1", "p2-0", "p2-1", "p3-0"]);
    assert_eq!(
        queries,
        [
            "page=1&pagesize=2",
            "page=2&pagesize=2",
            "page=3&pagesize=2"
        ]
    );
}

#[test]
fn without_a_page_count_a_short_or_empty_page_is_the_last() {
    let (items, queries) = walk(vec![page(1, None, 2), page(2, None, 1)], Some(2));
    assert_eq!(items, ["p1-0", "p1-1", "p2-0"]);
    assert_eq!(queries.len(), 2);
    let (items, queries) = walk(vec![page(1, None, 2), page(2, None, 0)], Some(2));
    assert_eq!(items, ["p1-0", "p1-1"]);
    assert_eq!(queries.len(), 2);
}

#[test]
fn the_walk_asks_for_the_largest_pages_by_default() {
    let (_, queries) = walk(vec![page(1, Some(1), 3)], None);
    assert_eq!(queries, ["page=1&pagesize=100"]);
}

#[test]
fn an_error_ends_the_walk_after_it_is_yielded() {
    let (items, queries) = walk(vec![page(1, Some(3), 1), Reply::status(400)], Some(1));
    assert_eq!(items, ["p1-0", "error http_error"]);
    assert_eq!(queries.len(), 2);
}

#[test]
fn a_bad_page_size_is_refused_before_the_walk() {
    let (service, client) = serve([]);
    let e = client.event_pages_stream(4711, Some(0)).unwrap_err();
    assert_eq!(e.code(), code::INVALID_ARGUMENT);
    assert!(service.seen().is_empty());
}
