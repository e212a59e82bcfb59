"""Section 1: size. Each build as a browser fetches it: the full package (pkg/), the light build
(pkg/light/, no sign-in) and the widgets' build (pkg/widgets/, a campaign and a donation's wait),
every file (the wasm and the build's one JS module) gzip -9 on its own and summed, against the build's
budget, with brotli (what the companion sends) beside it (scripts/build-size.mjs, which
scripts/build-pkg.sh prints too); what a partner's page with one card and a page with
<fundraising-event> fetch, per file: the element's one file (dist/widgets/) and the package build
it loads, summed against the page's budget (scripts/page-size.mjs); then the same measure of the peers installed from npm into a
temporary folder in this run: oidc-client-ts (its dist/browser/*.min.js), @auth0/auth0-spa-js
(its production bundle) and oauth4webapi (bundled and minified with esbuild). When npm cannot
reach the registry the table says so. With BENCH_BEFORE_PKG_DIR (another build's pkg folder), the
same measure of that build's folders, beside this one's."""

import glob
import json
import re
import os
import shutil
import subprocess
import tempfile

from common import ROOT, WORK, log, row

SECTION = "1 size"
PEERS = ["oidc-client-ts", "@auth0/auth0-spa-js", "oauth4webapi"]


def gz(path):
    out = subprocess.run(["gzip", "-9", "-c", path], capture_output=True, check=True)
    return len(out.stdout)


def kb(n):
    """KB of 1024 bytes, the unit of the budgets and of scripts/build-pkg.sh's figures."""
    return f"{n / 1024:.1f} KB"


LABELS = {
    "full": "fundraising-client (pkg/)",
    "light": "light build (pkg/light/: no sign-in)",
    "widgets": "widgets' build (pkg/widgets/: a campaign and a donation's wait)",
    "card": "card's build (pkg/card/: a campaign only)",
}


def measure_all(pkg=None):
    """Each build's figures from scripts/build-size.mjs: per file, summed, and the budget."""
    pkg = pkg or os.environ.get("BENCH_PKG_DIR", os.path.join(ROOT, "pkg"))
    out = subprocess.run(
        ["node", os.path.join(ROOT, "scripts", "build-size.mjs"), pkg, "--json"],
        capture_output=True, text=True, check=True,
    )
    builds = json.loads(out.stdout)
    if not builds:
        raise RuntimeError(f"no build in {pkg}: scripts/build-pkg.sh did not run")
    return {b["name"]: b for b in builds}


def measure_pages(pkg=None):
    """What each kind of partner page fetches (the element from dist/widgets/ and its build),
    from scripts/page-size.mjs."""
    pkg = pkg or os.environ.get("BENCH_PKG_DIR", os.path.join(ROOT, "pkg"))
    out = subprocess.run(
        ["node", os.path.join(ROOT, "scripts", "page-size.mjs"), pkg, os.path.join(ROOT, "dist", "widgets"), "--json"],
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout)


def version(prefix, name):
    try:
        with open(os.path.join(prefix, "node_modules", name, "package.json")) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "?"


def run():
    rows = []
    sizes = measure_all()
    for name, m in sizes.items():
        budget = m["budget"]
        files = ", ".join(f"{f['path']} {f['gzip']} B" for f in m["files"])
        rows.append(
            row(
                SECTION,
                f"{LABELS.get(name, name)}, gzip -9 per file",
                f"{kb(m['gzip'])} ({m['gzip']} B)",
                f"{'within' if m['gzip'] <= budget else 'OVER'} the {m['budgetKb']} KB ({budget} B) budget; "
                f"wasm {m['wasmGzip']} B + JS {m['jsGzip']} B; brotli {m['brotli']} B; {kb(m['raw'])} raw; {files}",
                ok=m["gzip"] <= budget,
            )
        )
    for page in measure_pages():
        budget = page["budget"]
        files = [page["element"], *page["package"]["files"]]
        requests = f" in {page['requests']} requests at most" if page["requests"] else ""
        rows.append(
            row(
                SECTION,
                f"{page['label']}: {page['element']['path']} and the package it fetches ({page['build']} build), gzip -9 per file",
                f"{page['gzip']:,} B",
                f"{'within' if page['gzip'] <= budget else 'OVER'} the page's {budget:,} B budget{requests}; brotli {page['brotli']:,} B; "
                + ", ".join(f"{f['path']} {f['gzip']} B" for f in files),
                ok=page["gzip"] <= budget,
            )
        )
    before_dir = os.environ.get("BENCH_BEFORE_PKG_DIR")
    if before_dir:
        for name, m in measure_all(before_dir).items():
            now = sizes.get(name)
            change = f"; now {now['gzip'] - m['gzip']:+d} B" if now else "; no such build now"
            rows.append(
                row(
                    SECTION,
                    f"the same build in BENCH_BEFORE_PKG_DIR ({name}), gzip -9 per file",
                    f"{kb(m['gzip'])} ({m['gzip']} B)",
                    f"wasm {m['wasmGzip']} B + JS {m['jsGzip']} B; brotli {m['brotli']} B{change}",
                )
            )
    ours_gz = sizes["full"]["gzip"]

    tmp = tempfile.mkdtemp(prefix="peers-", dir=WORK)
    try:
        # The peers' browser bundles are self-contained: their tarballs are enough (npm pack does
        # not resolve their dependencies, which a registry mirror may lack); esbuild is installed.
        log(f"npm pack {' '.join(PEERS)}; npm install esbuild (into {tmp})")
        r = subprocess.run(
            ["npm", "pack", "--silent", "--pack-destination", tmp, *PEERS],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp,
        )
        if r.returncode == 0:
            r = subprocess.run(
                ["npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", "esbuild"],
                capture_output=True,
                text=True,
                timeout=300,
            )
        if r.returncode != 0:
            log("npm failed: " + r.stderr[-400:])
            for p in PEERS:
                rows.append(row(SECTION, f"{p}, gzip -9", "registry unreachable", "npm failed in this run"))
            return rows
        nm = os.path.join(tmp, "node_modules")
        versions = {}
        for tgz in glob.glob(os.path.join(tmp, "*.tgz")):
            dest = os.path.join(tmp, "x", os.path.basename(tgz)[:-4])
            os.makedirs(dest)
            subprocess.run(["tar", "xzf", tgz, "-C", dest], check=True)
            with open(os.path.join(dest, "package", "package.json")) as f:
                meta = json.load(f)
            versions[meta["name"]] = (meta["version"], os.path.join(dest, "package"))

        def root(name):
            return versions.get(name, ("?", os.path.join(tmp, "missing")))[1]

        def peer(name, files, how):
            v = versions.get(name, ("?",))[0]
            if not files:
                rows.append(row(SECTION, f"{name} {v}, gzip -9", "not found", how))
                return
            n = sum(gz(f) for f in files)
            raw = sum(os.path.getsize(f) for f in files)
            rows.append(
                row(
                    SECTION,
                    f"{name} {v} ({how}), gzip -9",
                    f"{kb(n)} ({n} B)",
                    f"{kb(raw)} raw; ours is {ours_gz / n:.2f}x its size",
                )
            )

        peer("oidc-client-ts", sorted(glob.glob(os.path.join(root("oidc-client-ts"), "dist", "browser", "*.min.js"))), "dist/browser/*.min.js")
        auth0 = os.path.join(root("@auth0/auth0-spa-js"), "dist", "auth0-spa-js.production.js")
        peer("@auth0/auth0-spa-js", [auth0] if os.path.exists(auth0) else [], "dist/auth0-spa-js.production.js")
        entry = os.path.join(tmp, "entry.js")
        with open(entry, "w") as f:
            f.write("export * from %s;\n" % json.dumps(os.path.join(root("oauth4webapi"), "build", "index.js")))
        out = os.path.join(tmp, "oauth4webapi.bundle.min.js")
        r = subprocess.run(
            [os.path.join(nm, ".bin", "esbuild"), entry, "--bundle", "--minify", "--format=esm", "--platform=browser", f"--outfile={out}"],
            capture_output=True,
            text=True,
            cwd=tmp,
            timeout=120,
        )
        if r.returncode != 0:
            raise RuntimeError("esbuild failed: " + r.stderr[-400:])
        peer("oauth4webapi", [out], f"esbuild {version(tmp, 'esbuild')} --bundle --minify")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
