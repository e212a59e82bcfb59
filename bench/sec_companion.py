"""Section 3: the companion.

- /auth/token exchanges against the sandbox token endpoint called directly with the same kind of
  code (PKCE, same scopes), in pairs on keep-alive connections, the order flipping every pair;
  codes are minted just ahead through the real authorize, login and consent pages (they expire
  after 60 s). The headline ratio is the median of the per-pair ratios; the ratio of the
  medians is shown beside it.
- /healthz (wrk, 64 connections) and /auth/refresh (asyncio client, one session per connection,
  rotating cookie) throughput and p99.
- The cost of the metrics: a second companion with --metrics-listen runs beside the first
  against the same sandbox. The exchanges go in triples (metrics on, metrics off, direct, the
  order rotating) and the refresh load in alternating rounds, five rounds each; each figure is
  the median of its five rounds.
- Resident memory at rest and the peak under load.
- With BENCH_BEFORE_COMPANION (another build's fundraising-companion, say of the commit before):
  that build runs beside this one against the same sandbox, the exchanges go in quadruples
  (this build, metrics on, the build before, direct) and the refresh load in rounds alternating
  the two builds, so that both figures are compared in the same run.
"""

import os

import asyncio
import json

import load
from common import (
    QUICK,
    CodeMinter,
    Companion,
    KeepAlive,
    RssSampler,
    Sandbox,
    basic_auth,
    companion_headers,
    cookies_from,
    direct_token_form,
    log,
    median,
    mib,
    ms,
    new_run_dir,
    paired_ratio,
    percentile,
    row,
    rss_kib,
    run_wrk,
    token_body,
)

SECTION = "3 companion"
PAIRS = 10 if QUICK else 300
BATCH = 10
DURATION = 2 if QUICK else 10
REFRESH_SESSIONS = 16
# Metrics on against off: rounds, and the length of each refresh round.
ROUNDS = 5
ROUND_S = 1 if QUICK else 3


def start_pair(run_dir, timeout_ms=None):
    """Sandbox whose registered home page is the companion's "/", then the companion."""
    from common import free_port

    port = free_port()
    sb = Sandbox(run_dir, f"http://127.0.0.1:{port}/").start()
    comp = Companion(run_dir, sb.auth_url, port=port, timeout_ms=timeout_ms).start()
    return sb, comp


BEFORE = os.environ.get("BENCH_BEFORE_COMPANION")


def start_before(run_dir, sb):
    """The build before (BENCH_BEFORE_COMPANION) on the same sandbox, or None."""
    if not BEFORE:
        return None
    return Companion(run_dir, sb.auth_url, name="companion-before", program=BEFORE).start()


def start_with_metrics(run_dir, sb):
    """A second companion on the same sandbox, with --metrics-listen."""
    from common import free_port

    return Companion(run_dir, sb.auth_url, name="companion-metrics", metrics_port=free_port()).start()


def scrape(comp):
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{comp.metrics_port}/metrics", timeout=10) as r:
        return r.read().decode()


def exchange_via_companion(conn, comp, minted):
    return conn.request("POST", "/auth/token", token_body(minted), companion_headers(comp.url))


def exchange_direct(conn, minter, minted):
    import urllib.parse

    path = urllib.parse.urlsplit(minter.token_endpoint).path
    return conn.request(
        "POST",
        path,
        direct_token_form(minted),
        {"Authorization": basic_auth(), "Content-Type": "application/x-www-form-urlencoded"},
    )


def sessions(comp, minter, n):
    """n companion sessions (their cookies), each from a real login-flow code."""
    conn = KeepAlive(comp.url)
    out = []
    for _ in range(n):
        status, headers, body = exchange_via_companion(conn, comp, minter.mint())
        if status != 200:
            raise RuntimeError(f"/auth/token answered {status}: {body[:300]!r}")
        cookies = cookies_from(headers)
        if not cookies:
            raise RuntimeError("/auth/token set no session cookie (offline_access was requested)")
        out.append(cookies)
    conn.close()
    return out


def alternating_rounds(a, b):
    """ROUNDS rounds of ROUND_S s of refresh load on the worker sets a and b in turn, the order
    flipping each round: each set's 200s per second in each round, and the number of other
    statuses and connection errors."""
    a_rps, b_rps, bad = [], [], 0
    for r in range(ROUNDS):
        order = [(a_rps, a), (b_rps, b)]
        if r % 2:
            order.reverse()
        for out, ws in order:
            st = asyncio.run(load.run(ws, ROUND_S))
            statuses = st.by_label("POST /auth/refresh")
            bad += st.requests - statuses.get(200, 0) + st.conn_errors
            out.append(statuses.get(200, 0) / st.elapsed())
    return a_rps, b_rps, bad


def run():
    import time

    rows = []
    run_dir = new_run_dir("companion")
    sb, comp = start_pair(run_dir)
    metered = None
    before = None
    try:
        metered = start_with_metrics(run_dir, sb)
        before = start_before(run_dir, sb)
        minter = CodeMinter(sb.auth_url, f"{comp.url}/")
        c_conn, d_conn = KeepAlive(comp.url), KeepAlive(sb.auth_url)
        # warm-up: discovery and JWKS fetched and cached by the companion, connections open
        for _ in range(2):
            s, _, b = exchange_via_companion(c_conn, comp, minter.mint())
            if s != 200:
                raise RuntimeError(f"/auth/token answered {s}: {b[:300]!r}")
            s, _, b = exchange_direct(d_conn, minter, minter.mint())
            if s != 200:
                raise RuntimeError(f"token endpoint answered {s}: {b[:300]!r}")
        rest = rss_kib(comp.pid)
        rows.append(row(SECTION, "companion RSS at rest", mib(rest), "after warm-up exchanges"))

        m_conn = KeepAlive(metered.url)
        for _ in range(2):
            s, _, b = exchange_via_companion(m_conn, metered, minter.mint())
            if s != 200:
                raise RuntimeError(f"/auth/token (metrics on) answered {s}: {b[:300]!r}")
        b_conn = KeepAlive(before.url) if before else None
        for _ in range(2 if before else 0):
            s, _, b = exchange_via_companion(b_conn, before, minter.mint())
            if s != 200:
                raise RuntimeError(f"/auth/token (build before) answered {s}: {b[:300]!r}")
        # Triples, the order rotating: metrics off, metrics on, direct. Five rounds.
        via, metered_t, direct, mint_t = [], [], [], []
        before_t, before_rounds = [], []
        rounds = []
        per_round = max(2, PAIRS // ROUNDS)
        for r in range(ROUNDS):
            r_via, r_on, r_direct, r_before = [], [], [], []
            left = per_round
            while left > 0:
                k = min(BATCH, left)
                t0 = time.perf_counter()
                codes = [(minter.mint(), minter.mint(), minter.mint(), minter.mint() if before else None) for _ in range(k)]
                mint_t.append((time.perf_counter() - t0) / ((4 if before else 3) * k))
                for a, m, b, p in codes:
                    calls = [
                        (r_via, "companion", lambda: exchange_via_companion(c_conn, comp, a)),
                        (r_on, "companion (metrics on)", lambda: exchange_via_companion(m_conn, metered, m)),
                        (r_direct, "direct", lambda: exchange_direct(d_conn, minter, b)),
                    ]
                    if before:
                        calls.append((r_before, "build before", lambda: exchange_via_companion(b_conn, before, p)))
                    shift = len(r_via) % len(calls)
                    calls = calls[shift:] + calls[:shift]
                    for out, side, call in calls:
                        t0 = time.perf_counter()
                        status, _, body = call()
                        out.append((time.perf_counter() - t0) * 1000)
                        if status != 200:
                            raise RuntimeError(f"exchange failed: {side} {status} {body[:200]!r}")
                left -= k
            rounds.append((paired_ratio(r_via, r_direct)[1], paired_ratio(r_on, r_direct)[1]))
            if before:
                before_rounds.append(paired_ratio(r_before, r_direct)[1])
                before_t += r_before
            via += r_via
            metered_t += r_on
            direct += r_direct
        of_medians, per_pair = paired_ratio(via, direct)
        rows.append(
            row(
                SECTION,
                f"code exchange: companion /auth/token vs token endpoint direct ({len(via)} pairs, order flipping)",
                f"{ms(median(via))} vs {ms(median(direct))} (ratio {per_pair:.2f}x)",
                f"ratio: median of the per-pair ratios (ratio of the medians {of_medians:.2f}x); "
                f"p99 {ms(percentile(via, 99))} vs {ms(percentile(direct, 99))}; codes minted through login+consent "
                f"({ms(median(mint_t) * 1000)} per code); metrics off",
            )
        )
        off_ratio = median([r[0] for r in rounds])
        on_ratio = median([r[1] for r in rounds])
        rows.append(
            row(
                SECTION,
                f"code exchange ratio (companion / direct), metrics on vs off ({ROUNDS} rounds of {per_round} triples, same run)",
                f"on {on_ratio:.2f}x vs off {off_ratio:.2f}x",
                "median of the rounds' ratios (each the median of its per-pair ratios); rounds on/off: "
                + ", ".join(f"{on:.2f}/{off:.2f}" for off, on in rounds)
                + f"; medians {ms(median(metered_t))} vs {ms(median(via))}; must stay within 5% of off",
                ok=on_ratio <= off_ratio * 1.05,
            )
        )
        if before:
            this_ratio = median([r[0] for r in rounds])
            before_ratio = median(before_rounds)
            rows.append(
                row(
                    SECTION,
                    f"code exchange ratio (companion / direct), this build vs the build before ({ROUNDS} rounds of {per_round}, same run)",
                    f"this {this_ratio:.2f}x vs before {before_ratio:.2f}x",
                    "median of the rounds' ratios; rounds this/before: "
                    + ", ".join(f"{r[0]:.2f}/{b:.2f}" for r, b in zip(rounds, before_rounds))
                    + f"; medians {ms(median(via))} vs {ms(median(before_t))}; before: {BEFORE}; "
                    "must be no worse than 5% above before",
                    ok=this_ratio <= before_ratio * 1.05,
                )
            )
            b_conn.close()
        c_conn.close()
        d_conn.close()
        m_conn.close()

        log(f"wrk 64 connections {DURATION}s: /healthz")
        with RssSampler({"companion": comp.pid}) as sampler:
            r = run_wrk(f"{comp.url}/healthz", 64, DURATION)
        rows.append(
            row(
                SECTION,
                "GET /healthz (64 connections): throughput / p99",
                f"{r['rps']:.0f} req/s / {r['p99_us'] / 1000:.2f} ms",
                f"{r['requests']} requests, {r['errors_total']} errors, p50 {r['p50_us'] / 1000:.2f} ms",
                ok=r["errors_total"] == 0,
            )
        )

        workers = [load.Refresher(comp.url, c) for c in sessions(comp, minter, REFRESH_SESSIONS)]
        metered_workers = [load.Refresher(metered.url, c) for c in sessions(metered, minter, REFRESH_SESSIONS)]
        log(f"asyncio {REFRESH_SESSIONS} connections {DURATION}s: /auth/refresh")
        with RssSampler({"companion": comp.pid}) as sampler2:
            st = asyncio.run(load.run(workers, DURATION))
        lat = [x * 1000 for x in st.latencies["POST /auth/refresh"]]
        statuses = st.by_label("POST /auth/refresh")
        ok200 = statuses.get(200, 0)
        rows.append(
            row(
                SECTION,
                f"POST /auth/refresh ({REFRESH_SESSIONS} connections, one rotating session each): throughput / p99",
                f"{ok200 / st.elapsed():.0f} req/s / {ms(percentile(lat, 99))}",
                f"{st.requests} requests, statuses {json.dumps(statuses)}, connection errors {st.conn_errors}, "
                f"p50 {ms(percentile(lat, 50))}; metrics off",
                ok=ok200 == st.requests and st.conn_errors == 0,
            )
        )
        # Metrics on against off: alternating rounds, the order flipping each round.
        log(f"asyncio {REFRESH_SESSIONS} connections, {ROUNDS} rounds of {ROUND_S}s each, metrics on and off")
        off_rps, on_rps, bad = alternating_rounds(workers, metered_workers)
        rotated = sum(
            float(line.rsplit(" ", 1)[1])
            for line in scrape(metered).splitlines()
            if line.startswith('companion_refreshes_total{outcome="rotated"}')
        )
        rows.append(
            row(
                SECTION,
                f"POST /auth/refresh throughput, metrics on vs off ({REFRESH_SESSIONS} connections, {ROUNDS} alternating rounds of {ROUND_S} s, same run)",
                f"on {median(on_rps):.0f} req/s vs off {median(off_rps):.0f} req/s (on/off {median(on_rps) / median(off_rps):.2f})",
                "medians of the rounds; rounds on/off: "
                + ", ".join(f"{a:.0f}/{b:.0f}" for a, b in zip(on_rps, off_rps))
                + f"; non-200 or connection errors {bad}; the scrape counts {rotated:.0f} rotated refreshes; "
                "must stay within 5% of off",
                ok=bad == 0 and median(on_rps) >= median(off_rps) * 0.95 and rotated > 0,
            )
        )
        if before:
            before_workers = [load.Refresher(before.url, c) for c in sessions(before, minter, REFRESH_SESSIONS)]
            log(f"asyncio {REFRESH_SESSIONS} connections, {ROUNDS} rounds of {ROUND_S}s each, this build and the build before")
            this_rps, before_rps, bad = alternating_rounds(workers, before_workers)
            rows.append(
                row(
                    SECTION,
                    f"POST /auth/refresh throughput, this build vs the build before ({REFRESH_SESSIONS} connections, {ROUNDS} alternating rounds of {ROUND_S} s, same run)",
                    f"this {median(this_rps):.0f} req/s vs before {median(before_rps):.0f} req/s (this/before {median(this_rps) / median(before_rps):.2f})",
                    "medians of the rounds; rounds this/before: "
                    + ", ".join(f"{a:.0f}/{b:.0f}" for a, b in zip(this_rps, before_rps))
                    + f"; non-200 or connection errors {bad}; must be no worse than 5% below before",
                    ok=bad == 0 and median(this_rps) >= median(before_rps) * 0.95,
                )
            )
        peak = max(sampler.peak["companion"], sampler2.peak["companion"])
        rows.append(row(SECTION, "companion RSS under load (peak)", mib(peak), f"at rest {mib(rest)}"))
        rows.append(row(SECTION, "companion RSS after load", mib(rss_kib(comp.pid))))
    finally:
        comp.stop()
        if metered:
            metered.stop()
        if before:
            before.stop()
        sb.stop()
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
