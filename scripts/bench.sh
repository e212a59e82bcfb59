#!/usr/bin/env bash
# `make bench`: size, client speed, companion, sandbox, load, faults, fuzzing, the decoding
# differential and the page loads in one table, printed and written to bench/REPORT.md (a run of
# some sections replaces their rows and keeps the others'). Installs what it needs when missing: wrk (Debian; oha
# from crates.io when apt cannot), cargo-fuzz and the nightly toolchain, Chromium, playwright-core
# (reused from e2e/node_modules, else into bench/work). The npm peers of the size table are
# fetched into a temporary folder during the run.
#
#   scripts/bench.sh [SECTION ...]   sections: size client companion sandbox load faults fuzz decode pages (default all)
#   BENCH_QUICK=1                    short loads, 10 s of fuzzing, 20,000 differential answers, 5 page pairs: a smoke run
#   BENCH_PAGE_PAIRS=N               the page loads' alternated pairs per page kind (default 10, at least 5)
#   DIFF_ANSWERS=N, DIFF_SEED=N      the decoding differential's answers (default 10^6) and seed
#   FUZZ_SECONDS=N                   fuzzing time per target (default 300)
#   BENCH_BEFORE_PKG_DIR=DIR         another build's pkg/ (say, of the commit before): its sizes and
#                                    its decoding, measured beside this build's in the same run
#   BENCH_BEFORE_COMPANION=FILE      another build's fundraising-companion (release): its code
#                                    exchange and refresh throughput beside this build's, same run
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(size client companion sandbox load faults fuzz decode pages)
wants() { for s in "${sections[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
say() { echo "==> $*" >&2; }

SUDO=""
[ "$(id -u)" != 0 ] && command -v sudo >/dev/null && SUDO="sudo"
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then $SUDO apt-get update -qq || return 1; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
cargo_install() { # crate: --locked first; a registry mirror may lack a locked version, then resolve afresh
  cargo install "$1" --locked || cargo install "$1"
}

mkdir -p bench/work

# ---- tools
if wants companion || wants sandbox || wants load; then
  if ! command -v wrk >/dev/null && ! command -v oha >/dev/null; then
    say "installing wrk (apt), else oha (crates.io)"
    apt_install wrk || cargo_install oha
  fi
fi
if wants fuzz; then
  if ! rustup toolchain list | grep -q '^nightly'; then
    say "rustup toolchain install nightly"
    rustup toolchain install nightly --profile minimal
  fi
  if ! cargo fuzz --version >/dev/null 2>&1; then
    say "cargo install cargo-fuzz"
    cargo_install cargo-fuzz
  fi
fi
if wants client || wants pages; then
  scripts/ensure-tools.sh browser
  if [ ! -d e2e/node_modules/playwright-core ] && [ ! -d bench/work/node_modules/playwright-core ]; then
    pw_version=$(python3 -c 'import json; print(json.load(open("e2e/package.json"))["dependencies"]["playwright-core"])' 2>/dev/null || echo latest)
    say "npm install playwright-core@$pw_version into bench/work"
    npm install --prefix bench/work --no-audit --no-fund --loglevel=error "playwright-core@$pw_version"
  fi
fi
for tool in python3 node npm gzip curl; do
  command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done

# ---- builds
if wants companion || wants sandbox || wants load || wants faults || wants client || wants pages; then
  say "cargo build --release -p fundraising-sandbox -p fundraising-companion"
  cargo build -q --release -p fundraising-sandbox -p fundraising-companion
fi
if wants size || wants client || wants decode || wants pages; then
  say "building the npm package (pkg/)"
  scripts/ensure-tools.sh wasm
  scripts/build-pkg.sh
fi

say "running: ${sections[*]} (BENCH_QUICK=${BENCH_QUICK:-0}, FUZZ_SECONDS=${FUZZ_SECONDS:-default})"
exec python3 "$root/bench/run.py" "${sections[@]}"
