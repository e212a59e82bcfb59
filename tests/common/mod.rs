//! Helpers shared by the browser tests: the addresses `scripts/with-servers.sh` exports (read
//! at compile time), a client built through the JS constructor, field access on the plain
//! objects the client returns, and calls of `scripts/test-helper.py`.
#![allow(dead_code)]

use fundraising_client::FundraisingClient;
use js_sys::{Array, Object, Promise, Reflect};
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
/// scripts/test-helper.py.
pub const HELPER_URL: &str = or(
    option_env!("FUNDRAISING_TEST_HELPER_URL"),
    "http://127.0.0.1:8083",
);
/// The application id.
pub const APP_ID: &str = or(option_env!("FUNDRAISING_APP_ID"), "demo-app");

/// `BASE_MS` of the sandbox seed: 2025-04-04T10:13:27.553Z.
pub const BASE_MS: f64 = 1_743_761_607_553.0;
/// A day in milliseconds.
pub const DAY_MS: f64 = 86_400_000.0;

/// A plain JS object from `(name, value)` pairs.
pub fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (name, value) in fields {
        Reflect::set(&object, &JsValue::from_str(name), value).unwrap();
    }
    object.into()
}

/// A client for resource calls against `base_url` (through the JS constructor).
pub fn client_for(base_url: &str) -> FundraisingClient {
    FundraisingClient::new(object(&[
        ("appId", APP_ID.into()),
        ("baseUrl", base_url.into()),
    ]))
    .expect("client")
}

/// A client that can also sign in (auth URL, home page, companion).
pub fn signing_client() -> FundraisingClient {
    let scopes: Array = ["fundraise", "offline_access", "email"]
        .iter()
        .map(|s| JsValue::from_str(s))
        .collect();
    FundraisingClient::new(object(&[
        ("appId", APP_ID.into()),
        ("baseUrl", BASE_URL.into()),
        ("authUrl", AUTH_URL.into()),
        ("redirectUri", [COMPANION_URL, "/"].concat().into()),
        ("companionUrl", COMPANION_URL.into()),
        ("scopes", scopes.into()),
    ]))
    .expect("client")
}

/// Awaits a Promise the client returned.
pub async fn wait(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

/// A member of a JS object.
pub fn field(object: &JsValue, name: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(name)).unwrap()
}

/// A nested member, `path` like `donationSummary.totalAmount`.
pub fn path(object: &JsValue, path: &str) -> JsValue {
    path.split('.')
        .fold(object.clone(), |value, name| field(&value, name))
}

/// A string member; panics naming the field when it is not a string.
pub fn text(object: &JsValue, name: &str) -> String {
    path(object, name)
        .as_string()
        .unwrap_or_else(|| panic!("{name} is not a string: {:?}", path(object, name)))
}

/// A number member.
pub fn number(object: &JsValue, name: &str) -> f64 {
    path(object, name)
        .as_f64()
        .unwrap_or_else(|| panic!("{name} is not a number: {:?}", path(object, name)))
}

/// A `Date` member, as milliseconds.
pub fn date(object: &JsValue, name: &str) -> f64 {
    path(object, name)
        .dyn_into::<js_sys::Date>()
        .unwrap_or_else(|v| panic!("{name} is not a Date: {v:?}"))
        .get_time()
}

/// Asserts that a member is `null` (not `undefined`, not absent).
pub fn assert_null(object: &JsValue, name: &str) {
    let value = path(object, name);
    assert!(value.is_null(), "{name} should be null, is {value:?}");
}

/// `(code, status, message)` of a rejected call, after checking it is a `FundraisingError`
/// (an `Error` subclass).
pub fn error_parts(error: &JsValue) -> (String, JsValue, String) {
    assert!(
        error.is_instance_of::<js_sys::Error>(),
        "not an Error: {error:?}"
    );
    assert_eq!(text(error, "name"), "FundraisingError");
    (
        text(error, "code"),
        field(error, "status"),
        text(error, "message"),
    )
}

/// The code of a rejected call.
pub fn code(result: Result<JsValue, JsValue>) -> String {
    match result {
        Ok(value) => panic!("expected a rejection, got {value:?}"),
        Err(error) => error_parts(&error).0,
    }
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
    number(&helper_get(&["/count/", key].concat()).await, "requests")
}

/// The body of the last request the fault proxy forwarded for `key`, as sent.
pub async fn body_seen(key: &str) -> String {
    field(&helper_get(&["/body/", key].concat()).await, "body")
        .as_string()
        .expect("a request with a body")
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

/// Waits `ms` milliseconds (only to give an event the chance to be wrongly handled).
pub async fn pause(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}
