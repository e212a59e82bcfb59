#!/usr/bin/env bash
# Installs what the build and the tests need, and only what is missing:
#   the wasm32 target, the wasm-bindgen CLI pinned to Cargo.lock, wasm-opt, terser and TypeScript
#   (tools/), nightly's rust-src,
#   Chromium and ChromeDriver (Debian), the other engines donors use (`engines`: Debian's
#   Firefox ESR with geckodriver from crates.io, and WebKitGTK's MiniBrowser with
#   WebKitWebDriver, run under Xvfb), the end-to-end test's npm packages, and Debian's
#   redis-server (the companion's --redis-url tests start one on a free port), and the
#   certified OpenID peers of the interop tests (npm, locked in interop/), Debian's nginx
#   and openssl for the deployment test (`deploy`), the musl target and Debian's musl-tools
#   for the servers' static binaries that npm ships (`musl`), and trunk from crates.io for the
#   Leptos dev loop (`trunk`: built from source, and run with --offline so that it never
#   downloads a tool).
#
# Usage: scripts/ensure-tools.sh [--only system|cargo] [wasm] [browser] [engines] [e2e] [redis]
#                                [interop] [deploy] [musl] [trunk]
#
# The work is of two kinds, which `--only` picks: `system` (Debian's packages in one apt-get
# call, rustup's targets and toolchains, the locked npm folders: mostly downloads) and `cargo`
# (the tools built from crates.io: mostly compiling). make test runs both in the background
# beside the steps that need neither (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

ONLY=""
if [ "${1:-}" = "--only" ]; then
  ONLY=$2
  shift 2
fi
WANTS=("$@")
[ ${#WANTS[@]} -eq 0 ] && WANTS=(wasm browser engines e2e redis interop deploy musl trunk)
want() { for w in "${WANTS[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
kind() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

SUDO=""
[ "$(id -u)" != 0 ] && command -v sudo >/dev/null && SUDO="sudo"

# True when the npm packages locked in folder $1 are not installed as locked: none installed, or
# the lock changed since (npm ci writes node_modules/.package-lock.json).
npm_stale() {
  [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]
}
npm_install() { # folder, what it holds
  echo "==> npm ci ($2)" >&2
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
}

# A tool from crates.io, pinned, built with its own lock file. Tools that only orchestrate
# (trunk, geckodriver) are built with the dev profile without debug info: their run time is
# their children's and the network's, and an optimised build (trunk's is fat LTO with one
# codegen unit) takes several times as long to compile.
cargo_tool() { # crate version [--debug]
  local crate=$1 version=$2
  shift 2
  echo "==> cargo install $crate $version $*" >&2
  # --locked first; the registry mirror may lack a locked transitive version, then resolve afresh.
  CARGO_PROFILE_DEV_DEBUG=0 cargo install "$crate" --version "$version" --locked --force "$@" \
    || CARGO_PROFILE_DEV_DEBUG=0 cargo install "$crate" --version "$version" --force "$@"
}

if kind system; then
  # Debian's packages: what is missing of every wanted group, in one apt-get call.
  packages=()
  if want browser; then
    command -v chromium >/dev/null && command -v chromedriver >/dev/null || packages+=(chromium chromium-driver)
  fi
  if want engines; then
    # Firefox ESR and WebKitGTK (MiniBrowser, which WebKitWebDriver starts) from Debian; Xvfb
    # gives MiniBrowser a display (it has no headless mode).
    command -v firefox-esr >/dev/null || packages+=(firefox-esr)
    command -v WebKitWebDriver >/dev/null || packages+=(webkit2gtk-driver)
    command -v Xvfb >/dev/null || packages+=(xvfb)
  fi
  if want redis; then
    command -v redis-server >/dev/null || packages+=(redis-server)
  fi
  if want deploy; then
    [ -x /usr/sbin/nginx ] || packages+=(nginx)
    # docs/widgets.md's static hosting serves the .br copies with brotli_static.
    [ -e /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ] || packages+=(libnginx-mod-http-brotli-static)
    command -v openssl >/dev/null || packages+=(openssl)
  fi
  if want musl; then
    # musl-gcc for the C the servers' crates build (SQLite, ring) for their static binaries.
    command -v musl-gcc >/dev/null || packages+=(musl-tools)
  fi
  if [ ${#packages[@]} -gt 0 ]; then
    echo "==> apt-get install ${packages[*]}" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${packages[@]}" >/dev/null
  fi

  if want wasm; then
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
      echo "==> rustup target add wasm32-unknown-unknown" >&2
      rustup target add wasm32-unknown-unknown
    fi
    # The size build of the package (scripts/build-pkg.sh) rebuilds std with nightly: it needs a
    # nightly toolchain and its library source. Without them build-pkg.sh falls back to stable.
    if ! cargo +nightly --version >/dev/null 2>&1; then
      echo "==> rustup toolchain install nightly (minimal, with rust-src)" >&2
      rustup toolchain install nightly --profile minimal --component rust-src \
        || echo "warning: no nightly toolchain: the package is built with stable (larger)" >&2
    elif ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src'; then
      echo "==> rustup component add rust-src --toolchain nightly" >&2
      rustup component add rust-src --toolchain nightly \
        || echo "warning: no rust-src for nightly: the package is built with stable (larger)" >&2
    fi
    # wasm-opt (binaryen) and terser for the package build, and TypeScript for the strict check
    # of its declarations, pinned in tools/package-lock.json.
    if npm_stale tools || [ ! -x tools/node_modules/.bin/wasm-opt ] \
      || [ ! -x tools/node_modules/.bin/terser ] || [ ! -x tools/node_modules/.bin/tsc ]; then
      npm_install tools "build tools: binaryen, rollup, terser, typescript"
    fi
  fi
  if want musl && ! rustup target list --installed | grep -qx x86_64-unknown-linux-musl; then
    echo "==> rustup target add x86_64-unknown-linux-musl" >&2
    rustup target add x86_64-unknown-linux-musl
  fi
  if want e2e; then
    if npm_stale e2e || [ ! -d e2e/node_modules/playwright-core ] || [ ! -d e2e/node_modules/axe-core ] \
      || [ ! -d e2e/node_modules/selenium-webdriver ]; then
      npm_install e2e "e2e"
    fi
  fi
  if want interop; then
    if npm_stale interop || [ ! -d interop/node_modules/openid-client ] \
      || [ ! -d interop/node_modules/oidc-provider ]; then
      npm_install interop "interop: openid-client, oidc-provider"
    fi
  fi
fi

if kind cargo; then
  if want wasm; then
    # The CLI must equal the wasm-bindgen crate in Cargo.lock exactly. It processes every wasm
    # the build and the browser tests make: an optimised build.
    wb_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
    if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
      cargo_tool wasm-bindgen-cli "$wb_version"
    fi
  fi
  if want engines; then
    geckodriver_version=0.37.1
    if [ "$(geckodriver --version 2>/dev/null | awk 'NR == 1 { print $2 }')" != "$geckodriver_version" ]; then
      cargo_tool geckodriver "$geckodriver_version" --debug
    fi
  fi
  if want trunk; then
    # The Leptos example's dev server. 0.21 is the newest line that builds with Rust 1.95.
    trunk_version=0.21.14
    if [ "$(trunk --version 2>/dev/null | awk '{print $2}')" != "$trunk_version" ]; then
      cargo_tool trunk "$trunk_version" --debug
    fi
  fi
fi
