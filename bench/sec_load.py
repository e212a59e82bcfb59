"""Section 5: companion and sandbox together under 200 concurrent connections for 30 s
(BENCH_QUICK=1: 3 s): event creations, resource GETs, /healthz and /auth/refresh at once.
Counts the 5xx answers (must be 0) and checks afterwards, through the API, that every
acknowledged event creation (a 201 with an id) is found (must all be). Memory before and after.
"""

import asyncio
import json

import load
from common import APP_ID, QUICK, CodeMinter, RssSampler, log, mib, new_run_dir, row, rss_kib
from sec_companion import sessions, start_pair
from sec_sandbox import targets

SECTION = "5 load"
DURATION = 3 if QUICK else 30
MIX = {"creators": 60, "getters": 80, "healthz": 40, "refreshers": 20}  # 200 connections


class IdChecker(load.Worker):
    """GETs /event/{id}/pages for every id of a shared list; records the status per id."""

    def __init__(self, base_url, todo, found):
        import urllib.parse

        u = urllib.parse.urlsplit(base_url)
        self.host, self.port = u.hostname, u.port
        self.base = base_url
        self.todo = todo
        self.found = found
        self.cur = None
        self.label = "check"

    def next(self):
        if not self.todo:
            return None
        self.cur = self.todo.pop()
        return self.label, self.host, self.port, load.build_request("GET", f"{self.base}/{APP_ID}/v1/event/{self.cur}/pages")

    def done(self, label, resp):
        self.found[self.cur] = resp.status

    def failed(self, label):
        self.todo.append(self.cur)


def check_ids(base_url, ids, connections=16):
    """Returns (found, missing) for the given event ids, checked through the resource API."""
    todo = list(ids)
    found = {}
    workers = [IdChecker(base_url, todo, found) for _ in range(connections)]
    asyncio.run(load.run(workers, 300, max_requests=len(ids) * 3 + 100))
    ok = sum(1 for i in ids if found.get(i) == 200)
    return ok, [i for i in ids if found.get(i) != 200]


def run():
    rows = []
    run_dir = new_run_dir("load")
    sb, comp = start_pair(run_dir)
    try:
        minter = CodeMinter(sb.auth_url, f"{comp.url}/")
        cookies = sessions(comp, minter, MIX["refreshers"])
        before = {"sandbox": rss_kib(sb.pid), "companion": rss_kib(comp.pid)}
        acked = []
        workers = []
        workers += [load.EventCreator(sb.base_url, APP_ID, acked, f"c{i}") for i in range(MIX["creators"])]
        workers += [load.RotatingGets(targets(sb.base_url), offset=i) for i in range(MIX["getters"])]
        workers += [load.Worker("GET /healthz", "GET", f"{comp.url}/healthz") for _ in range(MIX["healthz"])]
        workers += [load.Refresher(comp.url, c) for c in cookies]
        log(f"{len(workers)} connections for {DURATION}s: {json.dumps(MIX)}")
        with RssSampler({"sandbox": sb.pid, "companion": comp.pid}) as sampler:
            st = asyncio.run(load.run(workers, DURATION))
        after = {"sandbox": rss_kib(sb.pid), "companion": rss_kib(comp.pid)}
        n5xx = st.count_5xx()
        per_label = {}
        for (label, status), n in sorted(st.status.items()):
            per_label.setdefault(label, {})[status] = n
        rows.append(
            row(
                SECTION,
                f"{len(workers)} connections, {DURATION} s: requests answered",
                f"{st.requests} ({st.requests / st.elapsed():.0f} req/s)",
                "; ".join(f"{k}: {json.dumps(v)}" for k, v in per_label.items()) + f"; connection errors {st.conn_errors}",
            )
        )
        rows.append(row(SECTION, "5xx answers (must be 0)", str(n5xx), "", ok=n5xx == 0))
        log(f"checking {len(acked)} acknowledged events through the API")
        found, missing = check_ids(sb.base_url, acked)
        distinct = len(set(acked))
        rows.append(
            row(
                SECTION,
                "event creations acknowledged vs found afterwards (must be equal)",
                f"{len(acked)} vs {found}",
                f"{distinct} distinct ids" + (f"; missing e.g. {missing[:5]}" if missing else ""),
                ok=len(acked) == found == distinct and len(acked) > 0,
            )
        )
        for name in ("sandbox", "companion"):
            rows.append(
                row(
                    SECTION,
                    f"{name} RSS before / peak / after",
                    f"{mib(before[name])} / {mib(sampler.peak[name])} / {mib(after[name])}",
                )
            )
        alive = sb.proc.alive() and comp.proc.alive()
        rows.append(row(SECTION, "both servers still running afterwards", "yes" if alive else "NO", ok=alive))
    finally:
        comp.stop()
        sb.stop()
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
