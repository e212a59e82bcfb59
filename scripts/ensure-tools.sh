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
# Usage: scripts/ensure-tools.sh [wasm] [browser] [engines] [e2e] [redis] [interop] [deploy] [musl] [trunk]
set -euo pipefail
cd "$(dirname "$0")/.."

want() { for w in "${WANTS[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
WANTS=("$@")
[ ${#WANTS[@]} -eq 0 ] && WANTS=(wasm browser engines e2e redis interop deploy musl trunk)

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    echo "==> apt-get update" >&2
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  echo "==> apt-get install $*" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
SUDO=""
[ "$(id -u)" != 0 ] && command -v sudo >/dev/null && SUDO="sudo"

# True when the npm packages locked in folder $1 are not installed as locked: none installed, or
# the lock changed since (npm ci writes node_modules/.package-lock.json).
npm_stale() {
  [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]
}

if want wasm; then
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "==> rustup target add wasm32-unknown-unknown" >&2
    rustup target add wasm32-unknown-unknown
  fi
  # The CLI must equal the wasm-bindgen crate in Cargo.lock exactly.
  wb_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
    echo "==> cargo install wasm-bindgen-cli $wb_version (a few minutes, once)" >&2
    # --locked first; the registry mirror may lack a locked transitive version, then resolve afresh.
    cargo install wasm-bindgen-cli --version "$wb_version" --locked --force \
      || cargo install wasm-bindgen-cli --version "$wb_version" --force
  fi
  # wasm-opt (binaryen) and terser for the package build, and TypeScript for the strict check
  # of its declarations, pinned in tools/package-lock.json.
  if npm_stale tools || [ ! -x tools/node_modules/.bin/wasm-opt ] \
    || [ ! -x tools/node_modules/.bin/terser ] || [ ! -x tools/node_modules/.bin/tsc ]; then
    echo "==> npm ci (build tools: binaryen, terser, typescript)" >&2
    (cd tools && npm ci --no-audit --no-fund --loglevel=error)
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
fi

if want browser; then
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    apt_install chromium chromium-driver
  fi
fi

if want engines; then
  # Firefox ESR and WebKitGTK (MiniBrowser, which WebKitWebDriver starts) from Debian; Xvfb
  # gives MiniBrowser a display (it has no headless mode).
  missing=()
  command -v firefox-esr >/dev/null || missing+=(firefox-esr)
  command -v WebKitWebDriver >/dev/null || missing+=(webkit2gtk-driver)
  command -v Xvfb >/dev/null || missing+=(xvfb)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  # geckodriver is published on crates.io; pinned, and built with its own lock file.
  geckodriver_version=0.37.1
  if [ "$(geckodriver --version 2>/dev/null | awk 'NR == 1 { print $2 }')" != "$geckodriver_version" ]; then
    echo "==> cargo install geckodriver $geckodriver_version (a few minutes, once)" >&2
    cargo install geckodriver --version "$geckodriver_version" --locked --force
  fi
fi

if want redis; then
  if ! command -v redis-server >/dev/null; then
    apt_install redis-server
  fi
fi

if want deploy; then
  missing=()
  [ -x /usr/sbin/nginx ] || missing+=(nginx)
  # docs/widgets.md's static hosting serves the .br copies with brotli_static.
  [ -e /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ] || missing+=(libnginx-mod-http-brotli-static)
  command -v openssl >/dev/null || missing+=(openssl)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
fi

if want musl; then
  # Static Linux binaries of the servers (scripts/release-servers.sh): Rust's musl target, and
  # musl-gcc for the C the servers' crates build (SQLite, ring).
  if ! rustup target list --installed | grep -qx x86_64-unknown-linux-musl; then
    echo "==> rustup target add x86_64-unknown-linux-musl" >&2
    rustup target add x86_64-unknown-linux-musl
  fi
  command -v musl-gcc >/dev/null || apt_install musl-tools
fi

if want trunk; then
  # The Leptos example's dev server. 0.21 is the newest line that builds with Rust 1.95.
  trunk_version=0.21.14
  if [ "$(trunk --version 2>/dev/null | awk '{print $2}')" != "$trunk_version" ]; then
    echo "==> cargo install trunk $trunk_version (several minutes, once)" >&2
    cargo install trunk --version "$trunk_version" --locked --force
  fi
fi

if want e2e; then
  if npm_stale e2e || [ ! -d e2e/node_modules/playwright-core ] || [ ! -d e2e/node_modules/axe-core ] \
    || [ ! -d e2e/node_modules/selenium-webdriver ]; then
    echo "==> npm ci (e2e)" >&2
    (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

if want interop; then
  if npm_stale interop || [ ! -d interop/node_modules/openid-client ] \
    || [ ! -d interop/node_modules/oidc-provider ]; then
    echo "==> npm ci (interop: openid-client, oidc-provider)" >&2
    (cd interop && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
