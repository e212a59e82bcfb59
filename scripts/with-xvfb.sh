#!/usr/bin/env bash
# Runs a command with a private X display: starts Xvfb on a display number it picks itself
# (-displayfd, so runs side by side never race for one), exports DISPLAY, runs the command and
# stops Xvfb afterwards. WebKitGTK's MiniBrowser has no headless mode and needs one.
#
#   scripts/with-xvfb.sh -- COMMAND [ARGS...]
set -euo pipefail
[ "${1:-}" = "--" ] && shift

if ! command -v Xvfb >/dev/null; then
  echo "error: Xvfb is missing (WebKit's MiniBrowser needs a display): run scripts/ensure-tools.sh engines" >&2
  exit 1
fi

display_file=$(mktemp "${TMPDIR:-/tmp}/xvfb-display.XXXXXX")
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3>"$display_file" >/dev/null 2>&1 &
xvfb_pid=$!
cleanup() {
  kill "$xvfb_pid" 2>/dev/null || true
  wait "$xvfb_pid" 2>/dev/null || true
  rm -f "$display_file"
}
trap cleanup EXIT INT TERM

# Xvfb writes the display number once it accepts connections (deadline 20 s).
for _ in $(seq 1 200); do
  if [ -s "$display_file" ] && grep -q . "$display_file"; then break; fi
  if ! kill -0 "$xvfb_pid" 2>/dev/null; then
    echo "error: Xvfb exited before it was ready" >&2
    exit 1
  fi
  sleep 0.1
done
number=$(head -n 1 "$display_file" | tr -dc '0-9')
if [ -z "$number" ]; then
  echo "error: Xvfb did not report its display within 20 s" >&2
  exit 1
fi
export DISPLAY=":$number"

set +e
"$@"
status=$?
set -e
exit "$status"
