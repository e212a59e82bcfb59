#!/usr/bin/env python3
"""Test helper for the browser tests of fundraising-client (python3 standard library only).

  python3 scripts/test-helper.py --port PORT [--upstream URL]

Every answer carries `Access-Control-Allow-Origin: *`.

GET /healthz
    200 "ok".

GET /mint?authorize=<authorize URL>[&username=..&password=..&decision=allow|deny]
    A code minter: it drives the identity server's real login form and consent page for an
    authorize URL the client built (so state, nonce and PKCE challenge are the client's own),
    server-side, with a cookie jar of its own: GET authorize -> login form (fills the inputs
    named username and password, submits with the form's own hidden fields) -> consent page
    (submits the button named allow, or deny) -> the redirect to the application's
    redirect_uri. Answers {"callbackUrl": "<redirect_uri>?code=..&state=.."}; 502 with
    {"error": ...} when the flow does not end in a redirect.

ANY /fault/<key>/<failures>/<retryAfter>/<path...>
    A fault proxy in front of the resource API (--upstream, default $FUNDRAISING_BASE_URL): the
    first <failures> requests of <key> get 503 with `Retry-After: <retryAfter>` (no body); every
    later one is forwarded to <upstream>/<path...> with its query, method, body and headers,
    and the upstream answer is relayed. CORS preflights (OPTIONS) are answered here and not
    counted.

ANY /slow/<ms>/<path...>
    Waits <ms> milliseconds, then forwards like the fault proxy (for request timeouts).

ANY /hang/<key>/<path...>
    Holds the request open without answering and watches its connection: records that it
    arrived, then whether the client closed the connection (an aborted fetch does), for at most
    HANG_SECONDS; then answers 504. For tests that cancel a request by dropping its future.

GET /hang-state/<key>
    {"arrived": bool, "closed": bool} of the last /hang/<key>/... request.

GET /count/<key>
    {"requests": N}: how many non-preflight requests /fault/<key>/... has received.

GET /body/<key>
    {"body": "<text>"}: the body of the last request /fault/<key>/... received, byte for byte
    as sent (null when it had none), so a test can read exactly what reached the sandbox.
"""

import argparse
import html.parser
import json
import os
import select
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEMO_USER = "demo@example.org"
DEMO_PASSWORD = "demo-password"

counts = {}
bodies = {}
hangs = {}
counts_lock = threading.Lock()

# The longest a /hang/ request is held open.
HANG_SECONDS = 10


class FormParser(html.parser.HTMLParser):
    """Collects the forms of a page: action, method, inputs and submit buttons."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action", ""), "method": (attrs.get("method") or "get").lower(),
                               "inputs": {}, "buttons": {}})
        elif self.forms and tag == "input" and attrs.get("name"):
            self.forms[-1]["inputs"][attrs["name"]] = attrs.get("value") or ""
        elif self.forms and tag == "button" and attrs.get("name"):
            self.forms[-1]["buttons"][attrs["name"]] = attrs.get("value") or ""


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def mint(authorize, username, password, decision):
    """Runs the login and consent pages for `authorize`; returns the callback URL."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(authorize).query)
    redirect_uri = query.get("redirect_uri", [""])[0]
    if not redirect_uri:
        raise ValueError("the authorize URL has no redirect_uri")
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()), NoRedirect())
    url, data = authorize, None
    for _ in range(10):
        request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
        if data is not None:
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            response = opener.open(request, timeout=10)
            status, headers, body = response.status, response.headers, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            status, headers, body = e.code, e.headers, e.read().decode("utf-8", "replace")
        if status in (301, 302, 303, 307, 308):
            location = urllib.parse.urljoin(url, headers.get("Location", ""))
            if location.split("?")[0] == redirect_uri.split("?")[0]:
                return location
            url, data = location, None
            continue
        if status != 200:
            raise ValueError(f"{url} answered {status}: {body[:300]}")
        parser = FormParser()
        parser.feed(body)
        form = next((f for f in parser.forms if "password" in f["inputs"]), None)
        fields = {}
        if form is not None:
            fields = dict(form["inputs"], username=username, password=password)
            fields.update(form["buttons"])
        else:
            form = next((f for f in parser.forms if decision in f["buttons"]), None)
            if form is None:
                raise ValueError(f"{url}: neither a login form nor a consent page: {body[:300]}")
            fields = dict(form["inputs"])
            fields[decision] = form["buttons"][decision]
        url = urllib.parse.urljoin(url, form["action"] or url)
        data = urllib.parse.urlencode(fields).encode()
    raise ValueError("too many steps without reaching the redirect_uri")


class Handler(BaseHTTPRequestHandler):
    upstream = ""
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("test-helper: " + (fmt % args) + "\n")

    def cors(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Expose-Headers", "Retry-After, Location")

    def reply(self, status, body=b"", content_type="application/json", extra=()):
        self.send_response(status)
        self.cors()
        for name, value in extra:
            self.send_header(name, value)
        if body:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def json(self, status, value):
        self.reply(status, json.dumps(value).encode())

    def do_OPTIONS(self):
        self.send_response(204)
        self.cors()
        self.send_header("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
        self.send_header("Access-Control-Allow-Headers",
                         self.headers.get("Access-Control-Request-Headers", "Content-Type, Authorization"))
        self.send_header("Access-Control-Max-Age", "0")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def do_PUT(self):
        self.route()

    def do_DELETE(self):
        self.route()

    def route(self):
        parts = urllib.parse.urlsplit(self.path)
        segments = parts.path.split("/")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        try:
            if parts.path == "/healthz":
                self.reply(200, b"ok", "text/plain")
            elif parts.path == "/mint":
                query = urllib.parse.parse_qs(parts.query)
                get = lambda name, default: query.get(name, [default])[0]
                try:
                    callback = mint(get("authorize", ""), get("username", DEMO_USER),
                                    get("password", DEMO_PASSWORD), get("decision", "allow"))
                    self.json(200, {"callbackUrl": callback})
                except (ValueError, OSError) as e:
                    self.json(502, {"error": str(e)})
            elif len(segments) >= 3 and segments[1] == "body":
                with counts_lock:
                    body_seen = bodies.get(segments[2])
                self.json(200, {"body": None if body_seen is None else body_seen.decode("utf-8")})
            elif len(segments) >= 3 and segments[1] == "count":
                with counts_lock:
                    self.json(200, {"requests": counts.get(segments[2], 0)})
            elif len(segments) >= 3 and segments[1] == "hang-state":
                with counts_lock:
                    state = hangs.get(segments[2], {"arrived": False, "closed": False})
                self.json(200, dict(state))
            elif len(segments) >= 3 and segments[1] == "hang":
                self.hang(segments[2])
            elif len(segments) >= 4 and segments[1] == "slow":
                time.sleep(int(segments[2]) / 1000)
                self.forward("/".join(segments[3:]), parts.query, body)
            elif len(segments) >= 5 and segments[1] == "fault":
                self.fault(segments[2], int(segments[3]), segments[4], "/".join(segments[5:]), parts.query, body)
            else:
                self.json(404, {"error": "no such test-helper route"})
        except (ValueError, IndexError) as e:
            self.json(400, {"error": str(e)})

    def hang(self, key):
        state = {"arrived": True, "closed": False}
        with counts_lock:
            hangs[key] = state
        deadline = time.monotonic() + HANG_SECONDS
        while time.monotonic() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        with counts_lock:
                            state["closed"] = True
                        self.close_connection = True
                        return
                    time.sleep(0.05)  # bytes of a next request: not a close
                except OSError:
                    with counts_lock:
                        state["closed"] = True
                    self.close_connection = True
                    return
        self.json(504, {"error": "held for the whole hang time"})

    def fault(self, key, failures, retry_after, path, query, body):
        with counts_lock:
            seen = counts.get(key, 0)
            counts[key] = seen + 1
            bodies[key] = body
        if seen < failures:
            self.reply(503, extra=[("Retry-After", retry_after)])
            return
        self.forward(path, query, body)

    def forward(self, path, query, body):
        url = self.upstream.rstrip("/") + "/" + path + ("?" + query if query else "")
        request = urllib.request.Request(url, data=body, method=self.command)
        for name in ("Content-Type", "Authorization", "Accept"):
            if self.headers.get(name):
                request.add_header(name, self.headers[name])
        try:
            response = urllib.request.build_opener(NoRedirect()).open(request, timeout=10)
            status, headers, data = response.status, response.headers, response.read()
        except urllib.error.HTTPError as e:
            status, headers, data = e.code, e.headers, e.read()
        self.reply(status, data, headers.get("Content-Type", "application/json"),
                   [(n, headers[n]) for n in ("Location", "Retry-After") if headers.get(n)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", default=os.environ.get("FUNDRAISING_BASE_URL", "http://127.0.0.1:8081"))
    args = parser.parse_args()
    Handler.upstream = args.upstream
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"test-helper on http://127.0.0.1:{args.port}, upstream {args.upstream}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
