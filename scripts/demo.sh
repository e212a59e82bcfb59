#!/usr/bin/env bash
# `make demo`: builds the package and the servers, starts the sandbox and the companion (which
# serves the demo site), prints the address to open, and runs until Ctrl-C.
# Addresses: DEMO_PORT (8080), SANDBOX_API_PORT (8081), SANDBOX_IDENTITY_PORT (8082).
# BFF=1 runs the companion in BFF mode (--bff): the page then holds no token and its resource
# calls go through the companion's /api proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. scripts/lib.sh

companion_port=${DEMO_PORT:-8080}
api_port=${SANDBOX_API_PORT:-8081}
identity_port=${SANDBOX_IDENTITY_PORT:-8082}

scripts/ensure-tools.sh wasm
scripts/build-pkg.sh
cargo build --release -p fundraising-sandbox -p fundraising-companion

mkdir -p .run
config=.run/sandbox.toml
write_sandbox_config "$config" "http://127.0.0.1:$companion_port/"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

target/release/fundraising-sandbox \
  --api-listen "127.0.0.1:$api_port" --identity-listen "127.0.0.1:$identity_port" \
  --data-dir .sandbox-data --config "$config" &
pids+=($!)

bff_flags=()
mode="token-mediating mode: the page holds a short-lived access token; BFF=1 make demo for BFF mode"
if [ "${BFF:-}" = 1 ]; then
  bff_flags=(--bff --api-url "http://127.0.0.1:$api_port")
  mode="BFF mode: the page holds no token, its resource calls go through the companion's /api"
fi

FUNDRAISING_CLIENT_SECRET=demo-secret target/release/fundraising-companion \
  --listen "127.0.0.1:$companion_port" --app-id demo-app \
  --auth-url "http://127.0.0.1:$identity_port" \
  --allowed-origin "http://127.0.0.1:$companion_port" \
  "${bff_flags[@]}" \
  --static-dir "$root/www/demo" --pkg-dir "$root/pkg" &
pids+=($!)

# The page reads the sandbox's addresses from a config file named after its own address.
FUNDRAISING_COMPANION_URL="http://127.0.0.1:$companion_port" \
FUNDRAISING_BASE_URL="http://127.0.0.1:$api_port" \
FUNDRAISING_AUTH_URL="http://127.0.0.1:$identity_port" \
FUNDRAISING_BFF="${BFF:-}" \
  node e2e/write-config.mjs >/dev/null

up() {
  curl -fsS -o /dev/null "http://127.0.0.1:$companion_port/healthz" 2>/dev/null &&
    curl -fsS -o /dev/null "http://127.0.0.1:$identity_port/.well-known/openid-configuration" 2>/dev/null
}
for _ in $(seq 1 100); do up && break; sleep 0.1; done
if ! up; then
  echo "error: the sandbox or the companion did not start (is a port of $companion_port, $api_port, $identity_port in use?)" >&2
  exit 1
fi

cat <<MSG

  Demo ready: open http://127.0.0.1:$companion_port/
  Sign in as demo@example.org / demo-password.   Widget: http://127.0.0.1:$companion_port/widget.html
  Companion in $mode.
  Ctrl-C stops everything.

MSG
wait
