//! The callback parser: what the identity server sends back to `redirect_uri`.

use std::fmt;

use crate::encoding::form_decode;
use crate::Error;

/// A successful sign-in callback: the authorisation code and the state it belongs to.
/// `Debug` hides the code.
#[derive(Clone, PartialEq, Eq)]
pub struct Callback {
    /// The authorisation code, to redeem once at the token endpoint.
    pub code: String,
    /// The state sent with the authorisation request.
    pub state: String,
}

impl fmt::Debug for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callback")
            .field("code", &"[redacted]")
            .field("state", &self.state)
            .finish()
    }
}

/// Parameters this parser reads; any of them repeated is an error. Others are ignored.
const KNOWN: &[&str] = &["code", "state", "error", "error_description", "error_uri"];

/// Parses a callback from a full URL (`https://site/?code=..&state=..`), a query string
/// (`?code=..` or `code=..`) or a fragment (`#code=..`). The query is read first; the
/// fragment when the query carries neither `code` nor `error`.
///
/// Returns the code and state, or [`Error::OAuth`] when the server sent `error` (with
/// `error_description`, `error_uri` and `state` when present). A missing or empty `code`,
/// `state` or `error`, any known parameter given twice, both `code` and `error`, or bad
/// percent-encoding is [`Error::InvalidCallback`]. Empty `error_description`/`error_uri`
/// count as absent.
///
/// ```
/// let cb = fundraising_core::callback::parse("http://127.0.0.1:8080/?code=abc&state=xyz").unwrap();
/// assert_eq!((cb.code.as_str(), cb.state.as_str()), ("abc", "xyz"));
/// ```
pub fn parse(input: &str) -> Result<Callback, Error> {
    let input = input.trim();
    if input.is_empty() {
        return Err(Error::invalid_callback("the callback is empty"));
    }
    let (before_hash, fragment) = match input.split_once('#') {
        Some((before, after)) => (before, Some(after)),
        None => (input, None),
    };
    let query = match before_hash.split_once('?') {
        Some((_, query)) => Some(query),
        None if before_hash.contains("://") || before_hash.starts_with('/') => None,
        None if before_hash.is_empty() => None,
        None => Some(before_hash),
    };
    let mut params = None;
    for part in [query, fragment].into_iter().flatten() {
        let parsed = parse_params(part)?;
        if parsed.iter().any(|(k, _)| k == "code" || k == "error") {
            params = Some(parsed);
            break;
        }
    }
    let params = params
        .ok_or_else(|| Error::invalid_callback("no `code` or `error` parameter in the callback"))?;
    from_params(&params)
}

/// Splits `a=b&c=d`, decoding names and values.
fn parse_params(part: &str) -> Result<Vec<(String, String)>, Error> {
    part.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = form_decode(name)
                .ok_or_else(|| Error::invalid_callback("malformed percent-encoding"))?;
            let value = form_decode(value).ok_or_else(|| {
                Error::invalid_callback(["malformed percent-encoding in `", &name, "`"].concat())
            })?;
            Ok((name, value))
        })
        .collect()
}

/// The single value of a parameter; `Ok(None)` when absent, an error when repeated.
fn single<'a>(params: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, Error> {
    let mut values = params.iter().filter(|(k, _)| k == name).map(|(_, v)| v);
    let first = values.next();
    if values.next().is_some() {
        return Err(Error::invalid_callback(
            ["parameter `", name, "` appears more than once"].concat(),
        ));
    }
    Ok(first.map(String::as_str))
}

fn non_empty(params: &[(String, String)], name: &str) -> Result<String, Error> {
    match single(params, name)? {
        None => Err(Error::invalid_callback(
            ["parameter `", name, "` is missing"].concat(),
        )),
        Some("") => Err(Error::invalid_callback(
            ["parameter `", name, "` is empty"].concat(),
        )),
        Some(v) => Ok(v.to_owned()),
    }
}

fn from_params(params: &[(String, String)]) -> Result<Callback, Error> {
    for name in KNOWN {
        single(params, name)?;
    }
    let has_code = single(params, "code")?.is_some();
    if single(params, "error")?.is_some() {
        if has_code {
            return Err(Error::invalid_callback(
                "the callback carries both `code` and `error`",
            ));
        }
        let optional = |name: &str| -> Result<Option<String>, Error> {
            Ok(single(params, name)?
                .filter(|v| !v.is_empty())
                .map(str::to_owned))
        };
        return Err(Error::OAuth {
            error: non_empty(params, "error")?,
            description: optional("error_description")?,
            uri: optional("error_uri")?,
            state: optional("state")?,
        });
    }
    Ok(Callback {
        code: non_empty(params, "code")?,
        state: non_empty(params, "state")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(input: &str) -> (String, String) {
        let cb = parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        (cb.code, cb.state)
    }

    fn invalid(input: &str) -> String {
        match parse(input) {
            Err(Error::InvalidCallback { message }) => message,
            other => panic!("{input}: expected InvalidCallback, got {other:?}"),
        }
    }

    #[test]
    fn every_input_form() {
        let expected = ("c 1/+".to_owned(), "s=2".to_owned());
        for input in [
            "http://127.0.0.1:8080/?code=c+1%2F%2B&state=s%3D2",
            "https://site.example/home?x=1&code=c%201%2F%2B&state=s%3D2&session_state=z#frag",
            "?code=c+1%2F%2B&state=s%3D2",
            "code=c+1%2F%2B&state=s%3D2",
            "#code=c+1%2F%2B&state=s%3D2",
            "http://127.0.0.1:8080/#code=c+1%2F%2B&state=s%3D2",
            "/home?state=s%3D2&&code=c+1%2F%2B",
            "  ?code=c+1%2F%2B&state=s%3D2\n",
        ] {
            assert_eq!(ok(input), expected, "{input}");
        }
    }

    #[test]
    fn query_wins_over_fragment() {
        assert_eq!(
            ok("http://a/?code=q&state=s#code=f&state=t"),
            ("q".into(), "s".into())
        );
        assert_eq!(
            ok("http://a/?foo=1#code=f&state=t"),
            ("f".into(), "t".into())
        );
    }

    #[test]
    fn oauth_error_is_typed() {
        let err = parse(
            "http://a/?error=access_denied&error_description=The+user+said+no&error_uri=http%3A%2F%2Fx&state=s1",
        )
        .unwrap_err();
        assert_eq!(err.code(), "oauth_error");
        assert_eq!(
            err,
            Error::OAuth {
                error: "access_denied".into(),
                description: Some("The user said no".into()),
                uri: Some("http://x".into()),
                state: Some("s1".into()),
            }
        );
        assert_eq!(
            err.to_string(),
            "sign-in failed: access_denied (The user said no)"
        );
        let bare = parse("#error=login_required&error_description=").unwrap_err();
        assert_eq!(
            bare,
            Error::OAuth {
                error: "login_required".into(),
                description: None,
                uri: None,
                state: None,
            }
        );
    }

    #[test]
    fn missing_empty_repeated_and_malformed() {
        assert!(invalid("").contains("empty"));
        assert!(invalid("http://a/").contains("no `code`"));
        assert!(invalid("http://a/?state=s").contains("no `code`"));
        assert!(invalid("?code=c").contains("`state` is missing"));
        assert!(invalid("?code=&state=s").contains("`code` is empty"));
        assert!(invalid("?code&state=s").contains("`code` is empty"));
        assert!(invalid("?code=c&state=").contains("`state` is empty"));
        assert!(invalid("?code=a&code=b&state=s").contains("`code` appears more than once"));
        assert!(invalid("?code=a&state=s&state=t").contains("`state` appears more than once"));
        assert!(invalid("?error=x&error=y").contains("`error` appears more than once"));
        assert!(invalid("?error=").contains("`error` is empty"));
        assert!(invalid("?error=x&code=c&state=s").contains("both"));
        assert!(invalid("?code=%zz&state=s").contains("percent-encoding in `code`"));
        assert!(invalid("?code=%FF&state=s").contains("percent-encoding"));
        assert!(invalid("?code=a&state=s&error_uri=1&error_uri=2").contains("`error_uri`"));
    }

    #[test]
    fn debug_hides_the_code() {
        let cb = parse("?code=secret-code&state=s").unwrap();
        let shown = format!("{cb:?}");
        assert!(!shown.contains("secret-code"), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
    }
}
