#!/usr/bin/env bash
# Builds the npm package `fundraising-client` into pkg/, four times: the full build (pkg/), the
# light build without sign-in (pkg/light/, the subpath export `fundraising-client/light`), the
# widgets' build (pkg/widgets/, `fundraising-client/widgets`: a campaign and the donation wait
# only) and the card's build (pkg/card/, `fundraising-client/card`: a campaign only), each
#   cargo (release, wasm32) -> wasm-bindgen --target web -> wasm-opt -Oz -> short names ->
#   our entry module bundled with the glue (rollup) -> terser,
# then package.json + README (scripts/package-meta.mjs), the content-hashed and precompressed
# copies the companion serves (scripts/hash-assets.mjs), the widgets' hostable folder
# dist/widgets/ and the demo's elements (scripts/build-widgets.mjs), and prints each build's
# size as a browser fetches it: gzip -9 of each file (wasm, the one JS module) on its own, summed
# (the measure of the size budgets), and brotli beside it; then each kind of partner page's.
#
#   scripts/build-pkg.sh [--out DIR]      (default: pkg)
#   KEEP_NAMES=1                          keep the wasm's function names (bench/breakdown.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=pkg
if [ "${1:-}" = "--out" ]; then out=$2; fi

name=fundraising_client
# The features of each build: `js` is the JS layer, `signin` sign-in and sessions, and
# `campaign`, `donation`, `events`, `pages` the resource operations (all on by default). The
# light build has no sign-in; the widgets' build has the campaign and the donation (with its
# wait) only; the card's build, what a page with campaign cards alone loads, the campaign only.
full_features=(--features js)
light_features=(--no-default-features --features js,campaign,donation,events,pages)
widgets_features=(--no-default-features --features js,campaign,donation)
card_features=(--no-default-features --features js,campaign)

# The size build: nightly's std rebuilt for size with panics as plain traps (no panic
# messages or source locations, no formatting machinery for them), and without `Debug`
# formatting (`{:?}` prints nothing: our messages quote with core's `Quoted`; serde's
# invalid-type messages then name the type but not the value), in its own target
# directory so it does not rebuild the stable artifacts of the tests. Stable (a larger
# package) when nightly or its rust-src is missing (scripts/ensure-tools.sh wasm adds rust-src).
# Both builds share the target directory (std and the dependencies are built once).
have_nightly() {
  cargo +nightly --version >/dev/null 2>&1 \
    && [ -d "$(rustc +nightly --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library" ]
}
nightly_build() { # cargo feature flags...
  CARGO_TARGET_DIR="$root/target/pkg-nightly${KEEP_NAMES:+-named}" \
    RUSTFLAGS='--cfg getrandom_backend="wasm_js" -Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=none' \
    cargo +nightly build -q --profile wasm --target wasm32-unknown-unknown -p fundraising-client "$@" \
    -Z build-std=std,panic_abort -Z build-std-features=optimize_for_size
}
use_nightly=0
if have_nightly; then use_nightly=1; else
  echo "warning: no nightly toolchain with rust-src: building with stable (a larger package)" >&2
fi

# wasm-opt, rollup, terser, acorn and TypeScript come from tools/ (npm, locked;
# scripts/ensure-tools.sh wasm installs them): wasm-bindgen's output uses externref tables, which
# binaryen before 116 rewrites wrongly (Debian bookworm has 108).
wasm_opt="$root/tools/node_modules/.bin/wasm-opt"

# The features rustc's default wasm32 target emits (Rust 1.82+). --low-memory-unused: rustc
# puts the 1 MiB stack first (growing down to 0) and the data above it, so the lowest 1 KiB
# is only reached by a stack about to overflow; binaryen may then fold small constant
# offsets into loads and stores.
# -Oz twice: the second pass finds what the first one's inlining and merging opened up.
# --flatten --rereloop first: control flow rebuilt by the relooper, which -Oz then shrinks
# further than rustc's own structure (-0.5 KB gzip; decoding speed unchanged, measured side
# by side in Node and Chromium).
# --one-caller-inline-max-function-size=30: binaryen inlines a function with one caller
# whatever its size by default; merged bodies compress worse (-2.7 KB gzip at 30; at 20
# decoding got 6-8% slower, at 30 it costs 2-3% in Chromium; see docs/performance.md).
features=(--enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int
  --enable-mutable-globals --enable-reference-types --enable-multivalue)

# build_variant DIR [cargo feature flags...]: one build of the package into DIR (pkg/,
# pkg/light/, pkg/widgets/ or pkg/card/): cargo, wasm-bindgen (which writes its .d.ts from that build),
# wasm-opt, short names, and the bundle of our entry module with wasm-bindgen's output.
# Generated code is read by parsers and wrapped, never edited by pattern
# (tests/package/glue.test.mjs checks these scripts).
build_variant() {
  local dir=$1; shift
  local target_dir
  if [ "$use_nightly" = 1 ] && nightly_build "$@"; then
    target_dir="$root/target/pkg-nightly${KEEP_NAMES:+-named}"
  else
    [ "$use_nightly" = 1 ] && echo "warning: the nightly size build failed: building with stable (a larger package)" >&2
    target_dir="$root/target"
    cargo build -q --profile wasm --target wasm32-unknown-unknown -p fundraising-client "$@"
  fi
  local raw="$target_dir/wasm32-unknown-unknown/wasm/$name.wasm"
  # Each build's wasm before wasm-bindgen, kept by build (full, light, widgets, card): the next build
  # overwrites $raw, and tests/node/rust-app.test.mjs reads the full build's export names here.
  local label=full
  [ "$dir" != "$out" ] && label=$(basename "$dir")
  mkdir -p "$root/target/pkg-raw"
  cp "$raw" "$root/target/pkg-raw/$label.wasm"

  # wasm-bindgen's output goes to a stage folder (target/pkg-stage/<build>/), which the steps
  # below read; pkg/ gets the files they make. --omit-default-module-path: the glue says nothing
  # of where the wasm is; the package's own entry module (scripts/pkg-entry.js) does.
  local stage="$root/target/pkg-stage/$label"
  rm -rf "$stage"
  wasm-bindgen --target web --omit-default-module-path --out-dir "$stage" "$raw"

  # KEEP_NAMES=1 keeps the function names (for bench/breakdown.sh's twiggy; the code is the same:
  # rustc's name section is kept, then each wasm-opt keeps it with -g).
  local names=(--strip-debug) keep=()
  [ "${KEEP_NAMES:-}" = 1 ] && names=(-g) && keep=(-g)
  "$wasm_opt" --one-caller-inline-max-function-size=30 --flatten --rereloop -Oz -Oz "${names[@]}" --strip-producers --strip-target-features --low-memory-unused \
    "${features[@]}" -o "$stage/${name}_bg.opt.wasm" "$stage/${name}_bg.wasm"
  mv "$stage/${name}_bg.opt.wasm" "$stage/${name}_bg.wasm"

  # Short names for the wasm's imports and exports: in the wasm by binaryen, in the glue and its
  # declarations from binaryen's map, through their parsers (scripts/short-names.mjs).
  node scripts/short-names.mjs "$wasm_opt" "$stage" "$name" "${features[@]}" "${keep[@]}"

  # The build's files in pkg/: our entry module bundled with the glue and its snippets (rollup),
  # minified (terser; class names kept), the wasm, the declarations (checked for `any`, with the
  # lib `[Symbol.dispose]()` needs), and the engine check init() imports when it fails
  # (scripts/init-check.mjs as engine-check.js; docs/browsers.md).
  node scripts/bundle-pkg.mjs "$stage" "$dir" "$name"
}

rm -rf "$out"
build_variant "$out" "${full_features[@]}"
# The light build: the four resource calls and waitForDonation, no sign-in.
build_variant "$out/light" "${light_features[@]}"
# The widgets' build: getCampaign and waitForDonation (and getDonationByReference), no sign-in.
build_variant "$out/widgets" "${widgets_features[@]}"
# The card's build: getCampaign (and newDonationReference) only, for <fundraising-campaign>.
build_variant "$out/card" "${card_features[@]}"

# package.json and the npm README (from Cargo.toml's metadata and docs/api.md).
node scripts/package-meta.mjs "$out"

# What the companion serves beside the package's own files (after package.json, whose `files`
# lists those only): content-hashed copies, pkg/assets.js naming them, .br and .gz siblings.
node scripts/hash-assets.mjs "$out" "$name" . light widgets card

# The folder a partner hosts to offer the widgets (docs/widgets.md): each element bundled from
# www/widgets/ into one minified module naming the builds it loads (the card's, the widgets' build; the light
# build for <fundraising-event>), and those builds, hashed and compressed, nothing else.
# WIDGETS_BUILDS names those builds (keys of pkg/assets.js, comma-separated).
node scripts/build-widgets.mjs "$out" "${WIDGETS_OUT:-dist/widgets}" "${WIDGETS_BUILDS:-card,widgets,light}"
# The same elements for the demo site (www/demo/, gitignored there), whose companion serves pkg/
# at /pkg, the full build among them (the demo signs in and hands it to its elements).
if [ "$out" = pkg ]; then node scripts/build-widgets.mjs "$out" www/demo full,card,widgets,light --elements-only; fi

# Each build's size as a browser fetches it (scripts/build-size.mjs, which bench/sec_size.py
# runs too): every file gzip -9 on its own, summed; brotli beside it. Then what a partner's page
# with the elements fetches (scripts/page-size.mjs): the package's build and the element.
node scripts/build-size.mjs "$out"
node scripts/page-size.mjs "$out" "${WIDGETS_OUT:-dist/widgets}"
