"""Runs the benchmark sections, prints one table and writes it to bench/REPORT.md.

    python3 bench/run.py [SECTION ...]     (sections: size client companion sandbox load faults fuzz decode pages)

BENCH_QUICK=1 shortens every load for a smoke run; FUZZ_SECONDS sets the fuzzing time per target.
A run of some sections replaces their rows in bench/REPORT.md and keeps the other sections' rows,
with a line saying which run those come from (its own header line). A section that fails is
reported as failed and the others still run. The exit status is 1 when
a section failed or a must-hold figure did not hold (5xx, lost events, a fault not handled, a
fuzz crash), so `make bench` fails then.
"""

import datetime
import os
import platform
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402

SECTIONS = [
    ("size", "sec_size", "1 size"),
    ("client", "sec_client", "2 client speed"),
    ("companion", "sec_companion", "3 companion"),
    ("sandbox", "sec_sandbox", "4 sandbox"),
    ("load", "sec_load", "5 load"),
    ("faults", "sec_faults", "6 faults"),
    ("fuzz", "sec_fuzz", "7 fuzz"),
    ("decode", "sec_decode", "8 decoding differential"),
    ("pages", "sec_pages", "9 page load"),
]


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem_kib = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
    except (OSError, StopIteration, ValueError):
        mem_kib = 0
    return os.cpu_count(), cpu, mem_kib


def git_rev():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=common.ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def tree_state():
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=common.ROOT, capture_output=True, text=True).stdout
    except OSError:
        return "?"
    n = len([line for line in out.splitlines() if line.strip()])
    return "clean" if n == 0 else f"{n} tracked file(s) modified"


def esc(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


TABLE_HEAD = ["| section | measure | value | check | notes |", "|---|---|---|---|---|"]


def line_of(r):
    check = {True: "ok", False: "FAIL", None: ""}[r["ok"]]
    return f"| {esc(r['section'])} | {esc(r['measure'])} | {esc(r['value'])} | {check} | {esc(r['note'])} |"


def render(lines, header):
    return header + "\n".join(TABLE_HEAD + lines) + "\n"


def earlier_report(path):
    """The report at `path` as it stands: its header's lines of runs (`- finished: ...` and
    `- kept from ...`) and its rows' lines by section title, or empty when there is none."""
    runs, rows = [], {}
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return runs, rows
    for line in text.splitlines():
        if line.startswith("- finished: ") or line.startswith("- kept from "):
            runs.append(line)
        elif line.startswith("| ") and line not in TABLE_HEAD:
            rows.setdefault(line[2:].split(" | ", 1)[0], []).append(line)
    return runs, rows


def kept_lines(runs, kept_keys):
    """The header lines saying where the kept sections' rows come from: the earlier report's
    own line for each run, narrowed to the kept sections (by their keys)."""
    out = []
    for line in runs:
        if line.startswith("- finished: "):
            what, _, sections = line[len("- finished: "):].rpartition(", sections: ")
        else:
            what, _, sections = line[len("- kept from the run finished "):].rpartition(": sections ")
        keys = [k for k in (x.strip() for x in sections.split(",")) if k in kept_keys]
        if keys:
            out.append(f"- kept from the run finished {what}: sections {', '.join(keys)}")
    return out


def main(argv):
    wanted = argv or [s[0] for s in SECTIONS]
    unknown = set(wanted) - {s[0] for s in SECTIONS}
    if unknown:
        print(f"unknown sections: {sorted(unknown)}", file=sys.stderr)
        return 2
    os.makedirs(common.WORK, exist_ok=True)
    # Server data and logs of the previous run (its SQLite files can hold many events).
    import shutil

    shutil.rmtree(os.path.join(common.WORK, "runs"), ignore_errors=True)
    rows = []
    timings = []
    for key, module, title in SECTIONS:
        if key not in wanted:
            continue
        common.log(f"==== section {title}")
        t0 = time.monotonic()
        try:
            mod = __import__(module)
            got = mod.run()
        except Exception as e:  # a failed section is a row of the report, the others still run
            traceback.print_exc()
            got = [common.row(title, "section", "failed", f"{type(e).__name__}: {str(e)[:600]}", ok=False)]
        rows.extend(got)
        timings.append(f"{key} {time.monotonic() - t0:.0f} s")
        for r in got:
            common.log(f"  {r['measure']}: {r['value']}  {'' if r['ok'] is None else ('ok' if r['ok'] else 'FAIL')}")

    out = os.environ.get("BENCH_REPORT", os.path.join(common.ROOT, "bench", "REPORT.md"))
    # A run of some sections keeps the other sections' rows of the report as it stands.
    earlier_runs, earlier_rows = earlier_report(out) if argv else ([], {})
    kept = [title for key, _, title in SECTIONS if key not in wanted and title in earlier_rows]
    lines = []
    for key, _, title in SECTIONS:
        if key in wanted:
            lines.extend(line_of(r) for r in rows if r["section"] == title)
        elif title in kept:
            lines.extend(earlier_rows[title])
    kept_keys = [key for key, _, title in SECTIONS if title in kept]

    cores, cpu, mem_kib = machine()
    fuzz_seconds = os.environ.get("FUZZ_SECONDS") or ("10" if common.QUICK else "300")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = (
        "# Benchmark report\n\n"
        "Written by `make bench` (scripts/bench.sh -> bench/run.py); every figure below comes from the run "
        "described here. Timings on shared machines are noisy: latencies are medians of repeated runs and "
        "ratios are measured side by side in the same run.\n\n"
        f"- finished: {now}, commit {git_rev()} (working tree {tree_state()}, {common.ROOT}), sections: {', '.join(wanted)}\n"
        f"- machine: {cores} cores ({cpu}), {mem_kib / 1024 / 1024:.1f} GiB memory, {platform.system()} {platform.release()}\n"
        f"- mode: {'BENCH_QUICK=1 (shortened smoke run)' if common.QUICK else 'full'}; FUZZ_SECONDS={fuzz_seconds} per fuzz target; "
        f"servers built with the `{common.PROFILE}` profile, on 127.0.0.1, ports picked at run time\n"
        f"- section times: {', '.join(timings)}\n"
        + "".join(f"{line}\n" for line in kept_lines(earlier_runs, kept_keys))
        + "\n`check` marks the figures that must hold (ok / FAIL).\n\n"
    )
    text = render(lines, header)
    print()
    print(text)
    with open(out, "w") as f:
        f.write(text)
    common.log(f"report written to {os.path.relpath(out, common.ROOT)}")
    if "BENCH_REPORT" not in os.environ:
        # docs/performance.md's figures, from the report just written.
        import figures

        figures.main([])
        common.log("docs/performance.md's figures written from it")
    failed = [r for r in rows if r["ok"] is False]
    if failed:
        common.log(f"{len(failed)} figure(s) did not hold: " + "; ".join(f"{r['section']}: {r['measure']}" for r in failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
