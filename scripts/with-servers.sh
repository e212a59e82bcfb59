#!/usr/bin/env bash
# Starts the sandbox and the companion on free loopback ports, runs a command with their
# addresses in the environment, and stops them afterwards (whatever the command's outcome).
#
#   scripts/with-servers.sh [--release] -- COMMAND [ARGS...]
#
# Exported to COMMAND:
#   FUNDRAISING_APP_ID         demo-app
#   FUNDRAISING_BASE_URL       sandbox resource API   ({base_url})
#   FUNDRAISING_AUTH_URL       sandbox identity server ({auth_url})
#   FUNDRAISING_COMPANION_URL  companion, which also serves www/ and pkg/ (the registered home page is its "/")
#   FUNDRAISING_BFF_COMPANION_URL  a second companion in BFF mode (--bff), serving www/ and pkg/ too,
#                              for the application FUNDRAISING_BFF_APP_ID (its "/" is that app's home page)
#   FUNDRAISING_BFF_APP_ID     demo-bff
#   FUNDRAISING_LEPTOS_URL     a third companion serving the Leptos example (examples/leptos/dist,
#                              built by scripts/leptos-example.sh) as its site, for the application
#                              FUNDRAISING_LEPTOS_APP_ID (its "/" is that app's home page); its
#                              addresses are written to examples/leptos/dist/config/HOST_PORT.json
#   FUNDRAISING_LEPTOS_APP_ID  demo-leptos
#   FUNDRAISING_TEST_HELPER_URL  scripts/test-helper.py (code minter and fault proxy), when that file exists
#   WASM_BINDGEN_TEST_ADDRESS  the address wasm-bindgen-test-runner must serve on (an allowed origin)
#   FUNDRAISING_RUN_DIR        folder with the servers' logs and data
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. scripts/lib.sh

profile=debug
if [ "${1:-}" = "--release" ]; then profile=release; shift; fi
[ "${1:-}" = "--" ] && shift

cargo_flags=()
[ "$profile" = release ] && cargo_flags=(--release)
cargo build -q "${cargo_flags[@]}" -p fundraising-sandbox -p fundraising-companion

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
companion_port=$(free_port); api_port=$(free_port); identity_port=$(free_port); runner_port=$(free_port); helper_port=$(free_port)
bff_port=$(free_port); leptos_port=$(free_port)

run_dir=$(mktemp -d "${TMPDIR:-/tmp}/fundraising-run.XXXXXX")
export FUNDRAISING_RUN_DIR=$run_dir
export FUNDRAISING_APP_ID=demo-app
export FUNDRAISING_BASE_URL="http://127.0.0.1:$api_port"
export FUNDRAISING_AUTH_URL="http://127.0.0.1:$identity_port"
export FUNDRAISING_COMPANION_URL="http://127.0.0.1:$companion_port"
export FUNDRAISING_BFF_COMPANION_URL="http://127.0.0.1:$bff_port"
export FUNDRAISING_BFF_APP_ID=demo-bff
export FUNDRAISING_LEPTOS_URL="http://127.0.0.1:$leptos_port"
export FUNDRAISING_LEPTOS_APP_ID=demo-leptos
export WASM_BINDGEN_TEST_ADDRESS="127.0.0.1:$runner_port"
export WASM_BINDGEN_TEST_NO_ORIGIN_ISOLATION=1

write_sandbox_config "$run_dir/sandbox.toml" "$FUNDRAISING_COMPANION_URL/" "$FUNDRAISING_BFF_COMPANION_URL/"
cat >>"$run_dir/sandbox.toml" <<TOML

[[applications]]
app_id = "$FUNDRAISING_LEPTOS_APP_ID"
secret = "demo-secret"
home_page = "$FUNDRAISING_LEPTOS_URL/"
TOML
leptos_dist="$root/examples/leptos/dist"
mkdir -p "$leptos_dist/config"
cat >"$leptos_dist/config/127.0.0.1_$leptos_port.json" <<JSON
{"appId": "$FUNDRAISING_LEPTOS_APP_ID", "baseUrl": "$FUNDRAISING_BASE_URL", "authUrl": "$FUNDRAISING_AUTH_URL", "companionUrl": "$FUNDRAISING_LEPTOS_URL"}
JSON

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP_RUN_DIR:-}" = "" ]; then rm -rf "$run_dir"; fi
}
trap cleanup EXIT INT TERM

"$root/target/$profile/fundraising-sandbox" \
  --api-listen "127.0.0.1:$api_port" --identity-listen "127.0.0.1:$identity_port" \
  --data-dir "$run_dir/sandbox-data" --config "$run_dir/sandbox.toml" \
  >"$run_dir/sandbox.log" 2>&1 &
pids+=($!)

FUNDRAISING_CLIENT_SECRET=demo-secret "$root/target/$profile/fundraising-companion" \
  --listen "127.0.0.1:$companion_port" --app-id demo-app --auth-url "$FUNDRAISING_AUTH_URL" \
  --allowed-origin "$FUNDRAISING_COMPANION_URL" --allowed-origin "http://$WASM_BINDGEN_TEST_ADDRESS" \
  --static-dir "$root/www" --pkg-dir "$root/pkg" \
  >"$run_dir/companion.log" 2>&1 &
pids+=($!)

FUNDRAISING_CLIENT_SECRET=demo-secret "$root/target/$profile/fundraising-companion" \
  --listen "127.0.0.1:$bff_port" --app-id "$FUNDRAISING_BFF_APP_ID" --auth-url "$FUNDRAISING_AUTH_URL" \
  --bff --api-url "$FUNDRAISING_BASE_URL" \
  --allowed-origin "$FUNDRAISING_BFF_COMPANION_URL" --allowed-origin "http://$WASM_BINDGEN_TEST_ADDRESS" \
  --static-dir "$root/www" --pkg-dir "$root/pkg" \
  >"$run_dir/companion-bff.log" 2>&1 &
pids+=($!)

FUNDRAISING_CLIENT_SECRET=demo-secret "$root/target/$profile/fundraising-companion" \
  --listen "127.0.0.1:$leptos_port" --app-id "$FUNDRAISING_LEPTOS_APP_ID" --auth-url "$FUNDRAISING_AUTH_URL" \
  --allowed-origin "$FUNDRAISING_LEPTOS_URL" --static-dir "$leptos_dist" \
  >"$run_dir/companion-leptos.log" 2>&1 &
pids+=($!)

if [ -f "$root/scripts/test-helper.py" ]; then
  export FUNDRAISING_TEST_HELPER_URL="http://127.0.0.1:$helper_port"
  python3 "$root/scripts/test-helper.py" --port "$helper_port" >"$run_dir/test-helper.log" 2>&1 &
  pids+=($!)
fi

wait_up() { # url name
  for _ in $(seq 1 300); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "error: $2 did not come up at $1; its log:" >&2
  cat "$run_dir/$2.log" >&2 || true
  return 1
}
wait_up "$FUNDRAISING_AUTH_URL/.well-known/openid-configuration" sandbox
wait_up "$FUNDRAISING_BASE_URL/demo-app/v1/campaign/byshortname/demo-campaign" sandbox
wait_up "$FUNDRAISING_COMPANION_URL/healthz" companion
wait_up "$FUNDRAISING_BFF_COMPANION_URL/healthz" companion-bff
wait_up "$FUNDRAISING_LEPTOS_URL/healthz" companion-leptos
[ -n "${FUNDRAISING_TEST_HELPER_URL:-}" ] && wait_up "$FUNDRAISING_TEST_HELPER_URL/healthz" test-helper

set +e
"$@"
status=$?
set -e
if [ "$status" != 0 ]; then
  echo "---- server logs ($run_dir) ----" >&2
  tail -n 40 "$run_dir"/*.log >&2 || true
fi
exit "$status"
