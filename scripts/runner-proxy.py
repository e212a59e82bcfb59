#!/usr/bin/env python3
"""Chromium's HTTP proxy for wasm-bindgen-test-runner's page server: one upstream connection
per request.

The runner serves its test page with tiny_http 0.12, whose connection pool starts four threads
and adds one only when none is waiting. When a page opens five or more connections at once (the
bindings' JS modules are fetched in parallel), the pool counts threads that were woken but have
not yet taken their task as free, so the next connection is queued with no thread to read it,
while the first four sit on Chromium's idle keep-alive connections (kept up to 300 s). The page
never loads, and chromedriver gives up after its 300 s page-load timeout.

Chromium reaches the runner through this proxy (--proxy-server, with the other servers in
--proxy-bypass-list: scripts/with-servers.sh). The proxy keeps Chromium's connections alive but
sends each request upstream on a connection of its own, closed after the answer, so every
tiny_http thread is free again as soon as its file is sent.

  scripts/runner-proxy.py --port-file FILE

Listens on a free loopback port and writes it to FILE once it listens. Forwards each request to
the host and port its absolute address names.
"""
import argparse
import http.client
import os
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "transfer-encoding", "upgrade",
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def forward(self):
        # Chromium sends a proxy the absolute form (http://host:port/path); the runner wants the path.
        target = urllib.parse.urlsplit(self.path)
        if target.scheme != "http" or not target.netloc:
            self.send_error(400, "a proxy request names an http:// address")
            return
        path = target.path or "/"
        if target.query:
            path += "?" + target.query
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        headers["Connection"] = "close"
        upstream = http.client.HTTPConnection(target.netloc, timeout=120)
        try:
            upstream.request(self.command, path, body=body, headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
        except OSError as error:
            self.send_error(502, f"the runner's server did not answer: {error}")
            return
        finally:
            upstream.close()
        self.send_response_only(answer.status, answer.reason)
        for key, value in answer.getheaders():
            if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_OPTIONS = forward


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    partial = args.port_file + ".partial"
    with open(partial, "w") as out:
        out.write(str(server.server_address[1]))
    os.replace(partial, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
