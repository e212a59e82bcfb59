"""Section 1: size. gzip -9 of each build's _bg.wasm plus its JS glue: the full package (pkg/)
and the light build the widgets load (pkg/light/, no sign-in), each against its budget, with the
brotli files the companion sends beside them; then the same measure of the peers installed from
npm into a temporary folder in this run: oidc-client-ts (its dist/browser/*.min.js),
@auth0/auth0-spa-js (its production bundle) and oauth4webapi (bundled and minified with
esbuild). When npm cannot reach the registry the table says so."""

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


# The budgets of the two builds (gzip -9, wasm + JS glue), in KB of 1024 bytes.
BUDGETS = {"full": 76, "light": 55}

# A content-hashed copy (scripts/hash-assets.mjs): the same bytes as a stable name, not counted twice.
HASHED = re.compile(r"\.[0-9a-f]{16}\.(js|wasm)$")


def pkg_files(build="full"):
    """The stable-named wasm and JS glue (entry module plus snippets) of one build."""
    pkg = os.environ.get("BENCH_PKG_DIR", os.path.join(ROOT, "pkg"))
    folder = pkg if build == "full" else os.path.join(pkg, build)
    wasm = sorted(p for p in glob.glob(os.path.join(folder, "*_bg.wasm")) if not HASHED.search(p))
    # The entry module and the snippets it imports; not engine-check.js, fetched only when
    # init() fails, nor assets.js, the companion's list of hashed names.
    js = sorted(
        p
        for p in [os.path.join(folder, "fundraising_client.js")] + glob.glob(os.path.join(folder, "snippets", "**", "*.js"), recursive=True)
        if not HASHED.search(p) and os.path.exists(p)
    )
    return wasm, js


def measure(build):
    """gzip -9 of the wasm and of the JS glue (one stream, as scripts/build-pkg.sh prints it)."""
    wasm, js = pkg_files(build)
    if not wasm:
        raise RuntimeError(f"the {build} build's *_bg.wasm is missing: scripts/build-pkg.sh did not run")
    js_gz = len(subprocess.run("cat " + " ".join(f"'{p}'" for p in js) + " | gzip -9 -c", shell=True, capture_output=True, check=True).stdout) if js else 0
    wasm_gz = sum(gz(p) for p in wasm)
    raw = sum(os.path.getsize(p) for p in wasm + js)
    br = sum(os.path.getsize(p + ".br") if os.path.exists(p + ".br") else os.path.getsize(p) for p in wasm + js)
    return {"wasm_gz": wasm_gz, "js_gz": js_gz, "total": wasm_gz + js_gz, "raw": raw, "br": br, "files": wasm + js}


def version(prefix, name):
    try:
        with open(os.path.join(prefix, "node_modules", name, "package.json")) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "?"


def run():
    rows = []
    sizes = {build: measure(build) for build in ("full", "light")}
    for build, label in (("full", "fundraising-client (pkg/: wasm + JS glue)"), ("light", "light build for the widgets (pkg/light/: wasm + JS glue, no sign-in)")):
        m = sizes[build]
        budget = BUDGETS[build] * 1024
        names = ", ".join(os.path.relpath(p, ROOT) for p in m["files"])
        rows.append(
            row(
                SECTION,
                f"{label}, gzip -9",
                f"{kb(m['total'])} ({m['total']} B)",
                f"{'within' if m['total'] <= budget else 'OVER'} the {BUDGETS[build]} KB ({budget} B) budget; wasm {m['wasm_gz']} B + JS glue {m['js_gz']} B; "
                f"brotli (what the companion sends) {m['br']} B; {kb(m['raw'])} raw; {names}",
                ok=m["total"] <= budget,
            )
        )
    ours_gz = sizes["full"]["total"]

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
