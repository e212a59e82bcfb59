//! Helpers shared by the browser tests: the addresses `scripts/with-servers.sh` exports (read
//! at compile time), clients built through the typed API, and calls of
//! `scripts/test-helper.py` (code minter, fault proxy, slow and hanging upstreams).
#![allow(dead_code)]

use fundraising_client::{Client, ClientOptions};
use js_sys::{Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

const fn or(value: Option<&'static str>, default: &'static str) -> &'static str {
    match value {
        Some(v) => v,
        None => default,
    }
}

/// `{base_url}` of the sandbox.
pub const BASE_URL: &str = or(option_env!("FUNDRAISING_BASE_URL"), "http://127.0.0.1:8081");
/// `{auth_url}` of the sandbox.
pub const AUTH_URL: &str = or(option_env!("FUNDRAISING_AUTH_URL"), "http://127.0.0.1:8082");
/// The companion; its `/` is the registered home page.
pub const COMPANION_URL: &str = or(
    option_env!("FUNDRAISING_COMPANION_URL"),
    "http://127.0.0.1:8080",
);
/// A second companion, in BFF mode, for the application [`BFF_APP_ID`]; its `/` is that
/// application's registered home page.
pub const BFF_COMPANION_URL: &str = or(
    option_env!("FUNDRAISING_BFF_COMPANION_URL"),
    "http://127.0.0.1:8084",
);
/// The application the BFF companion signs in for.
pub const BFF_APP_ID: &str = or(option_env!("FUNDRAISING_BFF_APP_ID"), "demo-bff");
/// scripts/test-helper.py.
pub const HELPER_URL: &str = or(
    option_env!("FUNDRAISING_TEST_HELPER_URL"),
    "http://127.0.0.1:8083",
);
/// The application id.
pub const APP_ID: &str = or(option_env!("FUNDRAISING_APP_ID"), "demo-app");

/// `BASE_MS` of the sandbox seed: 2025-04-04T10:13:27.553Z.
pub const BASE_MS: i64 = 1_743_761_607_553;
/// A day in milliseconds.
pub const DAY_MS: i64 = 86_400_000;

/// A client for resource calls against `base_url`.
pub fn client_for(base_url: &str) -> Client {
    Client::new(ClientOptions::new(APP_ID, base_url)).expect("client")
}

/// The options of a client that can also sign in (auth URL, home page, companion).
pub fn signing_options() -> ClientOptions {
    ClientOptions::new(APP_ID, BASE_URL)
        .auth_url(AUTH_URL)
        .redirect_uri([COMPANION_URL, "/"].concat())
        .companion_url(COMPANION_URL)
        .scopes(["fundraise", "offline_access", "email"])
}

/// A client that can also sign in.
pub fn signing_client() -> Client {
    Client::new(signing_options()).expect("client")
}

/// A client of the BFF companion: resource calls through it, and the token stays there.
pub fn bff_client() -> Client {
    Client::new(
        ClientOptions::new(BFF_APP_ID, BASE_URL)
            .auth_url(AUTH_URL)
            .redirect_uri([BFF_COMPANION_URL, "/"].concat())
            .companion_url(BFF_COMPANION_URL)
            .scopes(["fundraise", "offline_access", "email"])
            .bff(true),
    )
    .expect("client")
}

/// GET on the test helper, as parsed JSON.
pub async fn helper_get(path_and_query: &str) -> JsValue {
    let window = web_sys::window().unwrap();
    let url = [HELPER_URL, path_and_query].concat();
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(&url))
        .await
        .unwrap()
        .unchecked_into();
    JsFuture::from(response.json().unwrap()).await.unwrap()
}

/// A member of a JS object.
pub fn field(object: &JsValue, name: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(name)).unwrap()
}

/// A key unique to this test run, for the fault proxy.
pub fn unique_key(name: &str) -> String {
    [name, "-", &js_sys::Math::random().to_string()[2..]].concat()
}

/// A base URL that goes through the fault proxy: `failures` 503s with `Retry-After: retry_after`, then the sandbox.
pub fn faulty_base_url(key: &str, failures: u32, retry_after: u32) -> String {
    [
        HELPER_URL,
        "/fault/",
        key,
        "/",
        &failures.to_string(),
        "/",
        &retry_after.to_string(),
    ]
    .concat()
}

/// How many requests the fault proxy has seen for `key`.
pub async fn requests_seen(key: &str) -> f64 {
    field(&helper_get(&["/count/", key].concat()).await, "requests")
        .as_f64()
        .expect("a count")
}

/// The body of the last request the fault proxy forwarded for `key`, as sent.
pub async fn body_seen(key: &str) -> String {
    field(&helper_get(&["/body/", key].concat()).await, "body")
        .as_string()
        .expect("a request with a body")
}

/// A base URL whose requests the helper holds open, never answering, and watches: see
/// [`hang_state`].
pub fn hanging_base_url(key: &str) -> String {
    [HELPER_URL, "/hang/", key].concat()
}

/// Whether a request to [`hanging_base_url`] of `key` arrived, and whether its connection was
/// then closed by the client: `(arrived, closed)`.
pub async fn hang_state(key: &str) -> (bool, bool) {
    let state = helper_get(&["/hang-state/", key].concat()).await;
    (
        field(&state, "arrived").as_bool() == Some(true),
        field(&state, "closed").as_bool() == Some(true),
    )
}

/// The callback URL the code minter gets for `authorize_url` through the real login and
/// consent pages (`decision`: `allow` or `deny`).
pub async fn mint(authorize_url: &str, decision: &str) -> String {
    let query = [
        "/mint?authorize=",
        &String::from(js_sys::encode_uri_component(authorize_url)),
        "&decision=",
        decision,
    ]
    .concat();
    let answer = helper_get(&query).await;
    field(&answer, "callbackUrl")
        .as_string()
        .unwrap_or_else(|| panic!("the minter failed: {:?}", field(&answer, "error")))
}

/// Waits `ms` milliseconds (only to give an event the chance to be wrongly handled, or to
/// poll a condition with a deadline).
pub async fn pause(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// Waits until `condition` holds, polling every 20 ms; panics with `what` after `ms`.
pub async fn until<F, Fut>(ms: f64, what: &str, mut condition: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = js_sys::Date::now() + ms;
    while !condition().await {
        assert!(js_sys::Date::now() < deadline, "{what}");
        pause(20).await;
    }
}

#[wasm_bindgen(inline_js = "
export async function sandbox_call(method, url, body) {
  const init = { method };
  if (body !== undefined) {
    init.headers = { 'Content-Type': 'application/json' };
    init.body = body;
  }
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}
")]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn sandbox_call(
        method: &str,
        url: &str,
        body: Option<String>,
    ) -> Result<JsValue, JsValue>;
}

/// A call of one of the sandbox's test routes (on the resource API's listener): the status
/// and the answer's JSON.
pub async fn sandbox(method: &str, path: &str, body: Option<&str>) -> (u16, JsValue) {
    let answer = sandbox_call(method, &[BASE_URL, path].concat(), body.map(str::to_owned))
        .await
        .expect("the sandbox's test routes answer");
    (
        field(&answer, "status").as_f64().expect("status") as u16,
        field(&answer, "json"),
    )
}

/// Adds a fault (`POST /_sandbox/faults`, JSON as written); returns its id.
pub async fn add_fault(spec: &str) -> f64 {
    let (status, answer) = sandbox("POST", "/_sandbox/faults", Some(spec)).await;
    assert_eq!(status, 201, "{spec}: {answer:?}");
    field(&answer, "id").as_f64().expect("id")
}

/// The id of the last request the sandbox logged (to read only those after it).
pub async fn last_logged() -> f64 {
    let (_, answer) = sandbox("GET", "/_sandbox/requests?path=/", None).await;
    field(&answer, "last_id").as_f64().expect("last_id")
}

/// `(method, status)` of each request to `path` the sandbox logged after `since`, CORS
/// preflights left out (a request that got no answer has status 0).
pub async fn logged(since: f64, path: &str) -> Vec<(String, u16)> {
    let query = [
        "/_sandbox/requests?since=",
        &since.to_string(),
        "&path=",
        &String::from(js_sys::encode_uri_component(path)),
    ]
    .concat();
    let (_, answer) = sandbox("GET", &query, None).await;
    js_sys::Array::from(&field(&answer, "requests"))
        .iter()
        .filter(|entry| field(entry, "method").as_string().as_deref() != Some("OPTIONS"))
        .map(|entry| {
            (
                field(&entry, "method").as_string().unwrap_or_default(),
                field(&entry, "status").as_f64().unwrap_or(0.0) as u16,
            )
        })
        .collect()
}

/// The callback address of a sign-in the sandbox runs without pages for `authorize_url` (the
/// client's own), as `user`.
pub async fn headless_sign_in(authorize_url: &str, user: &str) -> String {
    let body = serde_json::json!({ "authorize_url": authorize_url, "user": user }).to_string();
    let (status, answer) = sandbox("POST", "/_sandbox/sign-in", Some(&body)).await;
    assert_eq!(status, 200, "{answer:?}");
    field(&answer, "callback_url")
        .as_string()
        .expect("callback_url")
}
