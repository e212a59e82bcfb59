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
# make test builds each crate about once (CI's from a fresh clone): incremental compilation's
# bookkeeping costs CPU and disk there and pays only on rebuilds after small edits, which a
# developer's own cargo commands keep.
export CARGO_INCREMENTAL=0

# Each step prints its wall-clock time when the next begins, and the run ends with a table of
# every step's wall-clock and CPU time (what its commands used, on every core) and the total,
# also when a step fails. (The tools installed in the background count in the step that waits.)
times_file=$(mktemp "${TMPDIR:-/tmp}/fundraising-times.XXXXXX")
cpu=0
read_cpu() { # sets cpu: the CPU seconds (user + system) of this shell's waited-for children
  times >"$times_file" # (in this shell: a subshell has children of its own)
  cpu=$(awk 'NR == 2 { split($1 " " $2, t, /[ms ]/); print t[1] * 60 + t[2] + t[4] * 60 + t[5] }' "$times_file")
}
run_started=$(date +%s.%N)
step_name=""
step_started=""
step_cpu=0
steps_done=()
end_step() {
  [ -n "$step_name" ] || return 0
  local now
  now=$(date +%s.%N)
  read_cpu
  steps_done+=("$(awk -v w="$now" -v s="$step_started" -v c="$cpu" -v c0="$step_cpu" -v n="$step_name" \
    'BEGIN { printf "%7.0f s %7.0f s  %s", w - s, c - c0, n }')")
  printf '    (%s)\n' "$(awk -v w="$now" -v s="$step_started" 'BEGIN { printf "%.0f s", w - s }')"
  step_name=""
}
step() {
  end_step
  step_name=$*
  step_started=$(date +%s.%N)
  read_cpu
  step_cpu=$cpu
  printf '\n==> %s\n' "$*"
}
summary() {
  local status=$?
  end_step
  # A failed run does not leave tools installing behind it.
  for pid in ${tools_system:-} ${tools_cargo:-} ${components_build:-} ${outside_prepare:-}; do kill "$pid" 2>/dev/null || true; done
  printf '\n==> make test: each step\n     wall      CPU  step\n'
  printf '%s\n' "${steps_done[@]}"
  awk -v w="$(date +%s.%N)" -v s="$run_started" -v st="$status" \
    'BEGIN { printf "%7.0f s in all (%d min %02d s), exit %d\n", w - s, int((w - s) / 60), (w - s) % 60, st }'
  rm -f "$times_file"
}
trap summary EXIT

# The one target directory of a Leptos or Dioxus workspace (components/*, examples/*): each
# framework's crates and examples share theirs, so nothing of the framework compiles twice.
repo_root=$(pwd)
components_target() {
  case $1 in
    *leptos*) echo "$repo_root/target/leptos-example" ;;
    *dioxus*) echo "$repo_root/target/dioxus" ;;
  esac
}
export repo_root
export -f components_target

# The tools install in the background beside the steps that need none of them: Debian's
# packages, rustup's targets and the npm folders (mostly downloads) beside the format check and
# the native lint; the tools built from crates.io (mostly compiling) until the package build
# needs them. `need_tools KIND` waits for one kind, and fails the run with its output if it
# failed.
tools_log=$(mktemp -d "${TMPDIR:-/tmp}/fundraising-tools.XXXXXX")
tools=(wasm browser engines e2e redis interop deploy musl trunk)
scripts/ensure-tools.sh --only system "${tools[@]}" >"$tools_log/system" 2>&1 &
tools_system=$!
scripts/ensure-tools.sh --only cargo "${tools[@]}" >"$tools_log/cargo" 2>&1 &
tools_cargo=$!
need_tools() { # system|cargo
  local pid var="tools_$1" status=0
  pid=${!var}
  [ -n "$pid" ] || return 0
  wait "$pid" || status=$?
  printf -v "$var" '%s' ""
  grep -E '^==> ' "$tools_log/$1" | sed 's/^==> /    installed: /' || true
  if [ "$status" != 0 ]; then
    cat "$tools_log/$1" >&2
    echo "error: installing the tools ($1) failed (exit $status)" >&2
    exit 1
  fi
}

step "cargo fmt --check"
cargo fmt --all -- --check
# The component crates, the examples, the small Rust app and the fuzz targets are workspaces of
# their own.
for dir in components/leptos components/dioxus examples/leptos examples/dioxus; do
  (cd "$dir" && cargo fmt -- --check)
done
(cd tests/rust-app && cargo fmt -- --check)
(cd fuzz && cargo fmt -- --check)

step "clippy (native)"
cargo clippy --workspace --all-targets -- -D warnings
step "clippy (the companion with OpenTelemetry export, --features otlp)"
cargo clippy -p fundraising-companion --all-targets --features otlp -- -D warnings
# The component crates and the examples are linted as their wasm32 test builds compile, beside
# the package's browser tests (below): scripts/clippy-rustc.sh, clippy's driver, is cargo's
# RUSTC_WORKSPACE_WRAPPER there, so Leptos and Dioxus are not compiled twice, once checked and
# once built to run. Cargo does not count the wrapper in what makes a build fresh: where their
# target folders already held builds (a developer's own), a crate it takes as fresh would not
# be linted, so there `cargo clippy` runs first. CI's fresh clone has none. (The host builds
# cannot lint that way: under a workspace wrapper, cargo 1.95 leaves an integration test's
# CARGO_BIN_EXE_<name> undefined.)
export CLIPPY_RUSTC="$repo_root/scripts/clippy-rustc.sh"
components_built=false
for dir in components/leptos components/dioxus; do
  [ -d "$(components_target "$dir")/wasm32-unknown-unknown/debug" ] && components_built=true
done
step "clippy (the serving loop alone, without the servers' allocator)"
cargo clippy -p fundraising-serve --all-targets -- -D warnings
step "clippy (wasm32: the builds that ship, and each operation alone; one target directory)"
need_tools system
# The Rust API as apps depend on it (with chrono and time), the npm package's full, light,
# widgets and card builds, and a Rust app that takes one operation alone.
builds=("--features chrono,time" "--features js" "--no-default-features --features js,campaign,donation,events,pages" \
  "--no-default-features --features js,campaign,donation" "--no-default-features --features js,campaign")
for op in campaign donation events pages; do builds+=("--no-default-features --features $op"); done
for features in "${builds[@]}"; do
  # shellcheck disable=SC2086 # the feature flags are words
  cargo clippy -q -p fundraising-client -p fundraising-core --target wasm32-unknown-unknown --all-targets $features -- -D warnings \
    || { echo "error: clippy of the client (wasm32) with $features" >&2; exit 1; }
done

# Their server-rendering builds hold the same code (the server is a `cfg!` constant, not a
# `#[cfg]`), so one lint per framework covers both.
if [ "$components_built" = true ]; then
  step "clippy (the component crates and the examples, wasm32; their target folders held earlier builds)"
  for dir in components/leptos examples/leptos components/dioxus examples/dioxus; do
    (cd "$dir" && CARGO_TARGET_DIR="$(components_target "$dir")" cargo clippy --all-targets -- -D warnings)
  done
fi

step "the Rust API's documentation (wasm32, as docs.rs builds it)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --target wasm32-unknown-unknown -p fundraising-client --features chrono,time

step "native tests"
need_tools system # redis-server for the companion's shared-store tests
cargo test --workspace
# The JS face's protocol tables against src/json/tape.js (the engine's are checked above).
cargo test -q -p fundraising-client --features js --lib
step "the components under server rendering, on the host: the pending branch, no client, no browser API"
(cd components/leptos && CARGO_TARGET_DIR="$(components_target leptos)" cargo test -q --features ssr --target "$(rustc -vV | sed -n 's/^host: //p')" --test ssr)
(cd components/dioxus && CARGO_TARGET_DIR="$(components_target dioxus)" cargo test -q --features server --target "$(rustc -vV | sed -n 's/^host: //p')" --test ssr)
step "the companion's OTLP export (--features otlp) to a collector in the test"
cargo test -p fundraising-companion --features otlp --test e2e -- spans_are_exported_over_otlp

step "interop: openid-client against the sandbox, oidc-provider behind the companion"
cargo build -q -p fundraising-sandbox -p fundraising-companion
(cd interop && node --test)

step "build the npm package and the Leptos example"
need_tools cargo # the wasm-bindgen CLI
scripts/build-pkg.sh
scripts/leptos-example.sh

step "the package's decoding (Node) against core's: 10,000 generated answers, the fixtures and the fuzz corpora"
cargo test -q --test decode_differential -- --ignored

step "the package's browser tests in every engine, beside the component crates' and examples' test builds and the outside journeys' packaged crates and static servers"
need_tools system
# The builds that later suites need run beside the package's browser tests, which mostly wait:
# the component crates' and the examples' test builds (one target folder per framework), and
# the outside journeys' packaged crates with the servers' static release build
# (scripts/outside-tests.sh --prepare; outside the repository, since cargo would take the
# packaged crates for members of its workspace).
outside_prep=$(mktemp -d "${TMPDIR:-/tmp}/fundraising-outside-prep.XXXXXX")
nice bash -c '
  for dir in components/leptos examples/leptos components/dioxus examples/dioxus; do
    (cd "$dir" && RUSTC_WORKSPACE_WRAPPER="$CLIPPY_RUSTC" CARGO_TARGET_DIR="$(components_target "$dir")" cargo test -q --no-run) \
      || { echo "error: $dir: the browser tests did not build, or their lint failed" >&2; exit 1; }
  done' >"$tools_log/components-build" 2>&1 &
components_build=$!
nice scripts/outside-tests.sh --prepare "$outside_prep" >"$tools_log/outside-prepare" 2>&1 &
outside_prepare=$!
# Every suite runs even when one before it failed, so one run shows every failure; the run
# fails at the end when any did. The browser tests print each engine's counts.
failed=()
scripts/with-servers.sh -- scripts/browser-tests.sh chromium firefox webkit || failed+=("browser tests")
wait "$outside_prepare" || { cat "$tools_log/outside-prepare" >&2; echo "error: scripts/outside-tests.sh --prepare failed" >&2; exit 1; }
outside_prepare=""
grep -E '^--> |built in' "$tools_log/outside-prepare" || true
wait "$components_build" || { cat "$tools_log/components-build" >&2; failed+=("the component crates' and the examples' test builds and lint"); }
components_build=""
step "the component crates and the examples in every engine (signing in headlessly), the Node and end-to-end tests"
scripts/with-servers.sh -- bash -c '
  failed=()
  suites=(components/leptos examples/leptos components/dioxus examples/dioxus)
  # The component crates'"'"' documentation examples compile (once; rustdoc keeps no build of them).
  for dir in components/leptos components/dioxus; do
    (cd "$dir" && CHROMEDRIVER=/usr/bin/chromedriver CARGO_TARGET_DIR="$(components_target "$dir")" cargo test -q --doc) || failed+=("$dir: its documentation examples")
  done
  for dir in "${suites[@]}"; do
    CARGO_TARGET_DIR="$(components_target "$dir")" scripts/browser-tests.sh --in "$dir" chromium firefox webkit \
      || failed+=("$dir browser tests")
  done
  node --test tests/node/ || failed+=("Node tests")
  (cd e2e && node --test) || failed+=("end-to-end tests")
  if [ ${#failed[@]} -gt 0 ]; then
    printf "\nfailed: %s\n" "${failed[*]}" >&2
    exit 1
  fi
' || failed+=("the component crates', the examples', the Node or the end-to-end tests")
if [ ${#failed[@]} -gt 0 ]; then
  printf "\nfailed: %s\n" "${failed[*]}" >&2
  exit 1
fi

step "the npm package and the crates as published; the docs in step with them"
# npm pack's file list, the manifest, a strict TypeScript app against the packed declarations,
# the API reference's error table, the widgets' hostable folder, crates.io metadata, the MSRV
# and `cargo package`, the published READMEs' links, the docs' links.
# (docs/testing.md's recipes run outside the workspace, from the packed packages, below.)
node --test tests/package/ tests/docs/docs.test.mjs tests/docs/snippets.test.mjs

step "outside the workspace: the Vite app, the test kit's recipes, the Rust quick start, the Leptos and Dioxus examples and the nginx deployment, from the packed artifacts"
scripts/outside-tests.sh --prepared "$outside_prep"
rm -rf "$outside_prep"
