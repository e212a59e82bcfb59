#!/usr/bin/env bash
# `make test`: lint, every native test, the browser tests, the Node test and the end-to-end tests.
# Installs what is missing first (wasm32 target, wasm-bindgen CLI, wasm-opt, Chromium, e2e npm packages,
# redis-server, the interop tests' npm packages).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "tools"
scripts/ensure-tools.sh wasm browser e2e redis interop

step "cargo fmt --check"
cargo fmt --all -- --check

step "clippy (native)"
cargo clippy --workspace --all-targets -- -D warnings
step "clippy (wasm32)"
cargo clippy -p fundraising-client -p fundraising-core --target wasm32-unknown-unknown --all-targets -- -D warnings

step "native tests"
cargo test --workspace

step "interop: openid-client against the sandbox, oidc-provider behind the companion"
cargo build -q -p fundraising-sandbox -p fundraising-companion
(cd interop && node --test)

step "build the npm package"
scripts/build-pkg.sh

step "browser, Node and end-to-end tests against a sandbox and a companion"
export CHROMEDRIVER=/usr/bin/chromedriver
scripts/with-servers.sh -- bash -c '
  set -euo pipefail
  cargo test --target wasm32-unknown-unknown -p fundraising-client
  node --test tests/node/
  (cd e2e && node --test)
'
