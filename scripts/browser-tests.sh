#!/usr/bin/env bash
# Runs the package's browser tests (the wasm-bindgen-test suites of tests/*.rs) in each engine
# named, one after the other, from one compiled test build: wasm-bindgen-test-runner picks the
# browser from the driver variable that is set (CHROMEDRIVER, GECKODRIVER or SAFARIDRIVER).
# Every engine runs even when an earlier one failed; a missing engine or driver is a failure
# with the command that installs it, never a skip. Prints each engine's counts at the end and
# fails when any engine failed.
#
#   scripts/with-servers.sh -- scripts/browser-tests.sh [--in DIR] [chromium] [firefox] [webkit]
#   (default: all three; needs the servers' addresses that scripts/with-servers.sh exports)
#
# --in DIR runs the wasm-bindgen-test suites of the crate in DIR instead (the component crates
# and the examples, whose .cargo/config.toml picks wasm32; CARGO_TARGET_DIR as the caller sets it).
#
# Chromium: /usr/bin/chromium through chromedriver. Firefox: Debian's firefox-esr through
# geckodriver (crates.io). WebKit: WebKitGTK's MiniBrowser through WebKitWebDriver, on a private
# Xvfb display (scripts/with-xvfb.sh). Each driver's own defaults apply: chromedriver and
# geckodriver turn their browser's pop-up blocker off, WebKitWebDriver does not (and
# wasm-bindgen-test-runner sends WebKitWebDriver no capabilities, so a webdriver.json cannot
# change that); docs/browsers.md says what that means for the pop-up tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

crate_dir=""
if [ "${1:-}" = "--in" ]; then
  crate_dir=$2
  shift 2
fi
engines=("$@")
[ ${#engines[@]} -eq 0 ] && engines=(chromium firefox webkit)

if [ -z "${WASM_BINDGEN_TEST_ADDRESS:-}" ]; then
  echo "error: run this inside scripts/with-servers.sh (WASM_BINDGEN_TEST_ADDRESS is not set)" >&2
  exit 2
fi

cargo_test=(cargo test --target wasm32-unknown-unknown -p fundraising-client --features js)
driver_timeout=${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-30}
if [ -n "$crate_dir" ]; then
  cd "$crate_dir"
  cargo_test=(cargo test --tests)
  # A debug build of a whole app loads slowly on a busy machine: a minute for the page.
  driver_timeout=${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-60}
fi

# One build for every engine: the runs below find it up to date.
"${cargo_test[@]}" --no-run

minibrowser() {
  local found
  for found in /usr/lib/*/webkit2gtk-4.1/MiniBrowser /usr/libexec/webkit2gtk-4.1/MiniBrowser; do
    [ -x "$found" ] && { echo "$found"; return 0; }
  done
  return 1
}

# Prints the driver variable for the engine, or says what is missing and fails.
driver_env() {
  local engine=$1 missing=()
  case "$engine" in
    chromium)
      command -v chromium >/dev/null || missing+=(chromium)
      command -v chromedriver >/dev/null || missing+=(chromedriver)
      [ ${#missing[@]} -eq 0 ] && echo "CHROMEDRIVER=$(command -v chromedriver)"
      fix="scripts/ensure-tools.sh browser" ;;
    firefox)
      command -v firefox >/dev/null || command -v firefox-esr >/dev/null || missing+=(firefox-esr)
      command -v geckodriver >/dev/null || missing+=(geckodriver)
      [ ${#missing[@]} -eq 0 ] && echo "GECKODRIVER=$(command -v geckodriver)"
      fix="scripts/ensure-tools.sh engines" ;;
    webkit)
      command -v WebKitWebDriver >/dev/null || missing+=(WebKitWebDriver)
      minibrowser >/dev/null || missing+=(MiniBrowser)
      command -v Xvfb >/dev/null || missing+=(Xvfb)
      [ ${#missing[@]} -eq 0 ] && echo "SAFARIDRIVER=$root/scripts/webkit-webdriver.sh"
      fix="scripts/ensure-tools.sh engines" ;;
    *)
      echo "error: unknown engine '$engine' (chromium, firefox or webkit)" >&2
      return 1 ;;
  esac
  if [ ${#missing[@]} -gt 0 ]; then
    echo "error: the $engine browser tests cannot run: ${missing[*]} missing (install: $fix)" >&2
    return 1
  fi
}

logs=$(mktemp -d "${TMPDIR:-/tmp}/browser-tests.XXXXXX")
trap 'rm -rf "$logs"' EXIT
summary=()
failed=0
for engine in "${engines[@]}"; do
  printf '\n==> browser tests%s in %s\n' "${crate_dir:+ of $crate_dir}" "$engine"
  if ! driver=$(driver_env "$engine"); then
    summary+=("$engine: not run (engine or driver missing; see above)")
    failed=1
    continue
  fi
  wrap=()
  [ "$engine" = webkit ] && wrap=("$root/scripts/with-xvfb.sh" --)
  started=$SECONDS
  set +e
  env -u CHROMEDRIVER -u GECKODRIVER -u SAFARIDRIVER -u MSEDGEDRIVER \
    -u CHROMEDRIVER_REMOTE -u GECKODRIVER_REMOTE -u SAFARIDRIVER_REMOTE -u MSEDGEDRIVER_REMOTE \
    "$driver" WASM_BINDGEN_TEST_DRIVER_TIMEOUT="$driver_timeout" \
    "${wrap[@]}" "${cargo_test[@]}" --no-fail-fast 2>&1 | tee "$logs/$engine.log"
  status=${PIPESTATUS[0]}
  set -e
  took="$((SECONDS - started)) s"
  passed=$(grep -oE 'test result: [A-Za-z]+\. [0-9]+ passed' "$logs/$engine.log" | awk '{ s += $4 } END { print s + 0 }')
  failures=$(grep -oE '[0-9]+ failed;' "$logs/$engine.log" | awk '{ s += $1 } END { print s + 0 }')
  if [ "$status" != 0 ] && [ "$failures" = 0 ]; then
    # The runner itself failed (no browser, a crash, a timeout): no count says so.
    summary+=("$engine: $passed passed, the run failed (exit $status; see its output above; $took)")
    failed=1
    continue
  fi
  line="$engine: $passed passed, $failures failed"
  names=$(grep -E '^test .* \.\.\. (FAIL|fail)' "$logs/$engine.log" | sed -E 's/^test (.*) \.\.\. .*/\1/' | paste -sd, - | sed 's/,/, /g' || true)
  [ -n "$names" ] && line="$line ($names)"
  line="$line; $took"
  summary+=("$line")
  [ "$status" = 0 ] || failed=1
done

printf '\n==> browser tests%s, per engine\n' "${crate_dir:+ of $crate_dir}"
printf '%s\n' "${summary[@]}"
exit "$failed"
