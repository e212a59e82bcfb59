"""Section 4: throughput and p99 of each resource GET of the sandbox under load (wrk, 64
connections, 10 s each; BENCH_QUICK=1: 2 s)."""

from common import APP_ID, QUICK, Companion, RssSampler, Sandbox, log, mib, new_run_dir, row, rss_kib, run_wrk

SECTION = "4 sandbox"
CONNECTIONS = 64
DURATION = 2 if QUICK else 10


def targets(base):
    return [
        ("GET campaign/byshortname/demo-campaign", f"{base}/{APP_ID}/v1/campaign/byshortname/demo-campaign"),
        ("GET donation/ref/demo-ref-1", f"{base}/{APP_ID}/v1/donation/ref/demo-ref-1"),
        ("GET donation/ref/demo-ref-2", f"{base}/{APP_ID}/v1/donation/ref/demo-ref-2"),
        ("GET event/1001/pages?pagesize=100", f"{base}/{APP_ID}/v1/event/1001/pages?page=1&pagesize=100"),
        ("GET event/1001/pages?page=3&pagesize=20", f"{base}/{APP_ID}/v1/event/1001/pages?page=3&pagesize=20"),
    ]


def run():
    rows = []
    run_dir = new_run_dir("sandbox")
    home = "http://127.0.0.1:9/"  # the home page is not visited in this section
    sb = Sandbox(run_dir, home).start()
    try:
        rows.append(row(SECTION, "sandbox RSS at rest", mib(rss_kib(sb.pid))))
        for label, url in targets(sb.base_url):
            log(f"wrk {CONNECTIONS} connections {DURATION}s: {label}")
            with RssSampler({"sandbox": sb.pid}) as s:
                r = run_wrk(url, CONNECTIONS, DURATION)
            rows.append(
                row(
                    SECTION,
                    f"{label}: throughput / p99",
                    f"{r['rps']:.0f} req/s / {r['p99_us'] / 1000:.2f} ms",
                    f"{r['requests']} requests, {r['errors_total']} errors (non-2xx {r['errors_status']}), "
                    f"p50 {r['p50_us'] / 1000:.2f} ms, peak RSS {mib(s.peak['sandbox'])}",
                    ok=r["errors_total"] == 0,
                )
            )
        rows.append(row(SECTION, "sandbox RSS after", mib(rss_kib(sb.pid))))
    finally:
        sb.stop()
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
