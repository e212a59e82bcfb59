//! The four resource operations (endpoints 4 to 7): argument checks and addresses, the
//! check of an answer's status, and the typed reading of its body. The I/O is the client's
//! one request path (`client.rs`).

use crate::Error;

cfg_operations! {
    use fundraising_core::shape::Model;
    use serde::de::DeserializeOwned;

    use crate::http::{HttpResponse, Method};
    use crate::json::service_error;

    /// A request to make: method, absolute URL, JSON body, and whether it may be retried.
    #[derive(Debug, Clone)]
    pub(crate) struct Call {
        pub method: Method,
        pub url: String,
        pub body: Option<String>,
        pub retry: bool,
    }
}

/// Addresses of the resource API: `{base_url}/{app_id}/v1/...`, or, through a companion in
/// BFF mode, `{companion}/api/...` (the companion forwards to `{base_url}/{app_id}/v1/...`).
#[derive(Clone)]
pub(crate) struct ResourceApi {
    /// Everything before the operation's own path, without a trailing `/`.
    prefix: String,
    /// Through a companion in BFF mode (the request path tells its calls by it).
    #[cfg(any(
        feature = "campaign",
        feature = "donation",
        feature = "events",
        feature = "pages"
    ))]
    bff: bool,
}

/// The address (the client's `Debug` shows it).
impl std::fmt::Debug for ResourceApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceApi")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn http_url(name: &str, url: &str) -> Result<String, Error> {
    let parsed =
        web_sys::Url::new(url).map_err(|_| Error::invalid(name, "must be an absolute URL"))?;
    if !matches!(parsed.protocol().as_str(), "http:" | "https:") {
        return Err(Error::invalid(name, "must be an http or https URL"));
    }
    Ok(url.trim_end_matches('/').to_owned())
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
            &String::from(js_sys::encode_uri_component(app_id)),
            "/v1",
        ]
        .concat();
        Ok(ResourceApi {
            prefix,
            #[cfg(any(
                feature = "campaign",
                feature = "donation",
                feature = "events",
                feature = "pages"
            ))]
            bff: false,
        })
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
        Ok(ResourceApi {
            prefix,
            #[cfg(any(
                feature = "campaign",
                feature = "donation",
                feature = "events",
                feature = "pages"
            ))]
            bff: true,
        })
    }

    cfg_operations! {
        /// True when calls go through a companion in BFF mode.
        pub(crate) fn bff(&self) -> bool {
            self.bff
        }
    }

    #[cfg(feature = "campaign")]
    /// `GET /{appId}/v1/campaign/byshortname/{shortName}`.
    pub(crate) fn campaign(&self, short_name: &str) -> Result<Call, Error> {
        fundraising_core::validate::path_segment("short_name", short_name)?;
        Ok(self.get(&["campaign", "byshortname", short_name], ""))
    }

    #[cfg(feature = "donation")]
    /// `GET /{appId}/v1/donation/ref/{thirdPartyReference}`.
    pub(crate) fn donation(&self, reference: &str) -> Result<Call, Error> {
        fundraising_core::validate::path_segment("reference", reference)?;
        Ok(self.get(&["donation", "ref", reference], ""))
    }

    #[cfg(feature = "events")]
    /// `POST /{appId}/v1/event/`, never retried (no duplicate events).
    pub(crate) fn create_event(
        &self,
        event: &fundraising_core::model::Event,
    ) -> Result<Call, Error> {
        use crate::convert::{to_js, to_json};
        fundraising_core::validate::event(event)?;
        // Dates as the service writes and reads them: `"\/Date(ms+0000)\/"`.
        let body = fundraising_core::json::escape_slashes(&to_json(&to_js(event)));
        Ok(Call {
            method: Method::Post,
            url: self.url(&["event", ""], ""),
            body: Some(body),
            retry: false,
        })
    }

    #[cfg(feature = "pages")]
    /// `GET /{appId}/v1/event/{eventId}/pages?page=&pagesize=`.
    pub(crate) fn event_pages(
        &self,
        event_id: i32,
        page: Option<u32>,
        page_size: Option<u32>,
    ) -> Result<Call, Error> {
        use fundraising_core::encoding::{decimal, signed_decimal};
        use fundraising_core::validate;
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

    #[cfg(any(feature = "campaign", feature = "donation", feature = "pages"))]
    fn get(&self, segments: &[&str], query: &str) -> Call {
        Call {
            method: Method::Get,
            url: self.url(segments, query),
            body: None,
            retry: true,
        }
    }

    cfg_operations! {
        fn url(&self, segments: &[&str], query: &str) -> String {
            let mut url = self.prefix.clone();
            for segment in segments {
                url.push('/');
                url.push_str(&String::from(js_sys::encode_uri_component(segment)));
            }
            url.push_str(query);
            url
        }
    }
}

cfg_operations! {
    /// A 2xx answer as it is; any other status as the service's error.
    pub(crate) fn success(response: HttpResponse) -> Result<HttpResponse, Error> {
        if (200..300).contains(&response.status) {
            Ok(response)
        } else {
            let error = service_error(response.status, &response.text());
            Err(fundraising_core::Error::Service(error).into())
        }
    }

    /// A 2xx answer's body read as the model `M` by core's decoder.
    pub(crate) fn typed<M: Model + DeserializeOwned>(response: &HttpResponse) -> Result<M, Error> {
        Ok(fundraising_core::json::decode(&response.text())?)
    }
}
