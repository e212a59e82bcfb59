"""Section 6: faults, each with the behaviour observed.

1. identity server stopped (the sandbox process, which serves it, is stopped) -> the companion
   answers upstream_unavailable within 1 s;
2. identity server back (restarted on the same ports and data) -> the next exchange succeeds;
3. identity server slow (sandbox --token-delay-ms) and a companion with a small
   --upstream-timeout-ms -> upstream_timeout after about that timeout; back to normal -> success;
4. sandbox SIGKILLed in the middle of an event-creation load and restarted -> every acknowledged
   event is still there.
"""

import asyncio
import json
import threading
import time

import load
from common import APP_ID, QUICK, CodeMinter, Companion, KeepAlive, log, new_run_dir, row, wait_until
from sec_companion import exchange_via_companion, start_pair
from sec_load import check_ids

SECTION = "6 faults"
SLOW_TIMEOUT_MS = 500
TOKEN_DELAY_MS = 3000
KILL_LOAD_S = 4 if QUICK else 12
KILL_AT_S = 1.5 if QUICK else 4


def timed_exchange(comp, minted):
    conn = KeepAlive(comp.url)
    t0 = time.perf_counter()
    status, _, body = exchange_via_companion(conn, comp, minted)
    dt = time.perf_counter() - t0
    conn.close()
    try:
        code = json.loads(body).get("error")
    except ValueError:
        code = None
    return status, code, dt


def run():
    rows = []
    run_dir = new_run_dir("faults")
    sb, comp = start_pair(run_dir)
    slow_comp = None
    try:
        minter = CodeMinter(sb.auth_url, f"{comp.url}/")
        s, c, dt = timed_exchange(comp, minter.mint())
        if s != 200:
            raise RuntimeError(f"baseline exchange failed: {s} {c}")

        # 1. identity server stopped
        pending = minter.mint()
        sb.stop()
        s, c, dt = timed_exchange(comp, pending)
        rows.append(
            row(
                SECTION,
                "identity server stopped -> /auth/token",
                f"HTTP {s} {c} in {dt * 1000:.0f} ms",
                "must be upstream_unavailable within 1 s",
                ok=(s == 502 and c == "upstream_unavailable" and dt < 1.0),
            )
        )

        # 2. identity server back
        sb.start()
        s, c, dt = timed_exchange(comp, minter.mint())
        rows.append(
            row(
                SECTION,
                "identity server back -> next /auth/token",
                f"HTTP {s}{' ' + c if c else ''} in {dt * 1000:.0f} ms",
                "must succeed",
                ok=s == 200,
            )
        )

        # 3. identity server slow, companion with a short upstream timeout
        # The registered home page stays the first companion's "/": the short-timeout companion
        # only passes that redirect_uri on with the code.
        slow_comp = Companion(run_dir, sb.auth_url, timeout_ms=SLOW_TIMEOUT_MS, name="companion-short-timeout")
        slow_comp.start()
        s, c, dt = exchange_short(slow_comp, minter)
        if s != 200:
            raise RuntimeError(f"short-timeout companion baseline exchange failed: {s} {c}")
        sb.stop()
        sb.start(token_delay_ms=TOKEN_DELAY_MS)
        s, c, dt = exchange_short(slow_comp, minter)
        rows.append(
            row(
                SECTION,
                f"identity server slow (token delay {TOKEN_DELAY_MS} ms), --upstream-timeout-ms {SLOW_TIMEOUT_MS} -> /auth/token",
                f"HTTP {s} {c} in {dt * 1000:.0f} ms",
                f"must be upstream_timeout after about {SLOW_TIMEOUT_MS} ms",
                ok=(s == 504 and c == "upstream_timeout" and SLOW_TIMEOUT_MS / 1000 * 0.9 <= dt < SLOW_TIMEOUT_MS / 1000 + 1.0),
            )
        )
        sb.stop()
        sb.start(token_delay_ms=0)
        s, c, dt = exchange_short(slow_comp, minter)
        rows.append(
            row(
                SECTION,
                "identity server fast again -> next /auth/token",
                f"HTTP {s}{' ' + c if c else ''} in {dt * 1000:.0f} ms",
                "must succeed",
                ok=s == 200,
            )
        )

        # 4. SIGKILL during event creation load, then restart
        acked = []
        workers = [load.EventCreator(sb.base_url, APP_ID, acked, f"k{i}") for i in range(32)]
        killed = {}

        def killer():
            time.sleep(KILL_AT_S)
            killed["acked_before"] = len(acked)
            sb.proc.kill9()
            killed["at"] = time.monotonic()
            sb.start()
            killed["back_after_s"] = time.monotonic() - killed["at"]

        t = threading.Thread(target=killer)
        log(f"event creation load {KILL_LOAD_S}s, SIGKILL at {KILL_AT_S}s")
        t.start()
        st = asyncio.run(load.run(workers, KILL_LOAD_S))
        t.join()
        wait_until(sb.ready, 30, "sandbox after restart")
        found, missing = check_ids(sb.base_url, acked)
        statuses = st.by_label("POST event")
        rows.append(
            row(
                SECTION,
                "sandbox SIGKILLed during event-creation load, restarted -> acknowledged events found",
                f"{found} of {len(acked)}",
                f"{killed.get('acked_before', '?')} acknowledged before the kill; back after "
                f"{killed.get('back_after_s', float('nan')):.1f} s; statuses {json.dumps(statuses)}, "
                f"{st.conn_errors} connection errors (requests cut by the kill, never acknowledged)"
                + (f"; missing e.g. {missing[:5]}" if missing else ""),
                ok=found == len(acked) and killed.get("acked_before", 0) > 0 and len(acked) > killed.get("acked_before", 0),
            )
        )
    finally:
        if slow_comp:
            slow_comp.stop()
        comp.stop()
        sb.stop()
    return rows


def exchange_short(comp, minter):
    return timed_exchange(comp, minter.mint())


if __name__ == "__main__":
    for r in run():
        print(r)
