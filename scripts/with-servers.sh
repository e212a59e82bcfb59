#!/usr/bin/env bash
# Runs a command against the sandbox and three companions on free loopback ports, through
# `fundraising-sandbox exec` (the runner users get), with this repository's demo site and
# builds as the companions' sites, and stops them afterwards whatever the command's outcome.
#
#   scripts/with-servers.sh [--release] -- COMMAND [ARGS...]
#
# Exported to COMMAND, besides what exec exports (FUNDRAISING_BASE_URL, FUNDRAISING_AUTH_URL,
# FUNDRAISING_APP_ID, WASM_BINDGEN_TEST_ADDRESS, FUNDRAISING_RUN_DIR, ...):
#   FUNDRAISING_COMPANION_URL         a companion for demo-app serving www/demo/ and pkg/ (its "/" is the home page)
#   FUNDRAISING_BFF_COMPANION_URL     a companion in BFF mode for FUNDRAISING_BFF_APP_ID (demo-bff), serving www/demo/
#                                     and pkg/
#   FUNDRAISING_LEPTOS_COMPANION_URL  a companion serving the Leptos example (examples/leptos/dist, built by
#                                     scripts/leptos-example.sh) for FUNDRAISING_LEPTOS_APP_ID (demo-leptos);
#                                     its addresses are written to examples/leptos/dist/config/HOST_PORT.json
#   FUNDRAISING_COMPONENTS_COMPANION_URL  a companion for FUNDRAISING_COMPONENTS_APP_ID (demo-components), whose home
#                                     page is the wasm-bindgen-test runner's page (the component crates' tests)
#   FUNDRAISING_TEST_HELPER_URL       scripts/test-helper.py (code minter and fault proxy)
#   RUNNER_PROXY_ADDRESS              scripts/runner-proxy.py, the browsers' way to the runner's page server
#   WASM_BINDGEN_TEST_WEBDRIVER_JSON  Chromium's and Firefox's capabilities for wasm-bindgen-test-runner: the
#                                     runner's page server through RUNNER_PROXY_ADDRESS
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

profile=debug
if [ "${1:-}" = "--release" ]; then profile=release; shift; fi
[ "${1:-}" = "--" ] && shift

cargo_flags=()
[ "$profile" = release ] && cargo_flags=(--release)
cargo build -q "${cargo_flags[@]}" -p fundraising-sandbox -p fundraising-companion

config=$(mktemp "${TMPDIR:-/tmp}/fundraising-servers.XXXXXX.toml")
trap 'rm -f "$config"' EXIT
cat >"$config" <<TOML
# The test routes stage donations (the demo's donation page and the test runs use them).
enable_test_routes = true

[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "\${FUNDRAISING_COMPANION_URL}/"

[[applications]]
app_id = "demo-bff"
secret = "demo-secret"
home_page = "\${FUNDRAISING_BFF_COMPANION_URL}/"

[[applications]]
app_id = "demo-leptos"
secret = "demo-secret"
home_page = "\${FUNDRAISING_LEPTOS_COMPANION_URL}/"

# The component crates' browser tests: the home page is the test runner's page, so that a
# sign-in by redirect comes back to the tests.
[[applications]]
app_id = "demo-components"
secret = "demo-secret"
home_page = "http://\${WASM_BINDGEN_TEST_ADDRESS}/"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"

[[companions]]
app_id = "demo-app"
args = ["--static-dir", "$root/www/demo", "--pkg-dir", "$root/pkg"]

[[companions]]
name = "bff"
app_id = "demo-bff"
args = ["--bff", "--static-dir", "$root/www/demo", "--pkg-dir", "$root/pkg"]

[[companions]]
name = "leptos"
app_id = "demo-leptos"
args = ["--static-dir", "$root/examples/leptos/dist"]

[[companions]]
name = "components"
app_id = "demo-components"
TOML

# Inside exec: the Leptos example's addresses, and the test helper beside the servers.
inner='
set -euo pipefail
host_port=${FUNDRAISING_LEPTOS_COMPANION_URL#http://}
mkdir -p examples/leptos/dist/config
printf "{\"appId\": \"%s\", \"baseUrl\": \"%s\", \"authUrl\": \"%s\", \"companionUrl\": \"%s\"}\n" \
  "$FUNDRAISING_LEPTOS_APP_ID" "$FUNDRAISING_BASE_URL" "$FUNDRAISING_AUTH_URL" "$FUNDRAISING_LEPTOS_COMPANION_URL" \
  >"examples/leptos/dist/config/${host_port/:/_}.json"
port=$(python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); print(s.getsockname()[1])")
export FUNDRAISING_TEST_HELPER_URL="http://127.0.0.1:$port"
python3 scripts/test-helper.py --port "$port" >"$FUNDRAISING_RUN_DIR/test-helper.log" 2>&1 &
helper=$!
trap "kill $helper 2>/dev/null || true" EXIT
for _ in $(seq 1 300); do
  curl -fsS -o /dev/null "$FUNDRAISING_TEST_HELPER_URL/healthz" 2>/dev/null && break
  kill -0 $helper 2>/dev/null || { cat "$FUNDRAISING_RUN_DIR/test-helper.log" >&2; exit 1; }
  sleep 0.1
done
# The browsers reach wasm-bindgen-test-runner'"'"'s page server through scripts/runner-proxy.py
# (one upstream connection per request; that script says why), and every other server directly:
# Chromium and Firefox by the capabilities in WASM_BINDGEN_TEST_WEBDRIVER_JSON, WebKit by
# scripts/webkit-webdriver.sh.
proxy_port_file="$FUNDRAISING_RUN_DIR/runner-proxy.port"
python3 scripts/runner-proxy.py --port-file "$proxy_port_file" >"$FUNDRAISING_RUN_DIR/runner-proxy.log" 2>&1 &
proxy=$!
trap "kill $helper $proxy 2>/dev/null || true" EXIT
for _ in $(seq 1 300); do
  [ -s "$proxy_port_file" ] && break
  kill -0 $proxy 2>/dev/null || { cat "$FUNDRAISING_RUN_DIR/runner-proxy.log" >&2; exit 1; }
  sleep 0.1
done
export RUNNER_PROXY_ADDRESS="127.0.0.1:$(cat "$proxy_port_file")"
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$FUNDRAISING_RUN_DIR/webdriver.json"
python3 - "${RUNNER_PROXY_ADDRESS#*:}" >"$WASM_BINDGEN_TEST_WEBDRIVER_JSON" <<"PY"
import json, os, sys, urllib.parse
port = int(sys.argv[1])
servers = sorted({urllib.parse.urlsplit(v).netloc for k, v in os.environ.items()
                  if k.startswith("FUNDRAISING_") and k.endswith("_URL")})
print(json.dumps({
    "goog:chromeOptions": {"args": [
        f"proxy-server=http://127.0.0.1:{port}",
        "proxy-bypass-list=" + ";".join(["<-loopback>"] + servers),
    ]},
    "moz:firefoxOptions": {"prefs": {
        "network.proxy.type": 1,
        "network.proxy.http": "127.0.0.1",
        "network.proxy.http_port": port,
        "network.proxy.no_proxies_on": ", ".join(servers),
        "network.proxy.allow_hijacking_localhost": True,
    }},
}))
PY
"$@"
'
exec_flags=()
[ -n "${KEEP_RUN_DIR:-}" ] && exec_flags+=(--keep-run-dir)
"$root/target/$profile/fundraising-sandbox" exec --config "$config" \
  --companion-bin "$root/target/$profile/fundraising-companion" "${exec_flags[@]}" \
  -- bash -c "$inner" with-servers "$@"
