"""Section 8: the browser's decoding held equal to core's (tests/decode_differential.rs) on
DIFF_ANSWERS generated answers (default 1,000,000; BENCH_QUICK=1: 20,000), through the built
package (pkg/) in Node and core's native decoder, after the fuzz section so that the corpora it
grew (bench/work/corpus) go through both paths too. Release build; the seed is printed, and a
failing answer is shrunk and kept in tests/fixtures/decode-differential/."""

import os
import re
import subprocess
import time

from common import QUICK, ROOT, log, row

SECTION = "8 decoding differential"
ANSWERS = int(os.environ.get("DIFF_ANSWERS") or (20_000 if QUICK else 1_000_000))


def run():
    if not os.path.exists(os.path.join(ROOT, "pkg", "fundraising_client_bg.wasm")):
        raise RuntimeError("pkg/ missing: scripts/bench.sh builds it for this section")
    seed = os.environ.get("DIFF_SEED") or str(time.time_ns() % 2**63)
    env = dict(os.environ, DIFF_ANSWERS=str(ANSWERS), DIFF_SEED=seed)
    log(f"cargo test --release --test decode_differential ({ANSWERS} answers, seed {seed})")
    t0 = time.monotonic()
    p = subprocess.run(
        ["cargo", "test", "-q", "--release", "--test", "decode_differential", "--", "--ignored", "--nocapture"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=4 * 3600,
    )
    took = time.monotonic() - t0
    out = p.stdout + p.stderr
    replayed = re.search(r"(\d+) replayed", out)
    done = re.search(r"(\d+) answers equal \(generated in ([\d.]+) s; the package and core decoded them in ([\d.]+) s\)", out)
    ok = p.returncode == 0 and done is not None
    if ok:
        value = f"{int(done.group(1)):,} generated answers equal, and {int(replayed.group(1)):,} from the fixtures and fuzz corpora"
        note = (f"seed {seed}; {took:.0f} s in all (generating {float(done.group(2)):.0f} s, decoding "
                f"{float(done.group(3)):.0f} s); release build")
    else:
        failure = re.search(r"panicked at [^\n]*\n(.*?)(?:\nstack backtrace|\Z)", out, re.S)
        value = "FAILED"
        note = f"seed {seed}: " + (failure.group(1)[:1500] if failure else out[-1500:])
    return [row(SECTION, f"the package's decoding (Node) against core's, {ANSWERS:,} generated answers", value, note, ok=ok)]


if __name__ == "__main__":
    for r in run():
        print(r)
