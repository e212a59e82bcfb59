#!/usr/bin/env bash
# Builds the Leptos example (examples/leptos) into examples/leptos/dist/: the app's wasm through
# wasm-bindgen (the CLI pinned to Cargo.lock, as for the package), index.html and start.js. A
# companion serves that folder as the example's site (scripts/with-servers.sh), which writes the
# addresses into dist/config.json.
#
#   scripts/leptos-example.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
example=examples/leptos
dist=$example/dist

(cd "$example" && CARGO_TARGET_DIR="$root/target/leptos-example" cargo build -q --release --lib)
wasm="$root/target/leptos-example/wasm32-unknown-unknown/release/fundraising_leptos_example.wasm"
rm -rf "$dist/pkg"
mkdir -p "$dist"
wasm-bindgen --target web --no-typescript --out-dir "$dist/pkg" "$wasm"
cp "$example/index.html" "$example/start.js" "$dist/"
printf 'leptos example: %s (wasm %d B gzip -9)\n' "$dist" "$(gzip -9 -c "$dist/pkg/fundraising_leptos_example_bg.wasm" | wc -c)"
