"""Section 2: client speed in headless Chromium (playwright-core): module instantiation of the
full, the light and the widgets' build (medians of BENCH_RUNS fresh-context runs, at least 20); getEventPages (100 summaries) against fetch +
JSON.parse of the same response, and getCampaign against plain fetch of the same URL (BENCH_PAIRS
pairs each, default 100). The pairs run alternated in one page, so their ratio is measured side
by side: the headline is the median of the per-pair ratios, the ratio of the medians is shown
beside it."""

import functools
import glob
import http.server
import json
import os
import subprocess
import threading

from common import QUICK, ROOT, WORK, Sandbox, log, median, ms, new_run_dir, paired_ratio, percentile, row

SECTION = "2 client speed"
RUNS = max(20, int(os.environ.get("BENCH_RUNS", "20" if QUICK else "30")))
PAIRS = max(20, int(os.environ.get("BENCH_PAIRS", "30" if QUICK else "100")))


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
    }

    def __init__(self, *a, web=None, pkg=None, **kw):
        self._web, self._pkg = web, pkg
        super().__init__(*a, directory=web, **kw)

    def translate_path(self, path):
        p = path.split("?", 1)[0]
        if p.startswith("/pkg/"):
            return os.path.join(self._pkg, os.path.normpath(p[5:]).lstrip("./"))
        return super().translate_path(path)

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *a):
        pass


def playwright_dir():
    for d in (os.path.join(ROOT, "e2e"), WORK):
        if os.path.isdir(os.path.join(d, "node_modules", "playwright-core")):
            return d
    raise RuntimeError("playwright-core missing (scripts/bench.sh installs it into bench/work)")


def node_json(script, tag, env, timeout):
    """Runs bench/<script> in Node and returns the JSON of its `<tag> {...}` line."""
    p = subprocess.run(
        ["node", os.path.join(ROOT, "bench", script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    for line in p.stdout.splitlines():
        if line.startswith(tag + " "):
            if p.returncode == 0:
                return json.loads(line[len(tag) + 1:])
    raise RuntimeError(f"{script} failed ({p.returncode}): {p.stderr[-1500:]}")


def run():
    pkg = os.environ.get("BENCH_PKG_DIR", os.path.join(ROOT, "pkg"))
    wasm = [os.path.join(pkg, "fundraising_client_bg.wasm")]
    if not os.path.exists(wasm[0]):
        raise RuntimeError("pkg/fundraising_client_bg.wasm missing")
    js = wasm[0][: -len("_bg.wasm")] + ".js"
    light_wasm = os.path.join(pkg, "light", "fundraising_client_bg.wasm")
    widgets_wasm = os.path.join(pkg, "widgets", "fundraising_client_bg.wasm")
    run_dir = new_run_dir("client")
    sb = Sandbox(run_dir, "http://127.0.0.1:9/").start()
    handler = functools.partial(_Handler, web=os.path.join(ROOT, "bench", "web"), pkg=pkg)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        env = dict(os.environ)
        env.update(
            BENCH_ORIGIN=f"http://127.0.0.1:{httpd.server_address[1]}",
            BENCH_JS="/pkg/" + os.path.basename(js),
            BENCH_WASM="/pkg/" + os.path.basename(wasm[0]),
            **({"BENCH_LIGHT_JS": "/pkg/light/fundraising_client.js", "BENCH_LIGHT_WASM": "/pkg/light/fundraising_client_bg.wasm"}
               if os.path.exists(light_wasm) else {}),
            **({"BENCH_WIDGETS_JS": "/pkg/widgets/fundraising_client.js", "BENCH_WIDGETS_WASM": "/pkg/widgets/fundraising_client_bg.wasm"}
               if os.path.exists(widgets_wasm) else {}),
            FUNDRAISING_BASE_URL=sb.base_url,
            BENCH_RUNS=str(RUNS),
            BENCH_PAIRS=str(PAIRS),
            BENCH_PLAYWRIGHT=playwright_dir(),
        )
        log(f"headless Chromium, {RUNS} loads, {PAIRS} call pairs")
        data = node_json("client-speed.mjs", "SPEEDJSON", env, timeout=900)
        env["BENCH_PKG_DIR"] = pkg
        # BENCH_BEFORE_PKG_DIR, when set, passes through: client-decode.mjs measures that build too.
        decode = node_json("client-decode.mjs", "DECODEJSON", env, timeout=600)
        edits = node_json("decode-edits.mjs", "EDITSJSON", dict(env, BENCH_EDITS_PKG=pkg), timeout=900)
    finally:
        httpd.shutdown()
        sb.stop()

    def pair(client, plain):
        """Medians of both sides, the median of the per-pair ratios, the ratio of the medians."""
        of_medians, per_pair = paired_ratio(data[client], data[plain])
        return median(data[client]), median(data[plain]), per_pair, of_medians

    rows = [
        row(
            SECTION,
            f"module instantiation: init() from fetched bytes (median of {len(data['instantiate'])}, fresh context each)",
            ms(median(data["instantiate"])),
            f"{'within' if median(data['instantiate']) <= 5 else 'OVER'} the 5 ms target; "
            f"p90 {ms(percentile(data['instantiate'], 90))}; cold import + fetch + init {ms(median(data['coldLoad']))}",
        )
    ]
    for suffix, label in (("Light", "the light build (pkg/light/, no sign-in)"),
                          ("Widgets", "the widgets' build (pkg/widgets/)")):
        samples = data.get("instantiate" + suffix)
        if not samples:
            rows.append(row(SECTION, f"module instantiation of {label}", "not built", "missing", ok=False))
            continue
        rows.append(
            row(
                SECTION,
                f"module instantiation of {label}: init() from fetched bytes (median of {len(samples)}, fresh context each)",
                ms(median(samples)),
                f"p90 {ms(percentile(samples, 90))}; cold import + fetch + init {ms(median(data['coldLoad' + suffix]))}; "
                f"full build in the same runs: {ms(median(data['instantiate']))}",
            )
        )
    a, b, r, rm = pair("eventPagesClient", "eventPagesPlain")
    chk = data["checks"]["eventPages"]
    ok = chk["client"] == 100 and chk["plain"] == 100
    rows.append(
        row(
            SECTION,
            f"getEventPages(1001, 100 summaries) vs fetch + JSON.parse ({len(data['eventPagesClient'])} alternated pairs)",
            f"{ms(a)} vs {ms(b)} (ratio {r:.2f}x)",
            f"{'within' if r <= 1.5 else 'OVER'} the 1.5x target; ratio: median of the per-pair ratios "
            f"(ratio of the medians {rm:.2f}x); includes the loopback request; summaries decoded: "
            f"{chk['client']} vs {chk['plain']}",
            ok=ok,
        )
    )
    a, b = median(decode["client"]), median(decode["plain"])
    before = ""
    if "before" in decode:
        was = median(decode["before"])
        before = (f"; the build in BENCH_BEFORE_PKG_DIR in the same batches: {ms(was)} (its own work "
                  f"{ms(was - b)}, now {(a - b) / (was - b):.2f}x of it)")
    rows.append(
        row(
            SECTION,
            "getEventPages(1001, 100 summaries) vs fetch + JSON.parse, the same answer served from memory "
            f"(Node; medians of {len(decode['client'])} alternated batches of 100 calls)",
            f"{ms(a)} vs {ms(b)} (the client's own work: {ms(a - b)})",
            f"{'within' if a - b <= 1.0 else 'OVER'} the 1.0 ms target for the client's own work; no network: "
            f"the package's request building and decoding against the platform's JSON.parse{before}",
        )
    )
    shipped = edits["delete"]
    others = "; ".join(
        f"{name}: {v['pages']:.2f} / {v['campaign']:.3f} ms ({v['pages'] / shipped['pages']:.2f}x / "
        f"{v['campaign'] / shipped['campaign']:.2f}x)" + (" leaves the dropped names on the result" if v["pascalLeft"] else "")
        for name, v in edits.items() if name != "delete"
    )
    rows.append(
        row(
            SECTION,
            "how the decoder drops members: delete (ships) against a fresh object, undefined, leaving them "
            "(Node, 100 summaries half with a PascalCase inMemoryPerson / the PascalCase campaign, decoded and every field read)",
            f"delete: {shipped['pages']:.2f} / {shipped['campaign']:.3f} ms",
            others + " (medians of 15 alternated batches of 50 calls; bench/decode-edits.mjs)",
        )
    )
    a, b, r, rm = pair("campaignClient", "campaignPlain")
    chk = data["checks"]["campaign"]
    rows.append(
        row(
            SECTION,
            f"getCampaign vs plain fetch + JSON.parse of the same URL ({len(data['campaignClient'])} alternated pairs)",
            f"{ms(a)} vs {ms(b)} (ratio {r:.2f}x)",
            f"ratio: median of the per-pair ratios (ratio of the medians {rm:.2f}x); "
            f"shortName {chk['client']} vs {chk['plain']}",
            ok=chk["client"] == "demo-campaign",
        )
    )
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
