"""Shared pieces of the benchmark: starting the servers on free loopback ports, reading their
memory, minting authorisation codes through the real login and consent pages, and statistics.

Standard library only. Every wait has a deadline; every server started here is stopped by its
own process id when the `Servers` object is closed.
"""

import base64
import hashlib
import html.parser
import http.client
import http.cookiejar
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.environ.get("BENCH_WORK", os.path.join(ROOT, "bench", "work"))
PROFILE = os.environ.get("BENCH_PROFILE", "release")
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")

APP_ID = "demo-app"
SECRET = "demo-secret"
USER = "demo@example.org"
PASSWORD = "demo-password"


def log(*args):
    print("[bench]", *args, flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def binary(name):
    return os.path.join(ROOT, "target", PROFILE, name)


def rss_kib(pid):
    """Resident set size (VmRSS) of a process in KiB, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def mib(kib):
    return "n/a" if kib is None else f"{kib / 1024:.1f} MiB"


def http_get_status(url, timeout=2.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def wait_until(predicate, deadline_s, what):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise RuntimeError(f"timed out after {deadline_s}s waiting for {what}")


class Proc:
    """One server process with its log file."""

    def __init__(self, name, argv, env=None, log_dir=None):
        self.name = name
        self.argv = argv
        self.env = env
        self.log_path = os.path.join(log_dir or WORK, f"{name}.log")
        self.p = None

    def start(self):
        logf = open(self.log_path, "ab")
        env = dict(os.environ)
        env.setdefault("RUST_LOG", "warn")
        if self.env:
            env.update(self.env)
        self.p = subprocess.Popen(self.argv, stdout=logf, stderr=subprocess.STDOUT, env=env)
        logf.close()
        return self

    @property
    def pid(self):
        return self.p.pid if self.p else None

    def alive(self):
        return self.p is not None and self.p.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if not self.alive():
            return
        self.p.send_signal(sig)
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait(timeout=timeout)

    def kill9(self):
        self.stop(signal.SIGKILL)

    def log_tail(self, n=30):
        try:
            with open(self.log_path, "rb") as f:
                return b"\n".join(f.read().splitlines()[-n:]).decode("utf-8", "replace")
        except OSError:
            return ""


class Sandbox:
    """The sandbox on two free ports (kept across restarts) with its own data dir and config."""

    def __init__(self, run_dir, home_page, token_delay_ms=None, name="sandbox", test_routes=False):
        self.run_dir = run_dir
        self.name = name
        self.api_port = free_port()
        self.identity_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.api_port}"
        self.auth_url = f"http://127.0.0.1:{self.identity_port}"
        self.data_dir = os.path.join(run_dir, f"{name}-data")
        self.config = os.path.join(run_dir, f"{name}.toml")
        self.home_page = home_page
        self.token_delay_ms = token_delay_ms
        with open(self.config, "w") as f:
            f.write(
                ("enable_test_routes = true\n\n" if test_routes else "")
                + "[[applications]]\n"
                f'app_id = "{APP_ID}"\nsecret = "{SECRET}"\nhome_page = "{home_page}"\n\n'
                "[[users]]\n"
                f'email = "{USER}"\npassword = "{PASSWORD}"\nname = "Demo Fundraiser"\n'
            )
        self.proc = None

    def start(self, token_delay_ms=None, wait_s=60):
        delay = token_delay_ms if token_delay_ms is not None else self.token_delay_ms
        argv = [
            binary("fundraising-sandbox"),
            "--api-listen", f"127.0.0.1:{self.api_port}",
            "--identity-listen", f"127.0.0.1:{self.identity_port}",
            "--issuer", self.auth_url,
            "--public-base-url", self.base_url,
            "--data-dir", self.data_dir,
            "--config", self.config,
        ]
        if delay:
            argv += ["--token-delay-ms", str(delay)]
        self.proc = Proc(self.name, argv, log_dir=self.run_dir).start()
        try:
            wait_until(lambda: self.ready() or not self.proc.alive(), wait_s, f"{self.name} to serve")
        except RuntimeError:
            raise RuntimeError(f"{self.name} did not come up; log:\n{self.proc.log_tail()}")
        if not self.proc.alive():
            raise RuntimeError(f"{self.name} exited; log:\n{self.proc.log_tail()}")
        return self

    def ready(self):
        return (
            http_get_status(f"{self.auth_url}/.well-known/openid-configuration", 1) == 200
            and http_get_status(f"{self.base_url}/{APP_ID}/v1/campaign/byshortname/demo-campaign", 1) == 200
        )

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def stop(self, sig=signal.SIGTERM):
        if self.proc:
            self.proc.stop(sig)


class Companion:
    def __init__(self, run_dir, auth_url, port=None, timeout_ms=None, name="companion", extra_origins=(), metrics_port=None, program=None,
                 extra_args=()):
        self.program = program or binary("fundraising-companion")
        self.extra_args = list(extra_args)
        self.run_dir = run_dir
        self.metrics_port = metrics_port
        self.name = name
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.auth_url = auth_url
        self.timeout_ms = timeout_ms
        self.extra_origins = list(extra_origins)
        self.proc = None

    def start(self, wait_s=60):
        argv = [
            self.program,
            "--listen", f"127.0.0.1:{self.port}",
            "--app-id", APP_ID,
            "--auth-url", self.auth_url,
            "--allowed-origin", self.url,
        ]
        for o in self.extra_origins:
            argv += ["--allowed-origin", o]
        if self.timeout_ms:
            argv += ["--upstream-timeout-ms", str(self.timeout_ms)]
        if self.metrics_port:
            argv += ["--metrics-listen", f"127.0.0.1:{self.metrics_port}"]
        argv += self.extra_args
        self.proc = Proc(self.name, argv, env={"FUNDRAISING_CLIENT_SECRET": SECRET}, log_dir=self.run_dir).start()
        try:
            wait_until(
                lambda: http_get_status(f"{self.url}/healthz", 1) == 200 or not self.proc.alive(),
                wait_s,
                f"{self.name} to serve",
            )
        except RuntimeError:
            raise RuntimeError(f"{self.name} did not come up; log:\n{self.proc.log_tail()}")
        if not self.proc.alive():
            raise RuntimeError(f"{self.name} exited; log:\n{self.proc.log_tail()}")
        return self

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def stop(self, sig=signal.SIGTERM):
        if self.proc:
            self.proc.stop(sig)


def new_run_dir(name):
    d = os.path.join(WORK, "runs", f"{name}-{int(time.time())}-{os.getpid()}")
    os.makedirs(d, exist_ok=True)
    return d


# ---------------------------------------------------------------- login flow (code minting)


class _Forms(html.parser.HTMLParser):
    """Collects the forms of a page: action, method, inputs and buttons."""

    def __init__(self):
        super().__init__()
        self.forms = []
        self._cur = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._cur = {"action": a.get("action") or "", "method": (a.get("method") or "get").lower(), "fields": [], "buttons": []}
            self.forms.append(self._cur)
        elif self._cur is not None and tag in ("input", "button", "select", "textarea"):
            typ = (a.get("type") or ("submit" if tag == "button" else "text")).lower()
            name = a.get("name")
            if typ == "submit" or tag == "button":
                self._cur["buttons"].append((name, a.get("value") or ""))
            elif name:
                self._cur["fields"].append((name, a.get("value") or "", typ))

    def handle_endtag(self, tag):
        if tag == "form":
            self._cur = None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def pkce_pair():
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class CodeMinter:
    """Drives the sandbox's real authorize -> login -> consent pages like a browser (one cookie
    jar, so the login session is reused) and returns fresh authorisation codes."""

    def __init__(self, auth_url, redirect_uri, scopes=("openid", "profile", "email", "fundraise", "offline_access")):
        self.auth_url = auth_url
        self.redirect_uri = redirect_uri
        self.scopes = " ".join(scopes)
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())
        disco = json.loads(urllib.request.urlopen(f"{auth_url}/.well-known/openid-configuration", timeout=10).read())
        self.authorization_endpoint = disco["authorization_endpoint"]
        self.token_endpoint = disco["token_endpoint"]

    def _open(self, url, data=None):
        req = urllib.request.Request(url, data=data)
        if data is not None:
            req.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            r = self.opener.open(req, timeout=15)
            return r.status, r.headers, r.read().decode("utf-8", "replace"), r.geturl()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode("utf-8", "replace"), url

    def mint(self):
        """Returns dict(code, verifier, nonce, redirect_uri)."""
        verifier, challenge = pkce_pair()
        nonce = str(uuid.uuid4())
        state = secrets.token_urlsafe(12)
        q = urllib.parse.urlencode(
            {
                "client_id": APP_ID,
                "response_type": "code",
                "scope": self.scopes,
                "redirect_uri": self.redirect_uri,
                "state": state,
                "nonce": nonce,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            }
        )
        url, data = f"{self.authorization_endpoint}?{q}", None
        for _ in range(12):
            status, headers, body, cur = self._open(url, data)
            if status in (301, 302, 303, 307, 308):
                loc = urllib.parse.urljoin(url, headers.get("Location", ""))
                if loc.startswith(self.redirect_uri):
                    qs = urllib.parse.parse_qs(urllib.parse.urlsplit(loc).query)
                    if "code" not in qs:
                        raise RuntimeError(f"authorize ended without a code: {loc}")
                    if qs.get("state", [""])[0] != state:
                        raise RuntimeError("state not echoed")
                    return {"code": qs["code"][0], "verifier": verifier, "nonce": nonce, "redirect_uri": self.redirect_uri}
                url, data = loc, None
                continue
            if status != 200:
                raise RuntimeError(f"login flow: HTTP {status} at {url}: {body[:300]}")
            parser = _Forms()
            parser.feed(body)
            form = None
            fields = []
            for f in parser.forms:
                names = {n for n, _, _ in f["fields"]}
                if "password" in names:
                    form = f
                    for n, v, _ in f["fields"]:
                        fields.append((n, USER if n == "username" else PASSWORD if n == "password" else v))
                    btn = next((b for b in f["buttons"] if b[0]), None)
                    if btn:
                        fields.append(btn)
                    break
                allow = next((b for b in f["buttons"] if b[0] == "allow"), None)
                if allow:
                    form = f
                    fields = [(n, v) for n, v, t in f["fields"] if t not in ("checkbox", "radio") or v]
                    fields.append(allow)
                    break
            if form is None:
                raise RuntimeError(f"login flow: no login or consent form at {url}: {body[:300]}")
            target = urllib.parse.urljoin(url, form["action"] or url)
            enc = urllib.parse.urlencode(fields)
            if form["method"] == "post":
                url, data = target, enc.encode()
            else:
                url, data = target + ("&" if "?" in target else "?") + enc, None
        raise RuntimeError("login flow: too many steps")


# ---------------------------------------------------------------- statistics


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def paired_ratio(xs, ys):
    """Side-by-side timings (xs[i] and ys[i] measured one right after the other): the ratio of
    the medians, and the median of the per-pair ratios. The second cancels a machine that
    changes speed during the run (each pair sees one speed); the first does not."""
    return median(xs) / median(ys), median([x / y for x, y in zip(xs, ys) if y > 0])


def percentile(xs, p):
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def ms(x):
    return f"{x:.2f} ms" if x == x else "n/a"


class KeepAlive:
    """One persistent HTTP/1.1 connection for sequential timed requests."""

    def __init__(self, base_url):
        u = urllib.parse.urlsplit(base_url)
        self.host, self.port = u.hostname, u.port
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)

    def request(self, method, path, body=None, headers=None):
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                r = self.conn.getresponse()
                data = r.read()
                return r.status, r.getheaders(), data
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
                if attempt:
                    raise

    def close(self):
        self.conn.close()


def basic_auth():
    return "Basic " + base64.b64encode(f"{APP_ID}:{SECRET}".encode()).decode()


def companion_headers(companion_url, cookie=None):
    h = {"Origin": companion_url, "X-Fundraising-Client": "1", "Content-Type": "application/json"}
    if cookie:
        h["Cookie"] = cookie
    return h


def token_body(minted):
    return json.dumps(
        {"code": minted["code"], "codeVerifier": minted["verifier"], "nonce": minted["nonce"], "redirectUri": minted["redirect_uri"]}
    )


def direct_token_form(minted):
    return urllib.parse.urlencode(
        {
            "grant_type": "authorization_code",
            "code": minted["code"],
            "redirect_uri": minted["redirect_uri"],
            "code_verifier": minted["verifier"],
        }
    )


def cookies_from(headers):
    """name=value pairs of the Set-Cookie headers (list of (name, value) header tuples)."""
    out = []
    for k, v in headers:
        if k.lower() == "set-cookie":
            out.append(v.split(";", 1)[0].strip())
    return out


# ---------------------------------------------------------------- wrk


def run_wrk(url, connections, duration_s, threads=2, method=None, body=None, headers=None, timeout_s=5):
    """Runs Debian's wrk with bench/wrk-report.lua (or oha when only oha is installed); returns
    its summary dict plus rps."""
    import shutil

    if not shutil.which("wrk") and shutil.which("oha"):
        return run_oha(url, connections, duration_s, method, body, headers, timeout_s)
    env = dict(os.environ)
    if method:
        env["WRK_METHOD"] = method
    if body is not None:
        env["WRK_BODY"] = body
    if headers:
        env["WRK_HEADERS"] = "|".join(f"{k}: {v}" for k, v in headers.items())
    argv = [
        "wrk", f"-t{threads}", f"-c{connections}", f"-d{duration_s}s", f"--timeout={timeout_s}s",
        "-s", os.path.join(ROOT, "bench", "wrk-report.lua"), url,
    ]
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=duration_s + 60)
    for line in out.stdout.splitlines():
        if line.startswith("WRKJSON "):
            d = json.loads(line[len("WRKJSON "):])
            d["rps"] = d["requests"] / (d["duration_us"] / 1e6) if d["duration_us"] else 0.0
            d["errors_total"] = sum(d[k] for k in ("errors_connect", "errors_read", "errors_write", "errors_status", "errors_timeout"))
            return d
    raise RuntimeError(f"wrk gave no summary: {out.stdout[-500:]} {out.stderr[-500:]}")


def run_oha(url, connections, duration_s, method=None, body=None, headers=None, timeout_s=5):
    argv = ["oha", "--no-tui", "--json", "-z", f"{duration_s}s", "-c", str(connections), "-t", f"{timeout_s}s"]
    if method:
        argv += ["-m", method]
    if body is not None:
        argv += ["-d", body]
    for k, v in (headers or {}).items():
        argv += ["-H", f"{k}: {v}"]
    out = subprocess.run(argv + [url], capture_output=True, text=True, timeout=duration_s + 60)
    d = json.loads(out.stdout)
    codes = {int(k): v for k, v in d.get("statusCodeDistribution", {}).items()}
    n = sum(codes.values())
    errors = sum(d.get("errorDistribution", {}).values())
    pct = d.get("latencyPercentiles", {})
    return {
        "requests": n,
        "duration_us": int(d["summary"]["total"] * 1e6),
        "rps": n / d["summary"]["total"] if d["summary"]["total"] else 0.0,
        "errors_status": sum(v for k, v in codes.items() if k >= 400),
        "errors_total": errors + sum(v for k, v in codes.items() if k >= 400),
        "p50_us": int((pct.get("p50") or 0) * 1e6),
        "p90_us": int((pct.get("p90") or 0) * 1e6),
        "p99_us": int((pct.get("p99") or 0) * 1e6),
        "max_us": int((d["summary"].get("slowest") or 0) * 1e6),
    }


class RssSampler:
    """Samples VmRSS of some processes every `interval` seconds in a thread; keeps the peak."""

    def __init__(self, pids, interval=0.1):
        import threading

        self.pids = dict(pids)  # name -> pid
        self.peak = {n: 0 for n in self.pids}
        self.interval = interval
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self):
        for n, pid in self.pids.items():
            r = rss_kib(pid)
            if r is not None and r > self.peak[n]:
                self.peak[n] = r

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.sample()


def row(section, measure, value, note="", ok=None):
    """One line of the report; ok=True/False marks a must-hold condition."""
    return {"section": section, "measure": measure, "value": value, "note": note, "ok": ok}
