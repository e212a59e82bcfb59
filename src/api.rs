//! The resource operations, as core's operation table defines them
//! ([`fundraising_core::operation`]): the addresses of their requests, built from each entry's
//! path and query with the entry's rules, the check of an answer's status, and the typed
//! reading of its body. The I/O is the client's one request path (`client.rs`).

use crate::Error;

#[cfg(feature = "__operation")]
use fundraising_core::encoding::{path_segment_encode, signed_decimal};
#[cfg(feature = "__operation")]
use fundraising_core::operation::{Operation, PathValue, Retry};
#[cfg(feature = "__operation")]
use fundraising_core::shape::Model;
#[cfg(feature = "__operation")]
use serde::de::DeserializeOwned;

#[cfg(feature = "__operation")]
use crate::http::{HttpResponse, Method};

/// A request to make: method, absolute URL, JSON body, and whether it may be retried.
#[cfg(feature = "__operation")]
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub method: Method,
    pub url: String,
    pub body: Option<String>,
    pub retry: bool,
}

/// Addresses of the resource API: `{base_url}/{app_id}/v1/...`, or, through a companion in
/// BFF mode, `{companion}/api/...` (the companion forwards to `{base_url}/{app_id}/v1/...`).
#[derive(Clone)]
pub(crate) struct ResourceApi {
    /// Everything before the operation's own path, without a trailing `/`.
    prefix: String,
    /// Through a companion in BFF mode (the request path tells its calls by it).
    bff: bool,
}

/// The address (the client's `Debug` shows it).
impl std::fmt::Debug for ResourceApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceApi")
            .field("prefix", &self.prefix)
            .field("bff", &self.bff)
            .finish()
    }
}

/// `url` checked as an absolute http(s) URL (by the platform's WHATWG URL parser), without its
/// trailing `/`; `invalid_argument` naming the option `name` otherwise.
fn http_url(name: &str, url: &str) -> Result<String, Error> {
    #[cfg(target_arch = "wasm32")]
    let scheme = web_sys::Url::new(url).ok().map(|parsed| parsed.protocol());
    #[cfg(not(target_arch = "wasm32"))]
    let scheme = url::Url::parse(url)
        .ok()
        .map(|parsed| [parsed.scheme(), ":"].concat());
    match scheme.as_deref() {
        None => Err(Error::invalid(name, "must be an absolute URL")),
        Some("http:" | "https:") => Ok(url.trim_end_matches('/').to_owned()),
        Some(_) => Err(Error::invalid(name, "must be an http or https URL")),
    }
}

impl ResourceApi {
    /// Checks `app_id` and `base_url`.
    pub(crate) fn new(app_id: &str, base_url: &str) -> Result<Self, Error> {
        if app_id.trim().is_empty() {
            return Err(Error::invalid("app_id", "must not be empty"));
        }
        let prefix = [
            http_url("base_url", base_url)?.as_str(),
            "/",
            &fundraising_core::encoding::path_segment_encode(app_id),
            "/v1",
        ]
        .concat();
        Ok(ResourceApi { prefix, bff: false })
    }

    /// The resource API through a companion in BFF mode at `companion_url`.
    pub(crate) fn through_companion(app_id: &str, companion_url: &str) -> Result<Self, Error> {
        if app_id.trim().is_empty() {
            return Err(Error::invalid("app_id", "must not be empty"));
        }
        if companion_url.trim().is_empty() {
            return Err(Error::invalid("companion_url", "is needed in BFF mode"));
        }
        let prefix = [http_url("companion_url", companion_url)?.as_str(), "/api"].concat();
        Ok(ResourceApi { prefix, bff: true })
    }
}

#[cfg(feature = "__operation")]
impl ResourceApi {
    /// True when calls go through a companion in BFF mode.
    pub(crate) fn bff(&self) -> bool {
        self.bff
    }

    /// The request of `operation`: its path template filled with `params` (one per path
    /// parameter, in order; text checked by core's rule for a segment and percent-encoded as
    /// one, an event id in decimal), its query of `query` by the entry's rules, and the JSON
    /// `body` it sends.
    ///
    /// (The template is filled here rather than by [`Operation::path_with`], which checks each
    /// value against its parameter's kind and an event id's range: the client's arguments are
    /// typed, and without those checks the browser package carries neither the number
    /// formatting of their messages nor a general segment splitter, 1.8 KB gzip.)
    fn call(
        &self,
        operation: &Operation,
        params: &[PathValue<'_>],
        query: &[Option<f64>],
        body: Option<String>,
    ) -> Result<Call, Error> {
        let mut url = self.prefix.clone();
        let mut values = operation.params.iter().zip(params);
        // The template's literal text as it is, each `{name}` replaced by its value.
        let mut literal = 0;
        let template = operation.path.as_bytes();
        let mut at = 0;
        while at < template.len() {
            if template[at] != b'{' {
                at += 1;
                continue;
            }
            url.push_str(&operation.path[literal..at]);
            while at < template.len() && template[at] != b'}' {
                at += 1;
            }
            at += 1;
            literal = at;
            match values.next() {
                Some((param, PathValue::Text(text))) => {
                    fundraising_core::validate::path_segment(param.rust_name, text)?;
                    url.push_str(&path_segment_encode(text));
                }
                Some((_, &PathValue::Integer(n))) => url.push_str(&signed_decimal(n)),
                None => {
                    return Err(Error::invalid(
                        operation.name,
                        "takes one value per path parameter",
                    ))
                }
            }
        }
        url.push_str(&operation.path[literal.min(template.len())..]);
        url.push_str(&operation.query_with(query)?);
        Ok(Call {
            method: operation.method,
            url,
            body,
            retry: operation.retry == Retry::Read,
        })
    }

    /// [`CAMPAIGN`](fundraising_core::operation::CAMPAIGN).
    #[cfg(feature = "campaign")]
    pub(crate) fn campaign(&self, short_name: &str) -> Result<Call, Error> {
        use fundraising_core::operation::CAMPAIGN;
        self.call(&CAMPAIGN, &[PathValue::Text(short_name)], &[], None)
    }

    /// [`DONATION`](fundraising_core::operation::DONATION).
    #[cfg(feature = "donation")]
    pub(crate) fn donation(&self, reference: &str) -> Result<Call, Error> {
        use fundraising_core::operation::DONATION;
        self.call(&DONATION, &[PathValue::Text(reference)], &[], None)
    }

    /// [`CREATE_EVENT`](fundraising_core::operation::CREATE_EVENT): the event checked by
    /// core's rules, its dates as the service writes and reads them (`"\/Date(ms+0000)\/"`).
    #[cfg(feature = "events")]
    pub(crate) fn create_event(
        &self,
        event: &fundraising_core::model::Event,
    ) -> Result<Call, Error> {
        use fundraising_core::operation::CREATE_EVENT;
        fundraising_core::validate::event(event)?;
        let body = fundraising_core::json::escape_slashes(&crate::convert::json_text(event));
        self.call(&CREATE_EVENT, &[], &[], Some(body))
    }

    /// [`PAGES`](fundraising_core::operation::PAGES).
    #[cfg(feature = "pages")]
    pub(crate) fn event_pages(
        &self,
        event_id: i32,
        page: Option<u32>,
        page_size: Option<u32>,
    ) -> Result<Call, Error> {
        use fundraising_core::operation::PAGES;
        self.call(
            &PAGES,
            &[PathValue::Integer(i64::from(event_id))],
            &[page.map(f64::from), page_size.map(f64::from)],
            None,
        )
    }
}

/// A 2xx answer as it is; any other status as the service's error.
#[cfg(feature = "__operation")]
pub(crate) fn check_status(response: HttpResponse) -> Result<HttpResponse, Error> {
    if response.succeeded() {
        Ok(response)
    } else {
        let error = response.body.service_error(response.status);
        Err(fundraising_core::Error::Service(error).into())
    }
}

/// A 2xx answer's body read as the model `M` by core's decoder.
#[cfg(feature = "__operation")]
pub(crate) fn read_model<M: Model + DeserializeOwned>(response: &HttpResponse) -> Result<M, Error> {
    Ok(fundraising_core::json::decode(&response.body.text())?)
}
