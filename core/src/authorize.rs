//! The authorisation request (endpoint 1): scopes and the `{auth_url}/connect/authorize` URL.

use crate::encoding::form_encode;
use crate::Error;

/// Scopes the service offers; `openid` and `profile` are mandatory and always sent.
pub const AVAILABLE_SCOPES: &[&str] = &[
    "openid",
    "profile",
    "email",
    "account",
    "fundraise",
    "offline_access",
];

/// Scopes the service announces but does not offer yet; asking for them is an error.
pub const ANNOUNCED_SCOPES: &[&str] = &["social", "crowdfunding"];

/// Prompt values of OpenID Connect that may be sent.
pub const PROMPTS: &[&str] = &["none", "login", "consent", "select_account"];

/// Checks the requested scopes and returns what to send: `openid` and `profile` first (added
/// when missing), then the others in the order given, without duplicates. Each entry may itself
/// be a space-delimited list. Unknown scopes are [`Error::UnknownScope`]; `social` and
/// `crowdfunding` are [`Error::ScopeUnavailable`].
///
/// ```
/// let s = fundraising_core::authorize::normalize_scopes(&["email fundraise", "openid"]).unwrap();
/// assert_eq!(s, ["openid", "profile", "email", "fundraise"]);
/// ```
pub fn normalize_scopes<S: AsRef<str>>(scopes: &[S]) -> Result<Vec<String>, Error> {
    let mut out: Vec<String> = vec!["openid".into(), "profile".into()];
    for scope in scopes.iter().flat_map(|s| s.as_ref().split_whitespace()) {
        if ANNOUNCED_SCOPES.contains(&scope) {
            return Err(Error::ScopeUnavailable {
                scope: scope.to_owned(),
            });
        }
        if !AVAILABLE_SCOPES.contains(&scope) {
            return Err(Error::UnknownScope {
                scope: scope.to_owned(),
            });
        }
        if !out.iter().any(|s| s == scope) {
            out.push(scope.to_owned());
        }
    }
    Ok(out)
}

/// Everything an authorisation request carries. Build the address with [`AuthorizeRequest::to_url`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorizeRequest {
    /// The identity server's address, `{auth_url}` (e.g. `http://127.0.0.1:8082`).
    pub auth_url: String,
    /// The application id (`client_id`).
    pub client_id: String,
    /// The registered home page the browser returns to (`redirect_uri`).
    pub redirect_uri: String,
    /// Requested scopes; see [`normalize_scopes`].
    pub scopes: Vec<String>,
    /// Value returned with the code so the caller can match the sign-in; must not be empty when given.
    pub state: Option<String>,
    /// One-off value (a GUID, see [`crate::nonce::guid_from_bytes`]); required.
    pub nonce: String,
    /// PKCE S256 challenge ([`crate::pkce::Pkce`]); sent with `code_challenge_method=S256`.
    pub code_challenge: Option<String>,
    /// OpenID Connect `prompt`: space-delimited values of [`PROMPTS`].
    pub prompt: Option<String>,
    /// OpenID Connect `login_hint`, e.g. the user's e-mail address.
    pub login_hint: Option<String>,
}

fn is_http_url(s: &str) -> bool {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"));
    matches!(rest, Some(r) if !r.is_empty() && !r.starts_with('/'))
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// A value that must not be blank or hold control characters; returned unchanged, so that
/// `state` and `nonce` come back exactly as the caller stored them.
fn required<'a>(field: &str, value: &'a str) -> Result<&'a str, Error> {
    if value.trim().is_empty() {
        Err(Error::invalid_argument(field, "is required"))
    } else if value.chars().any(char::is_control) {
        Err(Error::invalid_argument(
            field,
            "must not contain control characters",
        ))
    } else {
        Ok(value)
    }
}

impl AuthorizeRequest {
    /// The address to open: `{auth_url}/connect/authorize?client_id=..&response_type=code&scope=..
    /// &redirect_uri=..&state=..&nonce=..[&code_challenge=..&code_challenge_method=S256][&prompt=..][&login_hint=..]`,
    /// every value form-encoded (spaces as `+`). Refuses missing or malformed parts.
    ///
    /// ```
    /// use fundraising_core::authorize::AuthorizeRequest;
    /// let url = AuthorizeRequest {
    ///     auth_url: "http://127.0.0.1:8082".into(),
    ///     client_id: "demo-app".into(),
    ///     redirect_uri: "http://127.0.0.1:8080/".into(),
    ///     nonce: "n".into(),
    ///     ..Default::default()
    /// }
    /// .to_url()
    /// .unwrap();
    /// assert_eq!(url, "http://127.0.0.1:8082/connect/authorize?client_id=demo-app&response_type=code\
    ///     &scope=openid+profile&redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2F&nonce=n");
    /// ```
    pub fn to_url(&self) -> Result<String, Error> {
        let auth_url = self.auth_url.trim().trim_end_matches('/');
        if !is_http_url(auth_url) || auth_url.contains(['?', '#']) {
            return Err(Error::invalid_argument(
                "auth_url",
                "must be an absolute http(s) address without query or fragment",
            ));
        }
        let client_id = required("client_id", &self.client_id)?;
        let redirect_uri = self.redirect_uri.trim();
        if !is_http_url(redirect_uri) || redirect_uri.contains('#') {
            return Err(Error::invalid_argument(
                "redirect_uri",
                "must be an absolute http(s) address without fragment",
            ));
        }
        let nonce = required("nonce", &self.nonce)?;
        let scopes = normalize_scopes(&self.scopes)?.join(" ");

        let mut params: Vec<(&str, &str)> = vec![
            ("client_id", client_id),
            ("response_type", "code"),
            ("scope", &scopes),
            ("redirect_uri", redirect_uri),
        ];
        if let Some(state) = &self.state {
            params.push(("state", required("state", state)?));
        }
        params.push(("nonce", nonce));
        if let Some(challenge) = &self.code_challenge {
            let valid = challenge.len() == 43
                && challenge
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !valid {
                return Err(Error::invalid_argument(
                    "code_challenge",
                    "must be an S256 challenge: 43 base64url characters",
                ));
            }
            params.push(("code_challenge", challenge));
            params.push(("code_challenge_method", crate::pkce::METHOD));
        }
        if let Some(prompt) = &self.prompt {
            let prompt = required("prompt", prompt)?;
            if let Some(bad) = prompt.split_whitespace().find(|p| !PROMPTS.contains(p)) {
                return Err(Error::invalid_argument(
                    "prompt",
                    [
                        "unknown value \"",
                        bad,
                        "\"; use none, login, consent or select_account",
                    ]
                    .concat(),
                ));
            }
            params.push(("prompt", prompt));
        }
        if let Some(hint) = &self.login_hint {
            params.push(("login_hint", required("login_hint", hint)?));
        }

        let mut url = [auth_url, "/connect/authorize"].concat();
        for (i, (name, value)) in params.iter().enumerate() {
            url.push_str(if i == 0 { "?" } else { "&" });
            url.push_str(name);
            url.push('=');
            url.push_str(&form_encode(value));
        }
        Ok(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::form_decode;

    fn request() -> AuthorizeRequest {
        AuthorizeRequest {
            auth_url: "https://identity.example/".into(),
            client_id: "demo-app".into(),
            redirect_uri: "http://127.0.0.1:8080/home?x=1&y=é".into(),
            scopes: vec!["fundraise offline_access".into(), "email".into()],
            state: Some("st/ate".into()),
            nonce: "3f2504e0-4f89-41d3-9a0c-0305e82c3301".into(),
            code_challenge: Some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into()),
            prompt: Some("login consent".into()),
            login_hint: Some("demo@example.org".into()),
        }
    }

    fn params(url: &str) -> Vec<(String, String)> {
        let query = url.split_once('?').unwrap().1;
        query
            .split('&')
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                (k.to_owned(), form_decode(v).unwrap())
            })
            .collect()
    }

    #[test]
    fn full_url() {
        let url = request().to_url().unwrap();
        assert!(url.starts_with("https://identity.example/connect/authorize?"));
        assert!(
            url.contains("&scope=openid+profile+fundraise+offline_access+email&"),
            "{url}"
        );
        assert!(
            url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fhome%3Fx%3D1%26y%3D%C3%A9&"),
            "{url}"
        );
        let expected: Vec<(String, String)> = [
            ("client_id", "demo-app"),
            ("response_type", "code"),
            ("scope", "openid profile fundraise offline_access email"),
            ("redirect_uri", "http://127.0.0.1:8080/home?x=1&y=é"),
            ("state", "st/ate"),
            ("nonce", "3f2504e0-4f89-41d3-9a0c-0305e82c3301"),
            (
                "code_challenge",
                "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            ),
            ("code_challenge_method", "S256"),
            ("prompt", "login consent"),
            ("login_hint", "demo@example.org"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        assert_eq!(params(&url), expected);
    }

    #[test]
    fn optional_parts_are_left_out() {
        let url = AuthorizeRequest {
            state: None,
            code_challenge: None,
            prompt: None,
            login_hint: None,
            scopes: vec![],
            ..request()
        }
        .to_url()
        .unwrap();
        let names: Vec<String> = params(&url).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            names,
            [
                "client_id",
                "response_type",
                "scope",
                "redirect_uri",
                "nonce"
            ]
        );
    }

    #[test]
    fn scopes() {
        assert_eq!(
            normalize_scopes::<&str>(&[]).unwrap(),
            ["openid", "profile"]
        );
        assert_eq!(
            normalize_scopes(&["profile email email openid"]).unwrap(),
            ["openid", "profile", "email"]
        );
        assert_eq!(
            normalize_scopes(&["email", "social"]).unwrap_err(),
            Error::ScopeUnavailable {
                scope: "social".into()
            }
        );
        let err = normalize_scopes(&["crowdfunding"]).unwrap_err();
        assert_eq!(err.code(), "scope_unavailable");
        assert!(err.to_string().contains("not available"), "{err}");
        let err = normalize_scopes(&["admin"]).unwrap_err();
        assert_eq!(err.code(), "unknown_scope");
        assert!(err.to_string().contains("\"admin\""), "{err}");
        // Scopes are case-sensitive in OAuth.
        assert_eq!(
            normalize_scopes(&["Email"]).unwrap_err().code(),
            "unknown_scope"
        );
        let err = AuthorizeRequest {
            scopes: vec!["social".into()],
            ..request()
        }
        .to_url()
        .unwrap_err();
        assert_eq!(err.code(), "scope_unavailable");
    }

    #[test]
    fn refuses_bad_parts() {
        let cases: Vec<(AuthorizeRequest, &str)> = vec![
            (
                AuthorizeRequest {
                    nonce: " ".into(),
                    ..request()
                },
                "nonce",
            ),
            (
                AuthorizeRequest {
                    client_id: "".into(),
                    ..request()
                },
                "client_id",
            ),
            (
                AuthorizeRequest {
                    redirect_uri: "/home".into(),
                    ..request()
                },
                "redirect_uri",
            ),
            (
                AuthorizeRequest {
                    redirect_uri: "http://a/#x".into(),
                    ..request()
                },
                "redirect_uri",
            ),
            (
                AuthorizeRequest {
                    redirect_uri: "javascript:alert(1)".into(),
                    ..request()
                },
                "redirect_uri",
            ),
            (
                AuthorizeRequest {
                    auth_url: "identity.example".into(),
                    ..request()
                },
                "auth_url",
            ),
            (
                AuthorizeRequest {
                    auth_url: "http://i/?a=b".into(),
                    ..request()
                },
                "auth_url",
            ),
            (
                AuthorizeRequest {
                    state: Some("".into()),
                    ..request()
                },
                "state",
            ),
            (
                AuthorizeRequest {
                    code_challenge: Some("short".into()),
                    ..request()
                },
                "code_challenge",
            ),
            (
                AuthorizeRequest {
                    prompt: Some("always".into()),
                    ..request()
                },
                "prompt",
            ),
            (
                AuthorizeRequest {
                    login_hint: Some("".into()),
                    ..request()
                },
                "login_hint",
            ),
        ];
        for (req, field) in cases {
            match req.to_url() {
                Err(Error::InvalidArgument { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
    }
}
