#!/usr/bin/env python3
"""The browsers' HTTP proxy for wasm-bindgen-test-runner's page server: one upstream connection
per request.

The runner serves its test page with tiny_http 0.12, whose connection pool starts four threads
and adds one only when none is waiting. When a page opens five or more connections at once (the
bindings' JS modules are fetched in parallel), the pool counts threads that were woken but have
not yet taken their task as free, so the next connection is queued with no thread to read it,
while the first four sit on Chromium's idle keep-alive connections (kept up to 300 s). The page
never loads, and chromedriver gives up after its 300 s page-load timeout.

The browsers reach the runner through this proxy, and the other servers directly
(scripts/with-servers.sh, scripts/webkit-webdriver.sh). The proxy keeps a browser's connections alive but
sends each request upstream on a connection of its own, closed after the answer, so every
tiny_http thread is free again as soon as its file is sent.

  scripts/runner-proxy.py --port-file FILE

Listens on a free loopback port and writes it to FILE once it listens. Forwards each request to
the host and port its absolute address names.
"""
import argparse
import http.client
import os
import socket
import threading
import time
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

    def do_CONNECT(self):
        # A tunnel, for what a browser reaches through its proxy without HTTP: WebKitWebDriver
        # and WebKitGTK's MiniBrowser connect to each other's inspector server this way. The
        # driver tries again when its browser's server is not listening yet, but gives up on a
        # proxy's refusal, so the proxy waits (up to 30 s) for the server to listen.
        host, _, port = self.path.rpartition(":")
        deadline = time.monotonic() + 30
        while True:
            try:
                upstream = socket.create_connection((host, int(port)), timeout=10)
                break
            except ConnectionRefusedError as error:
                if time.monotonic() > deadline:
                    self.send_error(502, f"no tunnel to {self.path}: {error}")
                    return
                time.sleep(0.05)
            except (OSError, ValueError) as error:
                self.send_error(502, f"no tunnel to {self.path}: {error}")
                return
        upstream.settimeout(None)
        self.send_response_only(200, "Connection Established")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True

        def pipe(source, sink):
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                for end in (source, sink):
                    try:
                        end.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        back = threading.Thread(target=pipe, args=(upstream, self.connection), daemon=True)
        back.start()
        pipe(self.connection, upstream)
        back.join()
        upstream.close()


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
