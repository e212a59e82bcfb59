//! `--redis-url`: two companion instances with one cookie key and one real `redis-server`
//! (Debian's, on a free port, no persistence) share the single-flight refresh and the grace
//! window of a rotated refresh token, against the real sandbox identity server in process.
//! Redis going away answers `503 session_store_unavailable` and a log line, never a panic;
//! a refresh the identity server already answered is never lost to a Redis failure.

#[path = "common/mod.rs"]
mod common;

use common::browser::{sign_in, FULL_SCOPE};
use common::redis::RedisServer;
use common::*;
use fundraising_companion::session::KEY_PREFIX;
use fundraising_companion::{CookieKey, Secret};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

// These tests send their requests over HTTP to each instance's socket, not in process: with
// in-process calls `a_refresh_redis_misses_is_still_answered_and_shared_once_redis_is_back`
// fails about one run in two (the kept refresh's entry is found claimed by the other instance
// once Redis is back), so the timing of the instances' calls matters there.
async fn post(
    companion: &Companion,
    path: &str,
    body: Option<&serde_json::Value>,
    cookie: Option<&str>,
) -> Reply {
    post_to(&companion.url(), path, body, cookie).await
}

async fn get(companion: &Companion, path: &str, cookie: Option<&str>) -> Reply {
    let mut request = client().get(format!("{}{path}", companion.url()));
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    Reply::from(request.send().await.expect("send")).await
}

/// Settings of an instance sharing `key` and the Redis at `redis_url`.
fn instance(
    identity: &Identity,
    key: &CookieKey,
    redis_url: &str,
) -> fundraising_companion::Settings {
    let mut s = settings(&identity.url);
    s.cookie_key = key.clone();
    s.redis_url = Some(Secret::new(redis_url));
    s
}

fn shared_key() -> CookieKey {
    CookieKey::from_material(b"redis-test-shared-cookie-key-material-42").expect("key")
}

/// Signs in through `companion`; returns the session cookie (`name=value`).
async fn signed_in(identity: &Identity, companion: &Companion) -> String {
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.cookie()
}

/// Every key the companion wrote to Redis, with its value.
async fn redis_entries(url: &str) -> Vec<(String, String)> {
    let client = ::redis::Client::open(url).expect("redis url");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("redis connection");
    let keys: Vec<String> = ::redis::cmd("KEYS")
        .arg(format!("{KEY_PREFIX}*"))
        .query_async(&mut conn)
        .await
        .expect("KEYS");
    let mut out = Vec::new();
    for key in keys {
        let value: Option<String> = ::redis::cmd("GET")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .expect("GET");
        out.push((key, value.unwrap_or_default()));
    }
    out
}

async fn refresh_at(url: String, cookie: String) -> Reply {
    post_to(&url, "/auth/refresh", None, Some(&cookie)).await
}

#[tokio::test]
async fn twenty_concurrent_refreshes_over_two_instances_make_one_upstream_call() {
    let redis = RedisServer::start();
    // A slow token endpoint, so that every refresh arrives while the first is in flight.
    let delay = Duration::from_millis(300);
    let identity = start_identity_with(|s| s.with_token_delay(delay), None).await;
    let key = shared_key();
    let a = start_companion(instance(&identity, &key, &redis.url())).await;
    let b = start_companion(instance(&identity, &key, &redis.url())).await;
    let cookie = signed_in(&identity, &a).await;
    let calls_before = identity.token_calls();

    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let url = if i % 2 == 0 { a.url() } else { b.url() };
            tokio::spawn(refresh_at(url, cookie.clone()))
        })
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.expect("task"));
    }
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    let bodies: Vec<&str> = replies.iter().map(|r| r.body.as_str()).collect();
    assert_eq!(statuses, vec![200; 20], "{bodies:?}");
    assert_eq!(
        identity.token_calls(),
        calls_before + 1,
        "one upstream refresh for 20 requests over two instances"
    );
    let first = replies[0].json()["accessToken"].clone();
    for reply in &replies {
        assert_token_answer_members(&reply.json());
        assert_eq!(
            reply.json()["accessToken"],
            first,
            "all share the one refresh"
        );
    }

    // Redis holds hashes and sealed outcomes only: no token, cookie or profile in the clear.
    let entries = redis_entries(&redis.url()).await;
    assert!(!entries.is_empty(), "the flight is recorded in Redis");
    let cookie_value = cookie.split_once('=').expect("pair").1.to_owned();
    let mut secrets = identity.issued_tokens();
    secrets.push(cookie_value);
    secrets.push(
        replies[0]
            .cookie()
            .split_once('=')
            .expect("pair")
            .1
            .to_owned(),
    );
    for (name, value) in &entries {
        for secret in &secrets {
            assert!(
                !name.contains(secret.as_str()) && !value.contains(secret.as_str()),
                "a token or cookie in the clear in Redis"
            );
        }
        assert!(
            !value.contains("Demo Fundraiser"),
            "the profile is sealed too"
        );
    }

    // The session goes on, on either instance: a further refresh is a new upstream call.
    let next = post(&b, "/auth/refresh", None, Some(&replies[0].cookie())).await;
    assert_eq!(next.status, 200, "{}", next.body);
    assert_ne!(next.json()["accessToken"], first);
    assert_eq!(identity.token_calls(), calls_before + 2);
    let again = post(&a, "/auth/refresh", None, Some(&next.cookie())).await;
    assert_eq!(again.status, 200, "the session still works: {}", again.body);
    assert_eq!(identity.token_calls(), calls_before + 3);
}

#[tokio::test]
async fn the_grace_window_spans_instances() {
    let redis = RedisServer::start();
    let identity = start_identity().await;
    let key = shared_key();
    let a = start_companion(instance(&identity, &key, &redis.url())).await;
    let b = start_companion(instance(&identity, &key, &redis.url())).await;
    let cookie1 = signed_in(&identity, &a).await;

    // Cookie 1 gives cookie 2 on A; cookie 2 gives cookie 3 on B.
    let second = post(&a, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(second.status, 200, "{}", second.body);
    let cookie2 = second.cookie();
    let third = post(&b, "/auth/refresh", None, Some(&cookie2)).await;
    assert_eq!(third.status, 200, "{}", third.body);
    let newest = third.json()["accessToken"].clone();
    let calls = identity.token_calls();

    // Late requests with cookie 1 or 2, on the instance that did not refresh them, get the
    // newest state of the session without an upstream call (no used token is replayed).
    let late1 = post(&b, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(late1.status, 200, "{}", late1.body);
    assert_eq!(late1.json()["accessToken"], newest);
    let late2 = post(&a, "/auth/refresh", None, Some(&cookie2)).await;
    assert_eq!(late2.status, 200, "{}", late2.body);
    assert_eq!(late2.json()["accessToken"], newest);
    assert_eq!(identity.token_calls(), calls, "nothing replayed upstream");

    // Their cookies hold the newest, unused refresh token: the session lives on.
    let on = post(&a, "/auth/refresh", None, Some(&late1.cookie())).await;
    assert_eq!(on.status, 200, "{}", on.body);
    let still = post(&b, "/auth/refresh", None, Some(&on.cookie())).await;
    assert_eq!(still.status, 200, "the session lives on: {}", still.body);
}

#[tokio::test]
async fn redis_going_away_is_503_session_store_unavailable_and_logged_then_recovers() {
    logs::capture();
    let mut redis = RedisServer::start();
    let identity = start_identity().await;
    let key = shared_key();
    let a = start_companion(instance(&identity, &key, &redis.url())).await;
    let b = start_companion(instance(&identity, &key, &redis.url())).await;
    let cookie = signed_in(&identity, &a).await;
    let first = post(&b, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let cookie = first.cookie();

    redis.kill();
    let calls = identity.token_calls();
    let started = Instant::now();
    for companion in [&a, &b] {
        let reply = post(companion, "/auth/refresh", None, Some(&cookie)).await;
        assert_eq!(
            (reply.status, reply.error().as_str()),
            (503, "session_store_unavailable"),
            "{}",
            reply.body
        );
        assert!(
            reply.set_cookie().is_none(),
            "the session is kept: the cookie is neither cleared nor replaced"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "answered within the Redis timeouts: {:?}",
        started.elapsed()
    );
    assert_eq!(
        identity.token_calls(),
        calls,
        "no upstream call without Redis"
    );
    assert!(
        common::logs::text().contains("session store (Redis) unavailable"),
        "a log line says why"
    );
    // Sign-in and the session check do not need Redis.
    let other = signed_in(&identity, &a).await;
    let session = get(&b, "/auth/session", Some(&other)).await;
    assert_eq!(session.json()["active"], true);

    // Redis back on the same port: the instances reconnect and the kept cookie refreshes.
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(15);
    let reply = loop {
        let reply = post(&a, "/auth/refresh", None, Some(&cookie)).await;
        if reply.status != 503 || Instant::now() > deadline {
            break reply;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(reply.status, 200, "{}", reply.body);
    let after = post(&b, "/auth/refresh", None, Some(&reply.cookie())).await;
    assert_eq!(after.status, 200, "{}", after.body);
}

#[tokio::test]
async fn a_closed_redis_port_is_503_at_once_and_sign_in_still_works() {
    let identity = start_identity().await;
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let companion = start_companion(instance(
        &identity,
        &shared_key(),
        &format!("redis://127.0.0.1:{closed}"),
    ))
    .await;
    let cookie = signed_in(&identity, &companion).await;
    let calls = identity.token_calls();
    let started = Instant::now();
    let reply = post(&companion, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(
        (reply.status, reply.error().as_str()),
        (503, "session_store_unavailable")
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(identity.token_calls(), calls);
    // Without a cookie it is still session_expired: Redis is only asked about real sessions.
    let none = post(&companion, "/auth/refresh", None, None).await;
    assert_eq!(none.error(), "session_expired");
}

#[tokio::test]
async fn a_claim_left_by_a_dead_instance_lapses_and_the_refresh_goes_on() {
    let redis = RedisServer::start();
    let identity = start_identity().await;
    let key = shared_key();
    let a = start_companion(instance(&identity, &key, &redis.url())).await;
    let cookie = signed_in(&identity, &a).await;

    // An instance claimed this session's refresh, then died: its claim (as the companion
    // writes it, under the hash of the refresh token) stays until it lapses.
    // The sign-in's one token answer: refresh token, id_token, access token, in that order.
    let issued = identity.issued_tokens();
    assert_eq!(issued.len(), 3, "one token answer so far");
    let refresh_token = issued[0].clone();
    let entry = {
        use sha2::{Digest, Sha256};
        let hash = Sha256::digest(refresh_token.as_bytes());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        format!("{KEY_PREFIX}{hex}")
    };
    let client = ::redis::Client::open(redis.url()).expect("url");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("conn");
    let lapse = Duration::from_millis(600);
    let _: () = ::redis::cmd("SET")
        .arg(&entry)
        .arg("P:dead-instance")
        .arg("PX")
        .arg(lapse.as_millis() as u64)
        .query_async(&mut conn)
        .await
        .expect("SET");
    let calls = identity.token_calls();
    let started = Instant::now();
    let reply = post(&a, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(
        started.elapsed() >= lapse - Duration::from_millis(50),
        "the refresh waited for the other instance's claim: {:?}",
        started.elapsed()
    );
    assert_eq!(
        identity.token_calls(),
        calls + 1,
        "then ran it itself, once"
    );
    let next = post(&a, "/auth/refresh", None, Some(&reply.cookie())).await;
    assert_eq!(next.status, 200, "{}", next.body);
}

/// The Redis entry of a refresh token (as the companion names it).
fn entry_of(refresh_token: &str) -> String {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(refresh_token.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{KEY_PREFIX}{hex}")
}

async fn redis_conn(url: &str) -> ::redis::aio::MultiplexedConnection {
    ::redis::Client::open(url)
        .expect("url")
        .get_multiplexed_async_connection()
        .await
        .expect("redis connection")
}

async fn redis_get(url: &str, key: &str) -> Option<String> {
    ::redis::cmd("GET")
        .arg(key)
        .query_async(&mut redis_conn(url).await)
        .await
        .expect("GET")
}

/// Waits until `check` holds, at most `within`; false if it never did.
async fn eventually<F, Fut>(within: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    check().await
}

/// Redis stops while the identity server is rotating the refresh token (a slow token
/// endpoint opens the window). The companion answers the refresh it holds: 200 with the
/// rotated cookie, and a log line. While Redis is away, another tab on the same instance
/// gets that refresh too; on another instance it waits (503, cookie kept). Once Redis is
/// back the refresh is stored, so the other instance's late tab gets the newest state
/// instead of replaying a used token, and the newest cookie goes on working.
#[tokio::test]
async fn a_refresh_redis_misses_is_still_answered_and_shared_once_redis_is_back() {
    logs::capture();
    let mut redis = RedisServer::start();
    let identity =
        start_identity_with(|s| s.with_token_delay(Duration::from_millis(1500)), None).await;
    let key = shared_key();
    let a = start_companion(instance(&identity, &key, &redis.url())).await;
    let b = start_companion(instance(&identity, &key, &redis.url())).await;
    let cookie1 = signed_in(&identity, &a).await;
    let rt1 = identity.issued_tokens()[0].clone();

    let calls = identity.token_calls();
    let refresh = tokio::spawn(refresh_at(a.url(), cookie1.clone()));
    assert!(
        eventually(Duration::from_secs(10), || async {
            identity.token_calls() == calls + 1
        })
        .await,
        "the refresh reaches the identity server"
    );
    // The identity server is rotating the token: Redis goes away now.
    redis.kill();
    let reply = refresh.await.expect("task");
    assert_eq!(
        reply.status, 200,
        "the refresh in hand is answered: {}",
        reply.body
    );
    assert_token_answer_members(&reply.json());
    let newest = reply.json()["accessToken"].clone();
    let cookie2 = reply.cookie();
    assert!(
        common::logs::text().contains("a refresh succeeded but could not be shared"),
        "a log line says so"
    );

    // Meanwhile: another tab with the old cookie on the same instance gets that refresh; on
    // the other instance it cannot know, and waits for Redis (503, cookie kept).
    let same = post(&a, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(same.status, 200, "{}", same.body);
    assert_eq!(same.json()["accessToken"], newest);
    let other = post(&b, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(
        (other.status, other.error().as_str()),
        (503, "session_store_unavailable")
    );
    assert!(other.set_cookie().is_none());
    assert_eq!(
        identity.token_calls(),
        calls + 1,
        "nothing replayed upstream"
    );

    // Redis is back (empty): the kept refresh is stored again, under the old token's entry.
    redis.restart();
    let url = redis.url();
    assert!(
        eventually(Duration::from_secs(15), || async {
            redis_get(&url, &entry_of(&rt1))
                .await
                .is_some_and(|v| v.starts_with("D:"))
        })
        .await,
        "the refresh is shared once Redis is back: {:?}",
        redis_entries(&url).await
    );
    let late = post(&b, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(late.status, 200, "{}", late.body);
    assert_eq!(late.json()["accessToken"], newest, "the newest state");
    assert_eq!(
        identity.token_calls(),
        calls + 1,
        "nothing replayed upstream"
    );

    // The newest cookie still works, on either instance.
    let next = post(&b, "/auth/refresh", None, Some(&cookie2)).await;
    assert_eq!(next.status, 200, "{}", next.body);
    let again = post(&a, "/auth/refresh", None, Some(&next.cookie())).await;
    assert_eq!(again.status, 200, "the session lives on: {}", again.body);
}

/// A Redis entry carries its expiry inside the seal. Someone who can write to Redis and
/// holds an old cookie writes a captured entry back after it expired: it is refused, the old
/// refresh token goes to the identity server, which sees a used token and revokes the whole
/// session (reuse detection), instead of handing out the newer session.
#[tokio::test]
async fn an_entry_written_back_after_its_expiry_is_refused_and_reuse_detection_fires() {
    logs::capture();
    let redis = RedisServer::start();
    let identity = start_identity().await;
    let mut s = instance(&identity, &shared_key(), &redis.url());
    s.refresh_grace = Duration::from_millis(1000);
    let a = start_companion(s).await;
    let cookie1 = signed_in(&identity, &a).await;
    let rt1 = identity.issued_tokens()[0].clone();
    let second = post(&a, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(second.status, 200, "{}", second.body);
    let cookie2 = second.cookie();
    let entry = entry_of(&rt1);
    let captured = redis_get(&redis.url(), &entry)
        .await
        .expect("the refresh is shared through Redis");
    assert!(captured.starts_with("D:"), "{captured}");
    // Within the window, the entry answers a late tab (no upstream call).
    let calls = identity.token_calls();
    let late = post(&a, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(late.status, 200, "{}", late.body);
    assert_eq!(identity.token_calls(), calls);

    // Redis's TTL removes it; the captured value is written back, without a TTL.
    let url = redis.url();
    assert!(
        eventually(Duration::from_secs(10), || async {
            redis_get(&url, &entry).await.is_none()
        })
        .await,
        "the entry expires"
    );
    let _: () = ::redis::cmd("SET")
        .arg(&entry)
        .arg(&captured)
        .query_async(&mut redis_conn(&url).await)
        .await
        .expect("SET");

    let replay = post(&a, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(
        (replay.status, replay.error().as_str()),
        (401, "session_expired"),
        "the written-back entry is not answered: {}",
        replay.body
    );
    assert_eq!(
        identity.token_calls(),
        calls + 1,
        "the old token went to the identity server"
    );
    assert!(common::logs::text().contains("past its sealed expiry"));
    // The identity server saw a used refresh token and revoked the chain: the newer cookie
    // is dead too.
    let newer = post(&a, "/auth/refresh", None, Some(&cookie2)).await;
    assert_eq!(
        (newer.status, newer.error().as_str()),
        (401, "session_expired"),
        "reuse detection fired: {}",
        newer.body
    );
}

/// Redis restarts while nothing is asked of it: each instance's connection is dead, and the
/// first refresh on each still answers 200 (the command is sent again on a new connection)
/// rather than 503 "broken pipe".
#[tokio::test]
async fn the_first_refresh_after_a_redis_restart_succeeds_on_every_instance() {
    let mut redis = RedisServer::start();
    let identity = start_identity().await;
    let key = shared_key();
    let a = start_companion(instance(&identity, &key, &redis.url())).await;
    let b = start_companion(instance(&identity, &key, &redis.url())).await;
    let cookie = signed_in(&identity, &a).await;
    // Both instances have a live connection to Redis.
    let on_a = post(&a, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(on_a.status, 200, "{}", on_a.body);
    let on_b = post(&b, "/auth/refresh", None, Some(&on_a.cookie())).await;
    assert_eq!(on_b.status, 200, "{}", on_b.body);

    redis.restart();
    let first_a = post(&a, "/auth/refresh", None, Some(&on_b.cookie())).await;
    assert_eq!(first_a.status, 200, "first on A: {}", first_a.body);
    let first_b = post(&b, "/auth/refresh", None, Some(&first_a.cookie())).await;
    assert_eq!(first_b.status, 200, "first on B: {}", first_b.body);
}

/// Redis stalls (SIGSTOP, not a crash) just as a refresh claims its entry, for longer than
/// the Redis timeout: the claim's answer does not come in time, so the refresh answers 503
/// with the session kept. The claim itself lands once Redis wakes; it must not make the retry wait for
/// a flight nobody runs. Once Redis is back, the retry works at once, on either instance.
#[tokio::test]
async fn a_claim_redis_carries_out_late_is_given_up_and_the_retry_works_at_once() {
    let redis = RedisServer::start();
    let identity = start_identity().await;
    let key = shared_key();
    let a = start_companion(instance(&identity, &key, &redis.url())).await;
    let b = start_companion(instance(&identity, &key, &redis.url())).await;
    let cookie = signed_in(&identity, &a).await;
    // Both instances have refreshed through Redis before (its scripts are loaded there).
    let first = post(&a, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let second = post(&b, "/auth/refresh", None, Some(&first.cookie())).await;
    assert_eq!(second.status, 200, "{}", second.body);
    let cookie = second.cookie();
    let token = identity.issued_tokens()[6].clone();

    redis.pause();
    let calls = identity.token_calls();
    let stalled = post(&a, "/auth/refresh", None, Some(&cookie)).await;
    assert_eq!(
        (stalled.status, stalled.error().as_str()),
        (503, "session_store_unavailable"),
        "{}",
        stalled.body
    );
    assert!(stalled.set_cookie().is_none(), "the session is kept");
    // The stall ends once the refresh has given up on it (no time of its own to wait for: the
    // claim and the instance's release of it are both queued in the paused Redis).
    redis.resume();
    // The claim sent during the stall is carried out now, then given up.
    let url = redis.url();
    assert!(
        eventually(Duration::from_secs(3), || async {
            !redis_get(&url, &entry_of(&token))
                .await
                .is_some_and(|v| v.starts_with("P:"))
        })
        .await,
        "no claim is left pending"
    );

    for (name, companion) in [("other instance", &b), ("same instance", &a)] {
        let started = Instant::now();
        let retry = tokio::time::timeout(
            Duration::from_secs(10),
            post(companion, "/auth/refresh", None, Some(&cookie)),
        )
        .await
        .unwrap_or_else(|_| panic!("the retry on the {name} still waits after 10 s"));
        assert_eq!(retry.status, 200, "{name}: {}", retry.body);
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "the retry on the {name} took {:?}",
            started.elapsed()
        );
    }
    assert_eq!(identity.token_calls(), calls + 1, "one refresh upstream");
}

/// A resource API (the real sandbox's, in process) that counts the requests reaching it.
async fn counted_api(identity: &Identity) -> (Served, String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let router = fundraising_sandbox::api_app(identity.sandbox.clone().with_public_base_url(&url))
        .layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                counter.fetch_add(1, Ordering::SeqCst);
                next.run(req)
            },
        ));
    (serve(router, Some(listener)).await, url, calls)
}

/// A proxied call as the served page makes it.
async fn api_get(companion: &Companion, path: &str, cookie: &str) -> Reply {
    let request = client()
        .get(format!("{}{path}", companion.url()))
        .header("origin", ORIGIN)
        .header("x-fundraising-client", "1")
        .header("cookie", cookie);
    Reply::from(request.send().await.expect("send")).await
}

/// Sign-out on one instance ends the session on every instance at once: the current cookie and
/// one rotated a moment before (within the grace window, where its refresh's outcome would be
/// answered) both get 401 and an inactive `/auth/session` on both instances, with no upstream
/// call for them; in BFF mode nothing more reaches the resource API for them.
#[tokio::test]
async fn sign_out_on_one_instance_ends_every_copy_of_the_session_on_every_instance() {
    let redis = RedisServer::start();
    for bff in [false, true] {
        let identity = start_identity().await;
        let (_api, api_url, api_calls) = counted_api(&identity).await;
        let key = shared_key();
        let make = || {
            let mut s = instance(&identity, &key, &redis.url());
            if bff {
                s.bff = true;
                s.api_url = Some(api_url.parse().unwrap());
            }
            s
        };
        let a = start_companion(make()).await;
        let b = start_companion(make()).await;
        let old = signed_in(&identity, &a).await;
        let rotated = post(&a, "/auth/refresh", None, Some(&old)).await;
        assert_eq!(rotated.status, 200, "{}", rotated.body);
        let current = rotated.cookie();
        if bff {
            let call = api_get(&b, "/api/campaign/byshortname/demo-campaign", &current).await;
            assert_eq!(call.status, 200, "bff {bff}: {}", call.body);
        }

        let out = post(&b, "/auth/logout", None, Some(&current)).await;
        assert_eq!(out.status, 204, "bff {bff}: {}", out.body);

        let (token_calls, api_before) = (identity.token_calls(), api_calls.load(Ordering::SeqCst));
        for companion in [&a, &b] {
            for cookie in [&old, &current] {
                let refreshed = post(companion, "/auth/refresh", None, Some(cookie)).await;
                assert_eq!(refreshed.status, 401, "bff {bff}: {}", refreshed.body);
                assert_eq!(refreshed.error(), "session_expired");
                assert!(refreshed.json().get("accessToken").is_none());
                let session = get(companion, "/auth/session", Some(cookie)).await;
                assert_eq!(session.status, 200);
                assert_eq!(
                    session.json()["active"],
                    false,
                    "bff {bff}: {}",
                    session.body
                );
                if bff {
                    let call =
                        api_get(companion, "/api/campaign/byshortname/demo-campaign", cookie).await;
                    assert_eq!(call.status, 401, "bff {bff}: {}", call.body);
                    assert_eq!(call.error(), "session_expired");
                }
            }
        }
        assert_eq!(
            identity.token_calls(),
            token_calls,
            "bff {bff}: a call upstream"
        );
        assert_eq!(
            api_calls.load(Ordering::SeqCst),
            api_before,
            "bff {bff}: a call reached the resource API"
        );
        // Redis holds the record under a digest, never the session's id or a token.
        let ended: Vec<String> = ::redis::cmd("KEYS")
            .arg(format!("{}*", fundraising_companion::session::ENDED_PREFIX))
            .query_async(&mut redis_conn(&redis.url()).await)
            .await
            .unwrap();
        assert!(!ended.is_empty());
    }
}
