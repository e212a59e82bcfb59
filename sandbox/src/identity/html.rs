//! The HTML pages of the identity server: login, consent and errors.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// What a scope lets the application do, in plain words.
pub fn scope_description(scope: &str) -> &'static str {
    match scope {
        "openid" => "Know who you are when you sign in",
        "profile" => "See your name",
        "email" => "See your email address",
        "account" => "Create, change and view your account",
        "fundraise" => "Create, change and view your fundraising pages and team pages",
        "offline_access" => "Keep this access while you are not using the application",
        _ => "An access the sandbox does not describe",
    }
}

/// Path of the pages' style sheet (served, so the CSP needs no inline style).
pub const STYLESHEET_PATH: &str = "/connect/sandbox.css";
/// Path of the pages' icon, which browsers ask for on their own: answered, so a sign-in
/// pop-up's console shows no 404.
pub const FAVICON_PATH: &str = "/favicon.ico";

/// The icon: a small SVG (a green disc).
const FAVICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">\
<circle cx=\"8\" cy=\"8\" r=\"7\" fill=\"#2a7\"/></svg>";

/// `GET /favicon.ico`: the icon.
pub async fn favicon() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("image/svg+xml"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=86400"),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        FAVICON,
    )
        .into_response()
}

/// The Content-Security-Policy of every identity page: nothing inline, nothing from elsewhere,
/// no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
base-uri 'none'; frame-ancestors 'none'";

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}\
label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}\
button{margin:1rem .5rem 0 0;padding:.5rem 1.2rem}.message{color:#a00;font-weight:bold}\
.note{color:#666;font-size:.9rem}";

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{title} - Fundraising sandbox</title><link rel=\"icon\" href=\"{FAVICON_PATH}\" type=\"image/svg+xml\">\
<link rel=\"stylesheet\" href=\"{STYLESHEET_PATH}\"></head>\
<body><h1>{title}</h1>{body}<p class=\"note\">Fundraising sandbox identity server</p></body></html>\n",
        title = escape(title),
    );
    (
        status,
        [
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            ),
            (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        Html(html),
    )
        .into_response()
}

/// `GET /connect/sandbox.css`: the pages' style sheet.
pub async fn stylesheet() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/css; charset=utf-8"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        STYLE,
    )
        .into_response()
}

/// An error page; used when the client or the redirect_uri cannot be trusted.
pub fn error_page(status: StatusCode, message: &str) -> Response {
    page(
        status,
        "Sign-in error",
        &format!(
            "<p class=\"message\" id=\"error\">{}</p><p>Nothing was sent back to the application.</p>",
            escape(message)
        ),
    )
}

/// The login form (`username`, `password`, submit), optionally with a message.
pub fn login_page(
    status: StatusCode,
    request_id: &str,
    app_id: &str,
    username: &str,
    message: Option<&str>,
) -> Response {
    let message = message
        .map(|m| {
            format!(
                "<p class=\"message\" id=\"message\" role=\"alert\">{}</p>",
                escape(m)
            )
        })
        .unwrap_or_default();
    page(
        status,
        "Sign in",
        &format!(
            "<p>Sign in to continue to <strong>{app}</strong>.</p>{message}\
<form method=\"post\" action=\"/connect/login\">\
<input type=\"hidden\" name=\"request\" value=\"{request}\">\
<label for=\"username\">Email</label>\
<input id=\"username\" name=\"username\" type=\"email\" autocomplete=\"username\" required value=\"{username}\">\
<label for=\"password\">Password</label>\
<input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>\
<button type=\"submit\" id=\"login\" name=\"login\" value=\"1\">Sign in</button></form>",
            app = escape(app_id),
            request = escape(request_id),
            username = escape(username),
        ),
    )
}

/// The consent page: the requested scopes in plain words, buttons `allow` and `deny`.
pub fn consent_page(
    request_id: &str,
    app_id: &str,
    user_name: &str,
    scopes: &[String],
) -> Response {
    let items: String = scopes
        .iter()
        .map(|s| {
            format!(
                "<li data-scope=\"{scope}\">{text}</li>",
                scope = escape(s),
                text = escape(scope_description(s))
            )
        })
        .collect();
    page(
        StatusCode::OK,
        "Allow access?",
        &format!(
            "<p>Signed in as <strong>{user}</strong>.</p>\
<p><strong>{app}</strong> would like to:</p><ul id=\"scopes\">{items}</ul>\
<form method=\"post\" action=\"/connect/consent\">\
<input type=\"hidden\" name=\"request\" value=\"{request}\">\
<button type=\"submit\" id=\"allow\" name=\"allow\" value=\"1\">Allow</button>\
<button type=\"submit\" id=\"deny\" name=\"deny\" value=\"1\">Deny</button></form>",
            user = escape(user_name),
            app = escape(app_id),
            request = escape(request_id),
        ),
    )
}

/// Fallback for unknown paths of the identity server.
pub async fn not_found() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "There is no such page on the identity server.",
    )
}
