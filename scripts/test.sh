#!/usr/bin/env bash
# `make test`: lint, every native test, the browser tests (in Chromium, Firefox and WebKit), the
# Node test and the end-to-end tests (Playwright in Chromium; WebDriver in Firefox and WebKit),
# then the package as published (npm and crates.io), one version everywhere, the docs' links
# and TypeScript snippets, and the users' journeys from the packed npm packages and the
# packaged crates in a folder outside the workspace (the servers from npm with no Rust, the
# widgets from a CDN, both dev loops).
# Installs what is missing first (wasm32 target, wasm-bindgen CLI, wasm-opt, Chromium, Firefox
# ESR and geckodriver, WebKitWebDriver and Xvfb, e2e npm packages, redis-server, the interop
# tests' npm packages, nginx and openssl, the musl target and musl-tools, trunk).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "tools"
scripts/ensure-tools.sh wasm browser engines e2e redis interop deploy musl trunk

step "cargo fmt --check"
cargo fmt --all -- --check
# The Leptos example, the small Rust app and the fuzz targets are workspaces of their own.
(cd examples/leptos && cargo fmt -- --check)
(cd tests/rust-app && cargo fmt -- --check)
(cd fuzz && cargo fmt -- --check)

step "clippy (native)"
cargo clippy --workspace --all-targets -- -D warnings
step "clippy (the companion with OpenTelemetry export, --features otlp)"
cargo clippy -p fundraising-companion --all-targets --features otlp -- -D warnings
step "clippy (the serving loop alone, without the servers' allocator)"
cargo clippy -p fundraising-serve --all-targets -- -D warnings
step "clippy (wasm32: the Rust API, the npm package, its light and widgets builds)"
for features in "" "--features js,chrono,time" "--no-default-features --features js,campaign,donation,events,pages" \
  "--no-default-features --features js,campaign,donation"; do
  # shellcheck disable=SC2086 # the feature flags are words
  cargo clippy -p fundraising-client -p fundraising-core --target wasm32-unknown-unknown --all-targets $features -- -D warnings
done
step "clippy (the client's smallest builds, native and wasm32: nothing, sign-in alone, each operation alone; each with and without sign-in and the JS face)"
# One check of the client per feature set, sharing the target directory (about a minute).
small_builds=("" signin signin,js)
for op in campaign donation events pages; do small_builds+=("$op" "$op,js" "$op,signin" "$op,signin,js"); done
for target in "" "--target wasm32-unknown-unknown"; do
  for features in "${small_builds[@]}"; do
    # shellcheck disable=SC2086 # the target flags are words
    cargo clippy -q -p fundraising-client $target --all-targets --no-default-features ${features:+--features "$features"} -- -D warnings \
      || { echo "error: clippy of the client with features [${features}] ${target:-(native)}" >&2; exit 1; }
  done
done

step "clippy (the Leptos example)"
(cd examples/leptos && CARGO_TARGET_DIR="$PWD/../../target/leptos-example" cargo clippy --all-targets -- -D warnings)

step "the Rust API's documentation (wasm32, as docs.rs builds it)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --target wasm32-unknown-unknown -p fundraising-client --features chrono,time

step "native tests"
cargo test --workspace
# The JS face's protocol tables against src/json/tape.js (the engine's are checked above).
cargo test -q -p fundraising-client --features js --lib
step "the companion's OTLP export (--features otlp) to a collector in the test"
cargo test -p fundraising-companion --features otlp --test e2e -- spans_are_exported_over_otlp

step "interop: openid-client against the sandbox, oidc-provider behind the companion"
cargo build -q -p fundraising-sandbox -p fundraising-companion
(cd interop && node --test)

step "build the npm package and the Leptos example"
scripts/build-pkg.sh
scripts/leptos-example.sh

step "the package's decoding (Node) against core's: 10,000 generated answers, the fixtures and the fuzz corpora"
cargo test -q --test decode_differential -- --ignored

step "browser tests (every engine), Node and end-to-end tests against a sandbox and a companion"
# Every suite runs even when one before it failed, so one run shows every failure; the run
# fails at the end when any did. The browser tests print each engine's counts.
scripts/with-servers.sh -- bash -c '
  failed=()
  scripts/browser-tests.sh chromium firefox webkit || failed+=("browser tests")
  # The Leptos example signs in (headlessly) in every engine, from one build.
  for engine in chromium firefox webkit; do
    case $engine in
      chromium) driver=(CHROMEDRIVER=/usr/bin/chromedriver); wrap=() ;;
      firefox) driver=(GECKODRIVER="$(command -v geckodriver)"); wrap=() ;;
      webkit) driver=(SAFARIDRIVER="$(command -v WebKitWebDriver)"); wrap=("$PWD/scripts/with-xvfb.sh" --) ;;
    esac
    (cd examples/leptos && env -u CHROMEDRIVER -u GECKODRIVER -u SAFARIDRIVER "${driver[@]}" CARGO_TARGET_DIR="$PWD/../../target/leptos-example" \
      WASM_BINDGEN_TEST_DRIVER_TIMEOUT="${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-30}" "${wrap[@]}" cargo test) \
      || failed+=("Leptos example browser tests in $engine")
  done
  node --test tests/node/ || failed+=("Node tests")
  (cd e2e && node --test) || failed+=("end-to-end tests")
  if [ ${#failed[@]} -gt 0 ]; then
    printf "\nfailed: %s\n" "${failed[*]}" >&2
    exit 1
  fi
'

step "the npm package and the crates as published; the docs in step with them"
# npm pack's file list, the manifest, a strict TypeScript app against the packed declarations,
# the API reference's error table, the widgets' hostable folder, crates.io metadata, the MSRV
# and `cargo package`, the published READMEs' links, the docs' links.
node --test tests/package/ tests/docs/

step "outside the workspace: the Vite app, the Rust quick start, the Leptos example and the nginx deployment, from the packed artifacts"
scripts/outside-tests.sh
