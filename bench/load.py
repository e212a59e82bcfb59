"""A small asyncio HTTP/1.1 load client (standard library only).

Each connection runs a "worker": it builds the next request from its own state, sends it on a
keep-alive connection, and hands the answer back to the worker (so a worker can keep cookies,
count acknowledged creations, and so on). Connection failures are counted and the connection is
reopened; everything stops at the deadline or after `max_requests`, whichever comes first.
"""

import asyncio
import collections
import time
import urllib.parse


class Response:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name):
        name = name.lower()
        for k, v in self.headers:
            if k == name:
                return v
        return None

    def all(self, name):
        name = name.lower()
        return [v for k, v in self.headers if k == name]


async def _read_response(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        k, _, v = line.partition(":")
        headers.append((k.strip().lower(), v.strip()))
    h = dict(headers)
    if "content-length" in h:
        n = int(h["content-length"])
        body = await reader.readexactly(n) if n else b""
    elif h.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
        body = b"".join(parts)
    elif status in (204, 304) or 100 <= status < 200:
        body = b""
    else:
        body = await reader.read()
    return Response(status, headers, body), h.get("connection", "").lower() == "close"


def build_request(method, url, body=None, headers=None):
    u = urllib.parse.urlsplit(url)
    path = u.path + ("?" + u.query if u.query else "")
    lines = [f"{method} {path} HTTP/1.1", f"Host: {u.netloc}"]
    for k, v in (headers or {}).items():
        lines.append(f"{k}: {v}")
    if body is not None:
        if isinstance(body, str):
            body = body.encode()
        lines.append(f"Content-Length: {len(body)}")
    req = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return req + (body or b"")


class Stats:
    def __init__(self):
        self.latencies = collections.defaultdict(list)  # label -> seconds
        self.status = collections.Counter()  # (label, status) -> count
        self.conn_errors = 0
        self.requests = 0
        self.started = None
        self.ended = None

    def count_5xx(self):
        return sum(n for (_, s), n in self.status.items() if s >= 500)

    def by_label(self, label):
        return {s: n for (lab, s), n in self.status.items() if lab == label}

    def elapsed(self):
        return (self.ended or time.monotonic()) - self.started


async def _connection(worker, stats, deadline, budget):
    """worker.next() -> (label, host, port, request_bytes) or None; worker.done(label, resp)."""
    reader = writer = None
    addr = None
    while time.monotonic() < deadline and budget[0] > 0:
        nxt = worker.next()
        if nxt is None:
            break
        label, host, port, req = nxt
        budget[0] -= 1
        try:
            if writer is None or addr != (host, port):
                if writer is not None:
                    writer.close()
                reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5)
                addr = (host, port)
            t0 = time.monotonic()
            writer.write(req)
            remaining = max(0.1, deadline + 10 - t0)
            resp, close = await asyncio.wait_for(_read_response(reader), min(30, remaining))
            dt = time.monotonic() - t0
            stats.requests += 1
            stats.latencies[label].append(dt)
            stats.status[(label, resp.status)] += 1
            worker.done(label, resp)
            if close:
                writer.close()
                writer = None
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, asyncio.LimitOverrunError, ValueError, IndexError):
            stats.conn_errors += 1
            worker.failed(label)
            if writer is not None:
                writer.close()
            writer = None
            await asyncio.sleep(0.02)
    if writer is not None:
        writer.close()


async def run(workers, duration_s, max_requests=10_000_000, on_tick=None, tick_s=0.1):
    """Runs every worker on its own connection until the deadline; returns Stats.
    on_tick(elapsed) is called every tick_s (used to sample memory)."""
    stats = Stats()
    stats.started = time.monotonic()
    deadline = stats.started + duration_s
    budget = [max_requests]
    tasks = [asyncio.ensure_future(_connection(w, stats, deadline, budget)) for w in workers]

    async def ticker():
        while time.monotonic() < deadline:
            if on_tick:
                on_tick(time.monotonic() - stats.started)
            await asyncio.sleep(tick_s)

    t = asyncio.ensure_future(ticker())
    await asyncio.gather(*tasks)
    t.cancel()
    stats.ended = time.monotonic()
    return stats


class Worker:
    """Base worker: repeats one request."""

    def __init__(self, label, method, url, body=None, headers=None):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.label = label
        self.req = build_request(method, url, body, headers)

    def next(self):
        return self.label, self.host, self.port, self.req

    def done(self, label, resp):
        pass

    def failed(self, label):
        pass


class RotatingGets(Worker):
    """Cycles through several GET URLs (label = the URL's short name)."""

    def __init__(self, targets, offset=0):
        self.items = []
        for label, url in targets:
            u = urllib.parse.urlsplit(url)
            self.items.append((label, u.hostname, u.port, build_request("GET", url, headers={"Accept": "application/json"})))
        self.i = offset

    def next(self):
        self.i += 1
        return self.items[self.i % len(self.items)]


class EventCreator(Worker):
    """POSTs events; remembers the id of every 201 (the acknowledged creations)."""

    def __init__(self, base_url, app_id, acked, tag):
        u = urllib.parse.urlsplit(base_url)
        self.host, self.port = u.hostname, u.port
        self.url = f"{base_url}/{app_id}/v1/event/"
        self.acked = acked
        self.tag = tag
        self.n = 0
        self.label = "POST event"

    def next(self):
        self.n += 1
        body = (
            '{"name":"bench %s-%d","description":"load","eventType":"Running_Marathons",'
            '"startDate":"\\/Date(1767225600000+0000)\\/","completionDate":"\\/Date(1767312000000+0000)\\/",'
            '"expiryDate":"\\/Date(1798761600000+0000)\\/","location":"Bench"}' % (self.tag, self.n)
        )
        return self.label, self.host, self.port, build_request(
            "POST", self.url, body, {"Content-Type": "application/json; charset=utf-8", "Accept": "application/json"}
        )

    def done(self, label, resp):
        if resp.status == 201:
            import json

            self.acked.append(int(json.loads(resp.body)["id"]))


class Refresher(Worker):
    """POST /auth/refresh on the companion with its own session cookie, kept up to date from
    every Set-Cookie (the refresh token rotates on each call)."""

    def __init__(self, companion_url, cookie):
        u = urllib.parse.urlsplit(companion_url)
        self.host, self.port = u.hostname, u.port
        self.url = f"{companion_url}/auth/refresh"
        self.origin = companion_url
        self.cookies = dict(c.split("=", 1) for c in cookie)
        self.label = "POST /auth/refresh"

    def next(self):
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return self.label, self.host, self.port, build_request(
            "POST",
            self.url,
            "",
            {"Origin": self.origin, "X-Fundraising-Client": "1", "Cookie": cookie, "Content-Type": "application/json"},
        )

    def done(self, label, resp):
        for sc in resp.all("set-cookie"):
            pair = sc.split(";", 1)[0].strip()
            if "=" in pair:
                k, v = pair.split("=", 1)
                if v:
                    self.cookies[k] = v
                else:
                    self.cookies.pop(k, None)
