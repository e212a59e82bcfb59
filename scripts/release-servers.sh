#!/usr/bin/env bash
# Builds the servers' binaries for npm, one platform at a time, exactly as a Rust user's
# `cargo install` builds them, then writes the npm packages (scripts/server-packages.mjs): the
# launchers `fundraising-sandbox` and `fundraising-companion`, and one package per platform built
# here holding its two binaries.
#
#   scripts/release-servers.sh [--crates DIR] [--out DIR] [--debug] TARGET...
#
# TARGET is a Rust target triple of docs/development.md's table (x86_64-unknown-linux-musl,
# aarch64-unknown-linux-musl, x86_64-apple-darwin, aarch64-apple-darwin, x86_64-pc-windows-msvc);
# each is built on a machine that can link it (Linux for the musl ones, with musl-tools, or
# gcc-aarch64-linux-gnu as the linker of aarch64; macOS for both Apple targets; Windows for
# msvc). The release runs it once per machine, then publishes the platform packages before the
# launchers.
#   --crates DIR  build from the unpacked `cargo package` crates in DIR (their [patch] beside
#                 them, as scripts/outside-tests.sh makes them) instead of crates.io's, where the
#                 release takes them from once `cargo publish` has run
#   --out DIR     where the binaries (DIR/TARGET/bin) and the packages (DIR/npm) go; default
#                 target/release-servers
#   --debug       cargo's debug build instead (`cargo install --debug`): the same code, packages
#                 and launchers in a fraction of the build time, for the tests of the journeys
#                 from npm (scripts/outside-tests.sh); never published
# CARGO_TARGET_DIR is honoured, so a second run reuses the build.
# `cargo install` builds a published crate with cargo's own release profile (opt-level 3): the
# servers are built for speed, never with the npm wasm package's size profile (`[profile.wasm]`
# of the workspace, which a published crate does not carry).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

crates=""
out="$root/target/release-servers"
targets=()
install_flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --crates) crates=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --debug) install_flags+=(--debug); shift ;;
    -*) echo "usage: scripts/release-servers.sh [--crates DIR] [--out DIR] [--debug] TARGET..." >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || { echo "usage: scripts/release-servers.sh [--crates DIR] [--out DIR] [--debug] TARGET..." >&2; exit 2; }

version=$(awk '/^\[workspace\.package\]/ { s = 1 } s && /^version = / { gsub(/version = |"/, ""); print; exit }' Cargo.toml)
binaries=()
for target in "${targets[@]}"; do
  echo "==> cargo install ${install_flags[*]} fundraising-sandbox fundraising-companion $version for $target" >&2
  started=$SECONDS
  for crate in fundraising-sandbox fundraising-companion; do
    if [ -n "$crates" ]; then
      # (cargo install --path reads the [patch] of the configuration above the crates.)
      (cd "$crates" && cargo install -q "${install_flags[@]}" --target "$target" --path "$crates/$crate-$version" --root "$out/$target" --force)
    else
      cargo install -q "${install_flags[@]}" --locked --target "$target" "$crate" --version "=$version" --root "$out/$target" --force
    fi
  done
  echo "    built in $((SECONDS - started)) s" >&2
  binaries+=("$target=$out/$target/bin")
done
node scripts/server-packages.mjs "$out/npm" "${binaries[@]}"
