#!/usr/bin/env bash
# What is left in a build of the package, by function: builds the package with its function
# names kept (KEEP_NAMES=1 scripts/build-pkg.sh into target/pkg-named/: the same code as pkg/,
# plus a name section) and prints twiggy's view of the light build's wasm (or the full one's):
# the bytes by origin (our modules, each other crate), the largest items, what keeps them
# (dominators), and the code no export reaches.
# Installs twiggy from crates.io when missing.
#
#   bench/breakdown.sh [light|full] [N]      (default: light, 40 rows)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-light}
rows=${2:-40}
command -v twiggy >/dev/null || cargo install twiggy --locked || cargo install twiggy
scripts/ensure-tools.sh wasm
# rustc strips the name section from release builds by default (strip = "debuginfo"); keep it.
KEEP_NAMES=1 CARGO_PROFILE_RELEASE_STRIP=none scripts/build-pkg.sh --out target/pkg-named >&2
wasm=target/pkg-named/fundraising_client_bg.wasm
[ "$build" = light ] && wasm=target/pkg-named/light/fundraising_client_bg.wasm
echo "== $wasm: $(wc -c <"$wasm") B with names; gzip -9 without the name section: see pkg/"
echo
echo "== by origin (bench/breakdown.py over twiggy's items; raw bytes, before compression)"
twiggy top -n 1000000 --format csv "$wasm" | python3 bench/breakdown.py
echo
echo "== twiggy top -n $rows (shallow size, % of the file with its name section)"
twiggy top -n "$rows" "$wasm"
echo
echo "== twiggy dominators -d 2 -r $rows (retained size: what would go with each item)"
twiggy dominators -d 2 -r "$rows" "$wasm"
echo
echo "== twiggy garbage (unreachable from the exports)"
twiggy garbage "$wasm" | head -n 20
