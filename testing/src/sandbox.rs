//! [`Sandbox`]: the sandbox's addresses, and its test routes as calls.

use fundraising_client::{Client, Session, SignInOptions};
use serde_json::{json, Value};

use crate::http::call;
use crate::Error;

/// The sandbox a test runs against: its resource API and its identity server (both answer the
/// test routes, and reach the same sandbox).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    base_url: String,
    auth_url: String,
}

impl Sandbox {
    /// The sandbox at these addresses (`{base_url}` and `{auth_url}`).
    pub fn new(base_url: impl Into<String>, auth_url: impl Into<String>) -> Sandbox {
        Sandbox {
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            auth_url: auth_url.into().trim_end_matches('/').to_owned(),
        }
    }

    /// The sandbox `fundraising-sandbox exec` started: the addresses it exported to the
    /// build (`FUNDRAISING_BASE_URL`, `FUNDRAISING_AUTH_URL`, read at compile time, since a
    /// test in a browser has no environment), else the sandbox's defaults
    /// (`http://127.0.0.1:8081`, `http://127.0.0.1:8082`).
    pub fn from_env() -> Sandbox {
        Sandbox::new(
            option_env!("FUNDRAISING_BASE_URL").unwrap_or("http://127.0.0.1:8081"),
            option_env!("FUNDRAISING_AUTH_URL").unwrap_or("http://127.0.0.1:8082"),
        )
    }

    /// The resource API (`{base_url}`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The identity server (`{auth_url}`).
    pub fn auth_url(&self) -> &str {
        &self.auth_url
    }

    /// Signs `user` (a configured sandbox user's e-mail address) in on `client`, through the
    /// real path: the client's authorize request, the sandbox's headless sign-in, and the
    /// client's redemption of the code at the companion. The client is signed in afterwards
    /// (and tells its session changes, as after any sign-in); the session is returned.
    pub async fn sign_in(&self, client: &Client, user: &str) -> Result<Session, Error> {
        self.sign_in_with(client, user, &SignInOptions::default())
            .await
    }

    /// [`Sandbox::sign_in`] with these sign-in options (scopes, a return path).
    pub async fn sign_in_with(
        &self,
        client: &Client,
        user: &str,
        options: &SignInOptions,
    ) -> Result<Session, Error> {
        let authorize = client.prepare_redirect(options)?;
        let callback = self.callback_for(&authorize, user).await?;
        client
            .handle_callback(Some(&callback))
            .await?
            .ok_or_else(|| Error::NoSession(callback))
    }

    /// The address the browser would come back to after `user` signed in and consented for
    /// `authorize_url` (a client's authorize request): the redirect URI with `code` and
    /// `state`. Hand it to [`Client::handle_callback`].
    pub async fn callback_for(&self, authorize_url: &str, user: &str) -> Result<String, Error> {
        self.answer_for(authorize_url, user, "allow").await
    }

    /// The address the browser would come back to after `user` refused consent: the redirect
    /// URI with `error=access_denied`.
    pub async fn denied_callback_for(
        &self,
        authorize_url: &str,
        user: &str,
    ) -> Result<String, Error> {
        self.answer_for(authorize_url, user, "deny").await
    }

    async fn answer_for(
        &self,
        authorize_url: &str,
        user: &str,
        consent: &str,
    ) -> Result<String, Error> {
        let body = json!({ "authorize_url": authorize_url, "user": user, "consent": consent });
        let answer = call("POST", &self.route(&self.auth_url, "sign-in"), Some(&body)).await?;
        answer
            .get("callback_url")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| Error::Unreachable(format!("no callback_url in {answer}")))
    }

    /// Adds a fault (`docs/sandbox.md`'s members: `endpoint`, `status`, `delay_ms`, `drop`,
    /// `times`, ...) and returns its id.
    ///
    /// ```no_run
    /// # async fn run(sandbox: fundraising_testing::Sandbox) {
    /// let id = sandbox
    ///     .add_fault(serde_json::json!({"endpoint": "campaign", "status": 503, "times": 1}))
    ///     .await
    ///     .expect("added");
    /// # let _ = id;
    /// # }
    /// ```
    pub async fn add_fault(&self, fault: Value) -> Result<u64, Error> {
        let answer = call("POST", &self.route(&self.base_url, "faults"), Some(&fault)).await?;
        answer
            .get("id")
            .and_then(Value::as_u64)
            .ok_or_else(|| Error::Unreachable(format!("no fault id in {answer}")))
    }

    /// The faults in force, oldest first, each as the sandbox shows it (`id`, `remaining`, ...).
    pub async fn faults(&self) -> Result<Vec<Value>, Error> {
        let answer = call("GET", &self.route(&self.base_url, "faults"), None).await?;
        match answer.get("faults") {
            Some(Value::Array(faults)) => Ok(faults.clone()),
            _ => Err(Error::Unreachable(format!("no faults in {answer}"))),
        }
    }

    /// Removes the fault `id`.
    pub async fn remove_fault(&self, id: u64) -> Result<(), Error> {
        let url = [&self.route(&self.base_url, "faults"), "/", &id.to_string()].concat();
        call("DELETE", &url, None).await.map(drop)
    }

    /// Removes every fault in force; how many there were.
    pub async fn clear_faults(&self) -> Result<u64, Error> {
        let answer = call("DELETE", &self.route(&self.base_url, "faults"), None).await?;
        Ok(answer.get("removed").and_then(Value::as_u64).unwrap_or(0))
    }

    /// The id of the last request the sandbox logged: pass it to [`Sandbox::requests`] to see
    /// only the requests after it.
    pub async fn last_request_id(&self) -> Result<u64, Error> {
        let url = [&self.route(&self.base_url, "requests"), "?path=/"].concat();
        let answer = call("GET", &url, None).await?;
        Ok(answer.get("last_id").and_then(Value::as_u64).unwrap_or(0))
    }

    /// The requests logged after `since`, oldest first, that `filter` selects (pairs of
    /// `listener`, `endpoint`, `app_id`, `path`, `method`); each as the log holds it (`id`,
    /// `method`, `path`, `status`, `endpoint`, `fault`, ...).
    pub async fn requests(&self, since: u64, filter: &[(&str, &str)]) -> Result<Vec<Value>, Error> {
        let mut url = [
            &self.route(&self.base_url, "requests"),
            "?since=",
            &since.to_string(),
        ]
        .concat();
        for (name, value) in filter {
            url.push('&');
            url.push_str(name);
            url.push('=');
            url.push_str(&String::from(js_sys::encode_uri_component(value)));
        }
        let answer = call("GET", &url, None).await?;
        match answer.get("requests") {
            Some(Value::Array(requests)) => Ok(requests.clone()),
            _ => Err(Error::Unreachable(format!("no requests in {answer}"))),
        }
    }

    fn route(&self, origin: &str, name: &str) -> String {
        [origin, "/_sandbox/", name].concat()
    }
}
