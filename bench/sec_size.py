"""Section 1: size. gzip -9 of pkg/*_bg.wasm plus its JS glue, beside the same measure of the
peers installed from npm into a temporary folder in this run: oidc-client-ts (its
dist/browser/*.min.js), @auth0/auth0-spa-js (its production bundle) and oauth4webapi (bundled
and minified with esbuild). When npm cannot reach the registry the table says so."""

import glob
import json
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
    return f"{n / 1000:.1f} KB"


def pkg_files():
    pkg = os.environ.get("BENCH_PKG_DIR", os.path.join(ROOT, "pkg"))
    wasm = sorted(glob.glob(os.path.join(pkg, "*_bg.wasm")))
    js = sorted(
        p
        for p in glob.glob(os.path.join(pkg, "**", "*.js"), recursive=True)
        if not p.endswith(".d.ts")
    )
    return wasm, js


def version(prefix, name):
    try:
        with open(os.path.join(prefix, "node_modules", name, "package.json")) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "?"


def run():
    rows = []
    wasm, js = pkg_files()
    if not wasm:
        raise RuntimeError("pkg/*_bg.wasm missing: scripts/build-pkg.sh did not run")
    # The JS glue (entry module plus wasm-bindgen snippets) counted as one gzip stream, as
    # scripts/build-pkg.sh prints it.
    js_gz = len(subprocess.run("cat " + " ".join(f"'{p}'" for p in js) + " | gzip -9 -c", shell=True, capture_output=True, check=True).stdout) if js else 0
    wasm_gz = sum(gz(p) for p in wasm)
    ours_gz = wasm_gz + js_gz
    ours_raw = sum(os.path.getsize(p) for p in wasm + js)
    names = ", ".join(os.path.relpath(p, ROOT) for p in wasm + js)
    rows.append(
        row(
            SECTION,
            "fundraising-client (pkg: wasm + JS glue), gzip -9",
            f"{kb(ours_gz)} ({ours_gz} B)",
            f"{'within' if ours_gz <= 72 * 1024 else 'OVER'} the 72 KB budget; wasm {wasm_gz} B + JS glue {js_gz} B; "
            f"{kb(ours_raw)} raw; {names}",
        )
    )

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
