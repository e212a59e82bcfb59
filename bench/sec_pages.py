"""Section 9: page load, what a donor's phone waits for (bench/page-load.mjs in headless Chromium,
playwright-core): under Lighthouse's mobile throttling through CDP (CPU x4; 150 ms of latency,
1.6 Mbit/s down, 750 kbit/s up), each load in a fresh browser context (an empty cache), our page
beside a hand-written page doing the same work (fetch, JSON.parse, DOM), in BENCH_PAGE_PAIRS
alternated pairs per page kind (default 10, at least 5) in one run: a campaign card until its
title is painted, an event's 100 fundraisers, the event element as documented (limit 500), and an
app page's restored session with the full package, signed out and signed in. Medians and their
ratio, the bytes and requests of each page (CDP's encodedDataLength), and one load's waterfall
per page kind (Resource Timing: start and end per URL, ms from navigation start), with when the
card's API request starts against when the package's wasm is compiled.

Served as a partner's page is: the packed fundraising-widgets (npm pack of what
scripts/widgets-package.mjs makes) from a static server on its own origin with brotli, the API
from the sandbox (release build), the partner's pages from a third origin; the app pages from a
companion (release build), the package at /pkg."""

import json
import os
import subprocess
import tarfile
import tempfile

from common import QUICK, ROOT, WORK, Companion, Sandbox, free_port, log, median, new_run_dir, row
from sec_client import node_json, playwright_dir

SECTION = "9 page load"
PAIRS = max(5, int(os.environ.get("BENCH_PAGE_PAIRS", "5" if QUICK else "10")))

# The kinds of page: what is measured, and the targets for the ratio (reported, not held).
KINDS = [
    ("card", "a campaign card, title painted", "done", 1.25),
    ("event100", "an event's 100 fundraisers painted (limit=100 per-page=100)", "done", 1.4),
    ("event500", "the event element as documented (limit 500, per-page 10), whole ranking painted", "done", 1.6),
    ("appOut", "an app page's restored session with the full package, signed out (restoreSession())", "done", None),
    ("appIn", "an app page's restored session with the full package, signed in (restoreSession())", "done", None),
]


def packed_widgets(tmp):
    """The packed fundraising-widgets, installed (extracted) into `tmp`: its folder and version."""
    made = subprocess.run(["node", os.path.join(ROOT, "scripts", "widgets-package.mjs"), tmp], capture_output=True, text=True, check=True)
    folder = made.stdout.strip().splitlines()[-1]
    packed = subprocess.run(["npm", "pack", "--silent", "--pack-destination", tmp], cwd=folder, capture_output=True, text=True, check=True)
    tgz = os.path.join(tmp, packed.stdout.strip().splitlines()[-1])
    dest = os.path.join(tmp, "installed")
    with tarfile.open(tgz) as t:
        t.extractall(dest, filter="data")
    with open(os.path.join(dest, "package", "package.json")) as f:
        version = json.load(f)["version"]
    return os.path.join(dest, "package"), version, os.path.getsize(tgz)


def full_build_js(pkg):
    """The full build's content-hashed module (pkg/assets.js, by scripts/hash-assets.mjs)."""
    out = subprocess.run(
        ["node", "--input-type=module", "-e", f"const a = await import({json.dumps('file://' + os.path.join(pkg, 'assets.js'))}); console.log(a.full.js)"],
        capture_output=True, text=True, check=True,
    )
    return out.stdout.strip()


def waterfall(load, t_wasm=None):
    """One load's requests as `name start-end` (ms from navigation start), shortest names."""
    parts = []
    for r in sorted(load["timing"], key=lambda r: r["start"]):
        name = r["url"].split("?")[0].rstrip("/").rsplit("/", 1)[-1] or r["url"]
        if "?" in r["url"]:
            name += "?" + r["url"].split("?", 1)[1]
        parts.append(f"{name} {r['start']:.0f}-{r['end']:.0f}")
    return parts


def api_start(load, base_url):
    """When the first request to the resource API started (ms from navigation start), or None."""
    starts = [r["start"] for r in load["timing"] if r["url"].startswith(base_url)]
    return min(starts) if starts else None


def run():
    pkg = os.environ.get("BENCH_PKG_DIR", os.path.join(ROOT, "pkg"))
    if not os.path.exists(os.path.join(ROOT, "dist", "widgets", "widget.js")):
        raise RuntimeError("dist/widgets is missing: scripts/build-pkg.sh did not run")
    run_dir = new_run_dir("pages")
    tmp = tempfile.mkdtemp(prefix="pages-", dir=WORK)
    widgets, version, tgz_bytes = packed_widgets(tmp)
    app_dir = os.path.join(run_dir, "site")
    os.makedirs(app_dir)
    companion = Companion(run_dir, "", port=free_port(), extra_args=["--static-dir", app_dir, "--pkg-dir", pkg])
    sb = Sandbox(run_dir, f"{companion.url}/", test_routes=True).start()
    companion.auth_url = sb.auth_url
    companion.start()
    try:
        env = dict(os.environ)
        env.update(
            BENCH_WIDGETS_DIR=widgets,
            BENCH_WIDGETS_VERSION=version,
            FUNDRAISING_BASE_URL=sb.base_url,
            FUNDRAISING_AUTH_URL=sb.auth_url,
            BENCH_COMPANION_URL=companion.url,
            BENCH_APP_DIR=app_dir,
            BENCH_FULL_JS=full_build_js(pkg),
            BENCH_PAIRS=str(PAIRS),
            BENCH_PLAYWRIGHT=playwright_dir(),
        )
        log(f"headless Chromium under mobile throttling, {PAIRS} alternated pairs per page kind")
        data = node_json("page-load.mjs", "PAGELOAD", env, timeout=3600)
        # Every load's figures, for a closer look than the report's medians.
        with open(os.path.join(run_dir, "page-load.json"), "w") as f:
            json.dump(data, f)
    finally:
        companion.stop()
        sb.stop()

    rows = []
    t = data["throttling"]
    throttled = f"CPU x{t['cpu']}, {t['latency']} ms, {t['downloadKbps'] / 1024:.1f} Mbit/s down, {t['uploadKbps']} kbit/s up"
    for kind, label, mark, target in KINDS:
        samples = data["kinds"][kind]
        ours = [s["marks"][mark] for s in samples["ours"]]
        hand = [s["marks"][mark] for s in samples["hand"]]
        o, h = median(ours), median(hand)
        ratio = o / h if h else float("nan")
        per_pair = median([a / b for a, b in zip(ours, hand) if b > 0])
        bytes_o, bytes_h = median([s["bytes"] for s in samples["ours"]]), median([s["bytes"] for s in samples["hand"]])
        req_o, req_h = median([s["requests"] for s in samples["ours"]]), median([s["requests"] for s in samples["hand"]])
        notes = [
            f"medians of {len(ours)} alternated pairs, fresh context each, {throttled}",
            f"median of the per-pair ratios {per_pair:.2f}x",
            f"ours {bytes_o:,.0f} B in {req_o:.0f} requests, hand-written {bytes_h:,.0f} B in {req_h:.0f}",
        ]
        if target:
            notes.append(f"target <= {target}x")
        if kind == "event500":
            first = median([s["marks"]["first"] for s in samples["ours"]])
            notes.append(f"our first fundraisers painted at {first:.0f} ms")
        rows.append(row(SECTION, f"{label}: ours vs hand-written", f"{o:.0f} ms vs {h:.0f} ms (ratio {ratio:.2f}x)", "; ".join(notes)))

    # When the card's API request starts, against when its wasm is compiled and instantiated.
    cards = data["kinds"]["card"]["ours"]
    gaps = [api_start(s, data["baseUrl"]) - s["wasmReady"] for s in cards if s["wasmReady"] is not None and api_start(s, data["baseUrl"]) is not None]
    starts = [api_start(s, data["baseUrl"]) for s in cards if api_start(s, data["baseUrl"]) is not None]
    hand_starts = [api_start(s, data["baseUrl"]) for s in data["kinds"]["card"]["hand"] if api_start(s, data["baseUrl"]) is not None]
    rows.append(row(
        SECTION,
        "the card's API request: its start less the wasm's compile and instantiation done (ours)",
        f"{median(gaps):+.0f} ms",
        f"median of {len(gaps)} loads (negative: sent before the wasm is ready); the request starts at {median(starts):.0f} ms, "
        f"the hand-written card's at {median(hand_starts):.0f} ms",
    ))
    for kind, label, _, _ in KINDS:
        first = data["kinds"][kind]
        for side in ("ours", "hand"):
            load = first[side][0]
            extra = f"; wasm ready at {load['wasmReady']:.0f} ms" if load.get("wasmReady") else ""
            rows.append(row(
                SECTION,
                f"waterfall, {kind} ({'ours' if side == 'ours' else 'hand-written'}): request start-end per URL, ms from navigation start",
                f"painted at {load['marks']['done']:.0f} ms",
                ", ".join(waterfall(load)) + f"; document ends at {load['navigation']['responseEnd']:.0f} ms{extra}; "
                f"{load['requests']} requests, {load['bytes']:,} B",
            ))
    rows.append(row(SECTION, "the packed fundraising-widgets served (npm pack)", f"{tgz_bytes:,} B", f"version {version}, served from its own origin with brotli"))
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
