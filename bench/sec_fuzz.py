"""Section 7: cargo-fuzz (nightly) on the pure rules: the date codec, the callback parser, the
error-body parser, model decoding, the member-name rule and the BFF proxy's routing, FUZZ_SECONDS each (default 300;
BENCH_QUICK=1: 10).
Reports executions and crashes; a crash's input and message are written into the report."""

import glob
import os
import re
import subprocess

from common import QUICK, ROOT, WORK, log, row

SECTION = "7 fuzz"
TARGETS = {
    "date_codec": "fundraising_core::date::ServiceDate::parse / to_wire / serde",
    "callback_parser": "fundraising_core::callback::parse",
    "error_body": "fundraising_core::service_error::parse_error_body",
    "model_decode": "fundraising_core::json::decode (+ service shapes) of every model",
    "member_names": "fundraising_core::json::member against the rule as stated",
    "proxy_route": "fundraising_companion::api_route::route / allowed_location: one of the four operations under --api-url, or a refusal",
}
SECONDS = int(os.environ.get("FUZZ_SECONDS") or (10 if QUICK else 300))
FUZZ_DIR = os.path.join(ROOT, "fuzz")


def cargo_fuzz(*args, **kw):
    return subprocess.run(["cargo", "+nightly", "fuzz", *args], cwd=ROOT, text=True, capture_output=True, **kw)


def run():
    rows = []
    log("cargo +nightly fuzz build (release, debug assertions)")
    b = cargo_fuzz("build", "--sanitizer", "none", "--debug-assertions", timeout=3600)
    if b.returncode != 0:
        raise RuntimeError("cargo fuzz build failed: " + b.stderr[-2000:])
    triple = subprocess.run(["rustc", "+nightly", "-vV"], capture_output=True, text=True).stdout
    host = re.search(r"host: (\S+)", triple).group(1)
    for target, function in TARGETS.items():
        reg_dir = os.path.join(FUZZ_DIR, "regressions", target)
        regs = sorted(glob.glob(os.path.join(reg_dir, "*")))
        if regs:
            exe = os.path.join(FUZZ_DIR, "target", host, "release", target)
            failing = []
            for reg in regs:
                r = subprocess.run([exe, reg], capture_output=True, text=True, timeout=120)
                if r.returncode != 0:
                    panic = re.findall(r"panicked at [^\n]*\n([^\n]*)", r.stderr)
                    failing.append(f"{os.path.relpath(reg, ROOT)} ({panic[0].strip() if panic else 'exit ' + str(r.returncode)})")
            rows.append(
                row(
                    SECTION,
                    f"{target}: regression inputs (fuzz/regressions/{target}) passing",
                    f"{len(regs) - len(failing)} of {len(regs)}",
                    ("still failing: " + "; ".join(failing)) if failing else function,
                    ok=not failing,
                )
            )
        corpus = os.path.join(WORK, "corpus", target)
        os.makedirs(corpus, exist_ok=True)
        artifacts = os.path.join(WORK, "artifacts", target) + "/"
        os.makedirs(artifacts, exist_ok=True)
        before = set(glob.glob(artifacts + "*"))
        seeds = os.path.join(FUZZ_DIR, "seeds", target)
        dict_path = os.path.join(FUZZ_DIR, "dicts", f"{target}.dict")
        log(f"fuzz {target} for {SECONDS}s")
        r = cargo_fuzz(
            "run",
            "--sanitizer",
            "none",
            "--debug-assertions",
            target,
            corpus,
            seeds,
            "--",
            f"-max_total_time={SECONDS}",
            "-print_final_stats=1",
            f"-artifact_prefix={artifacts}",
            "-timeout=10",
            "-rss_limit_mb=2048",
            *([f"-dict={dict_path}"] if os.path.exists(dict_path) else []),
            timeout=SECONDS + 600,
        )
        out = r.stdout + r.stderr
        execs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", out)
        if not execs:
            execs = re.findall(r"#(\d+)\s+(?:DONE|pulse|NEW|REDUCE|INITED)", out)
        n = int(execs[-1]) if execs else 0
        cov = re.findall(r"cov: (\d+)", out)
        new = sorted(set(glob.glob(artifacts + "*")) - before)
        crashes = [p for p in new if os.path.basename(p).startswith(("crash-", "oom-", "timeout-", "leak-"))]
        note = f"{function}; {SECONDS} s; coverage {cov[-1] if cov else '?'} edges; corpus {len(os.listdir(corpus))} inputs"
        if crashes or r.returncode != 0:
            panic = re.findall(r"(panicked at [^\n]*\n[^\n]*)", out)
            detail = []
            for p in crashes[:3]:
                with open(p, "rb") as f:
                    data = f.read()
                detail.append(f"{os.path.relpath(p, ROOT)} = {data[:300]!r}")
            note += "; CRASH: " + ("; ".join(detail) or f"exit {r.returncode}") + (f"; {panic[0].strip()}" if panic else "")
            log(f"{target} crashed:\n{out[-3000:]}")
        rows.append(
            row(
                SECTION,
                f"{target}: executions / crashes",
                f"{n} / {len(crashes) or (1 if r.returncode != 0 else 0)}",
                note,
                ok=not crashes and r.returncode == 0 and n > 0,
            )
        )
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
