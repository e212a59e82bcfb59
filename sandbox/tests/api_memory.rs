//! A bounded flood of near-limit events does not grow the sandbox's memory or storage without
//! bound (the only test of this binary, so nothing else moves the process's RSS).

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::*;

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

fn stored_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("data dir")
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// An event whose text fields are at their limits, padded with an unknown member to just
/// under the body limit.
fn near_limit_event(i: usize) -> String {
    let mut event = serde_json::json!({"eventType": "Walks"});
    for (field, limit) in fundraising_sandbox::FIELD_LIMITS {
        if field != "eventType" {
            event[field] = format!("{i:08}{}", "x".repeat(limit - 8)).into();
        }
    }
    let text = event.to_string();
    let room = fundraising_sandbox::MAX_EVENT_BODY_BYTES - text.len() - 20;
    format!(r#"{{"padding":"{}",{}"#, "p".repeat(room), &text[1..])
}

#[tokio::test]
async fn a_flood_of_near_limit_events_stays_bounded() {
    const WARM_UP: usize = 50;
    const FLOOD: usize = 1000;
    let t = open_default();
    let api = t.api();
    let post = |body: String| {
        Request::post("/demo-app/v1/event/")
            .header("content-type", "application/json")
            .body(Body::from(body))
            .expect("request")
    };
    let started = std::time::Instant::now();
    for i in 0..WARM_UP {
        let reply = call(&api, post(near_limit_event(i))).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    }
    let (rss_before, stored_before) = (rss_kib(), stored_bytes(t.dir.path()));
    for i in WARM_UP..WARM_UP + FLOOD {
        let body = near_limit_event(i);
        assert!(body.len() > fundraising_sandbox::MAX_EVENT_BODY_BYTES - 100);
        let reply = call(&api, post(body)).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
        assert!(
            started.elapsed().as_secs() < 120,
            "the flood is bounded in time"
        );
    }
    let (rss_after, stored_after) = (rss_kib(), stored_bytes(t.dir.path()));
    let posted_kib = (FLOOD * fundraising_sandbox::MAX_EVENT_BODY_BYTES / 1024) as u64;
    let grown_kib = rss_after.saturating_sub(rss_before);
    // 64 MB were posted; neither memory nor storage keeps them.
    assert!(
        grown_kib < 16 * 1024,
        "RSS grew {grown_kib} KiB after posting {posted_kib} KiB"
    );
    let per_event = stored_after.saturating_sub(stored_before) / FLOOD as u64;
    assert!(per_event < 12 * 1024, "{per_event} bytes stored per event");
    // Over the limit: 413, and nothing stored.
    let last = call(&api, post(near_limit_event(0) + &" ".repeat(200))).await;
    assert_eq!(last.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", last.body);
    let next_id = (1001 + WARM_UP + FLOOD + 1) as i64;
    assert!(t.sandbox.db().event(next_id).expect("db").is_none());
    assert!(t.sandbox.db().event(next_id - 1).expect("db").is_some());
}
