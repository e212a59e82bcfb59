//! The four resource operations (endpoints 4 to 7): argument checks, addresses and result
//! decoding. The I/O itself is in `client.rs` (one shared request path).

use fundraising_core::encoding::{decimal, signed_decimal};
use fundraising_core::model::Event;
use fundraising_core::validate;
use wasm_bindgen::JsValue;

use crate::decode::{self, Shape};
use crate::error_body::service_error;
use crate::event::event_body;
use crate::http::HttpResponse;
use crate::Error;

/// Default time limit of one request.
pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;

/// A request to make: method, absolute URL, JSON body, and whether it may be retried.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub method: &'static str,
    pub url: String,
    pub body: Option<String>,
    pub retry: bool,
}

/// Addresses of the resource API `{base_url}/{app_id}/v1/...`.
#[derive(Debug, Clone)]
pub struct ResourceApi {
    app_id: String,
    base_url: String,
}

impl ResourceApi {
    /// Checks `appId` and `baseUrl`.
    pub fn new(app_id: &str, base_url: &str) -> Result<Self, Error> {
        if app_id.trim().is_empty() {
            return Err(Error::invalid("appId", "must not be empty"));
        }
        let parsed = web_sys::Url::new(base_url)
            .map_err(|_| Error::invalid("baseUrl", "must be an absolute URL"))?;
        if !matches!(parsed.protocol().as_str(), "http:" | "https:") {
            return Err(Error::invalid("baseUrl", "must be an http or https URL"));
        }
        Ok(ResourceApi {
            app_id: app_id.to_owned(),
            base_url: base_url.trim_end_matches('/').to_owned(),
        })
    }

    /// `GET /{appId}/v1/campaign/byshortname/{shortName}`.
    pub(crate) fn campaign(&self, short_name: &str) -> Result<Call, Error> {
        validate::path_segment("shortName", short_name)?;
        Ok(self.get(&["campaign", "byshortname", short_name], ""))
    }

    /// `GET /{appId}/v1/donation/ref/{thirdPartyReference}`.
    pub(crate) fn donation(&self, reference: &str) -> Result<Call, Error> {
        validate::path_segment("reference", reference)?;
        Ok(self.get(&["donation", "ref", reference], ""))
    }

    /// `POST /{appId}/v1/event/`, never retried (no duplicate events).
    pub(crate) fn create_event(&self, event: &Event) -> Result<Call, Error> {
        validate::event(event)?;
        let body = event_body(event);
        Ok(Call {
            method: "POST",
            url: self.url(&["event", ""], ""),
            body: Some(body),
            retry: false,
        })
    }

    /// `GET /{appId}/v1/event/{eventId}/pages?page=&pagesize=`.
    pub(crate) fn event_pages(
        &self,
        event_id: f64,
        page: Option<f64>,
        page_size: Option<f64>,
    ) -> Result<Call, Error> {
        let event_id = validate::event_id(event_id)?;
        let mut query = String::new();
        if let Some(page) = page {
            query.push_str(if query.is_empty() { "?" } else { "&" });
            query.push_str("page=");
            query.push_str(&decimal(u64::from(validate::page(page)?)));
        }
        if let Some(size) = page_size {
            query.push_str(if query.is_empty() { "?" } else { "&" });
            query.push_str("pagesize=");
            query.push_str(&decimal(u64::from(validate::page_size(size)?)));
        }
        Ok(self.get(
            &["event", &signed_decimal(i64::from(event_id)), "pages"],
            &query,
        ))
    }

    fn get(&self, segments: &[&str], query: &str) -> Call {
        Call {
            method: "GET",
            url: self.url(segments, query),
            body: None,
            retry: true,
        }
    }

    fn url(&self, segments: &[&str], query: &str) -> String {
        let mut url = self.base_url.clone();
        for segment in [self.app_id.as_str(), "v1"].iter().chain(segments) {
            url.push('/');
            url.push_str(&String::from(js_sys::encode_uri_component(segment)));
        }
        url.push_str(query);
        url
    }
}

/// A 2xx body as the JS value of `shape`; any other status as the service's error.
pub(crate) fn decode(response: HttpResponse, shape: &'static Shape) -> Result<JsValue, Error> {
    if (200..300).contains(&response.status) {
        decode::decode(&response.body, shape)
    } else {
        Err(fundraising_core::Error::Service(service_error(response.status, &response.body)).into())
    }
}
