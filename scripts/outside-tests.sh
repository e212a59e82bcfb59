#!/usr/bin/env bash
# The users' journeys from the published pieces alone, in a scratch folder outside the
# workspace, exactly as the docs tell them:
#   - the crates as `cargo package` makes them (unpacked: what crates.io would hand out), with
#     the servers installed from them by `cargo install --path`, as static (musl) binaries
#     (cargo's debug build), built once and used by every journey below;
#   - those binaries as npm packages (scripts/release-servers.sh): the launchers
#     `fundraising-sandbox` and `fundraising-companion` and their linux-x64 packages, packed;
#   - the npm package as `npm pack` makes it (from pkg/, which `make pkg` builds);
#   - with Node and no Rust toolchain (a PATH and HOME without cargo, rustc or ~/.cargo):
#     examples/vite (strict TypeScript) on the packed npm packages, signing in through a
#     companion, under `npx fundraising-sandbox exec`, which passes its command's status on; the
#     launchers where no binary fits; the widgets' npm package served as a CDN serves it, on a
#     partner's page; docs/local-development.md's Vite dev loop, signing in through the dev
#     server and surviving a reload;
#   - the Rust quick start of the README with the set-up of docs/rust.md, checked for wasm32;
#   - docs/testing.md's recipes (the sandbox's test kit and its Playwright fixture) from the
#     packed npm packages;
#   - the Leptos and Dioxus examples on the packaged crates (the component crates and the test
#     kit among them), their wasm-bindgen-test suites under `fundraising-sandbox exec`, and
#     their `trunk serve` dev loops signing in;
#   - docs/deploy.md's nginx and companion set-up over TLS (tests/deploy), signing in through
#     it in Chromium, and docs/widgets.md's nginx hosting of dist/widgets.
# The packaged crates stand in for crates.io through `[patch.crates-io]` (they are not
# published yet); nothing else of the repository is used but the tests' own files.
#
#   scripts/outside-tests.sh          (after scripts/build-pkg.sh and scripts/leptos-example.sh)
#   scripts/outside-tests.sh --prepare DIR    only the packaged crates and the servers' build
#                                             and npm packages, into DIR (make test starts
#                                             it early, in the background: it is mostly compiling)
#   scripts/outside-tests.sh --prepared DIR   the journeys, on what --prepare left in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
step() { printf '\n--> %s\n' "$*"; }

mode=all
case "${1:-}" in
  --prepare) mode=prepare; prep=$2 ;;
  --prepared) mode=journeys; prep=$2 ;;
  "") ;;
  *) echo "usage: scripts/outside-tests.sh [--prepare DIR | --prepared DIR]" >&2; exit 2 ;;
esac
if [ "$mode" != prepare ]; then
  [ -f pkg/package.json ] || { echo "error: pkg/ is missing: run make pkg first" >&2; exit 1; }
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/fundraising-outside.XXXXXX")
chmod 755 "$scratch" # nginx's workers read the deployed site from here
cleanup() { [ -n "${KEEP_SCRATCH:-}" ] && echo "kept $scratch" >&2 || rm -rf "$scratch"; }
trap cleanup EXIT
[ "$mode" = all ] && prep="$scratch/prep"
mkdir -p "$prep"
prep=$(cd "$prep" && pwd)

crates=(fundraising-core-derive fundraising-core fundraising-client fundraising-serve fundraising-sandbox fundraising-companion fundraising-testing)
version=$(cargo metadata --no-deps --format-version 1 | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).packages.find(p=>p.name==="fundraising-client").version))')
# crates.io as it would be once they are published: the packaged crates answer for their names
# (`[patch.crates-io]`), each consumer naming those it uses.
patch() { # crate...: the [patch.crates-io] lines for these crates
  echo "[patch.crates-io]"
  for crate in "$@"; do echo "$crate = { path = \"$prep/crates/$crate-$version\" }"; done
}
client_crates=(fundraising-client fundraising-core fundraising-core-derive fundraising-testing)
servers="$prep/release/x86_64-unknown-linux-musl/bin"

if [ "$mode" != journeys ]; then
  step "cargo package (every published crate)"
  rm -rf "$prep/crates" "$prep/release" "$prep/npm" "$prep/done"
  # (cargo package wants a committed working tree, as CI's fresh clone is.)
  # (In the servers' target folder: a cargo command running in target/ does not hold it up.)
  CARGO_TARGET_DIR="$root/target/outside" cargo package -q --no-verify "${crates[@]/#/-p}"
  mkdir -p "$prep/crates"
  for crate in "${crates[@]}"; do
    tar -xzf "target/outside/package/$crate-$version.crate" -C "$prep/crates"
  done
  # The component crates are workspaces of their own: the repository's crates answer for
  # crates.io while they are packaged, as the packaged ones do for their users below.
  repo_patch=()
  for crate in fundraising-client:. fundraising-core:core fundraising-core-derive:core/derive fundraising-testing:testing; do
    repo_patch+=(--config "patch.crates-io.${crate%%:*}.path=\"$root/${crate#*:}\"")
  done
  for dir in components/leptos components/dioxus; do
    (cd "$dir" && CARGO_TARGET_DIR="$root/target/package-components" cargo package -q --no-verify "${repo_patch[@]}")
  done
  for crate in fundraising-leptos fundraising-dioxus; do
    tar -xzf "target/package-components/package/$crate-$version.crate" -C "$prep/crates"
  done

  step "the servers: cargo install from the packaged crates, static for x86_64-unknown-linux-musl, and their npm packages"
  # What a Rust user's `cargo install` builds, for the target npm ships, once (a target folder of
  # its own that later runs reuse), used by every journey below. It is cargo's debug build: the
  # journeys test the packaged crates, the static link, the npm packages and their launchers,
  # which the release build shares; its optimised build would take most of this step's time.
  # Without debug information (a debugger is no use here; with it, the binaries are ten times
  # the size and link slowly). RSA key generation and signing are optimised even so, as in the
  # workspace's own test builds: unoptimised, a sandbox's start waits seconds for its key.
  # (cargo install --path reads the configuration of the folders above the crate.)
  mkdir -p "$prep/crates/.cargo"
  {
    patch fundraising-core fundraising-core-derive fundraising-serve
    printf '[profile.dev]\ndebug = false\n'
    for crate in num-bigint-dig rsa sha2; do printf '[profile.dev.package.%s]\nopt-level = 3\n' "$crate"; done
  } >"$prep/crates/.cargo/config.toml"
  CARGO_TARGET_DIR="$root/target/outside" scripts/release-servers.sh --debug --crates "$prep/crates" \
    --out "$prep/release" x86_64-unknown-linux-musl
  for server in fundraising-sandbox fundraising-companion; do
    # Static: no program interpreter and no shared library needed (runs on glibc and musl alike).
    if readelf -lW "$servers/$server" | grep -q INTERP || readelf -dW "$servers/$server" | grep -q NEEDED; then
      echo "error: $server is not statically linked" >&2
      exit 1
    fi
  done
  mkdir -p "$prep/npm"
  for dir in "$prep"/release/npm/fundraising-* "$prep"/release/npm/@fundraising/*; do
    (cd "$dir" && npm pack --silent --pack-destination "$prep/npm" >/dev/null)
  done
  ls -l "$prep/npm"
  [ "$("$servers/fundraising-companion" --version)" = "fundraising-companion $version" ] \
    || { echo "error: the companion reports $("$servers/fundraising-companion" --version), not $version" >&2; exit 1; }
  touch "$prep/done"
  [ "$mode" = prepare ] && exit 0
fi
[ -f "$prep/done" ] || { echo "error: $prep holds no finished scripts/outside-tests.sh --prepare" >&2; exit 1; }

step "npm pack (the package)"
tarball=$(cd pkg && npm pack --silent --pack-destination "$scratch")
[ "$(node -p "require('$root/pkg/package.json').version")" = "$version" ] \
  || { echo "error: the npm package's version is not the crates' $version" >&2; exit 1; }
mkdir -p "$scratch/npm"
cp "$prep"/npm/*.tgz "$scratch/npm/"

# A web developer's machine: Node and no Rust. PATH and HOME hold no cargo, rustc or ~/.cargo.
norust() {
  env -i PATH=/usr/bin:/bin HOME="$scratch/home" npm_config_cache="${npm_config_cache:-$HOME/.npm}" \
    CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}" TMPDIR="${TMPDIR:-/tmp}" "$@"
}
mkdir -p "$scratch/home"
if norust sh -c 'command -v cargo || command -v rustc || [ -e "$HOME/.cargo" ]'; then
  echo "error: the environment without Rust still finds cargo or rustc" >&2
  exit 1
fi

step "examples/vite on the packed npm packages, under npx fundraising-sandbox exec, with no Rust toolchain"
mkdir -p "$scratch/vite"
(cd examples/vite && tar -cf - --exclude=node_modules --exclude=dist .) | tar -xf - -C "$scratch/vite"
(
  cd "$scratch/vite"
  # What docs/local-development.md installs: the package, and the servers from npm (their
  # platform packages are not published yet: the packed ones stand in for the registry's).
  norust npm pkg set "dependencies.fundraising-client=file:../$tarball"
  for pack in "$scratch"/npm/fundraising-sandbox*.tgz "$scratch"/npm/fundraising-companion*.tgz; do
    name=$(tar -xOzf "$pack" package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).name')
    norust npm pkg set "devDependencies.$name=file:$pack"
  done
  norust npm install --no-audit --no-fund --loglevel=error
  norust npx fundraising-sandbox exec --config sandbox.toml --companion --companion-arg=--static-dir=dist -- npm test
  # exec passes its command's status on, through the launcher.
  status=0
  norust npx fundraising-sandbox exec --companion -- node -e 'process.exit(3)' || status=$?
  [ "$status" = 3 ] || { echo "error: exec through the npm launcher exited $status, not its command's 3" >&2; exit 1; }
)
norust env LAUNCHER_PACKS="$scratch/npm" node --test tests/outside/launcher.test.mjs

step "docs/testing.md's recipes from the packed npm packages (the test kit fundraising-sandbox/testing, Playwright Test), with no Rust toolchain"
mkdir -p "$scratch/recipe-packs"
cp "$scratch/$tarball" "$scratch"/npm/fundraising-sandbox*.tgz "$scratch"/npm/fundraising-companion*.tgz "$scratch/recipe-packs/"
norust env RECIPES_PACKS="$scratch/recipe-packs" node --test tests/docs/recipes.test.mjs

step "the widgets from npm: fundraising-widgets packed, served as a CDN serves it, on a partner's page under the documented CSP"
node scripts/widgets-package.mjs "$scratch/widgets-npm" >/dev/null
widgets_pack=$(cd "$scratch/widgets-npm/fundraising-widgets" && npm pack --silent --pack-destination "$scratch/npm")
(
  cd "$scratch/vite"
  norust env WIDGETS_PACK="$scratch/npm/$widgets_pack" DEV_PLAYWRIGHT="$scratch/vite/node_modules/playwright-core/index.mjs" \
    npx fundraising-sandbox exec -- node --test "$root/tests/outside/widgets-cdn.test.mjs"
)

step "docs/local-development.md from an empty folder, with no Rust toolchain: the Vite dev loop signs in, reloads, hot-reloads"
mkdir -p "$scratch/journey"
cp "$scratch/$tarball" "$scratch/npm/"
norust env PACKS="$scratch/npm" node tests/outside/local-development.mjs "$scratch/journey"
norust env DEV_VITE_DIR="$scratch/journey/my-app" DEV_PLAYWRIGHT="$scratch/vite/node_modules/playwright-core/index.mjs" \
  node --test tests/outside/dev-loop.test.mjs
# The journeys with Rust below take the servers from npm too.
export PATH="$scratch/vite/node_modules/.bin:$PATH"

step "the README's Rust quick start and docs/rust.md's first browser test, with its set-up, in an empty folder"
node tests/outside/quickstart.mjs "$scratch/quickstart"
patch "${client_crates[@]}" fundraising-leptos >>"$scratch/quickstart/Cargo.toml"
(
  cd "$scratch/quickstart"
  CARGO_TARGET_DIR="$root/target/leptos-example" CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver} \
    fundraising-sandbox exec --companion -- cargo test 2>&1 | tee "$scratch/quickstart.log"
)
# Zero tests run is a failure: the set-up must reach the browser.
passed=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$scratch/quickstart.log" | awk '{ n += $1 } END { print n + 0 }')
[ "$passed" -ge 1 ] || { echo "error: docs/rust.md's set-up ran no test in a browser" >&2; exit 1; }

# An example as a user copies it: its path dependencies become versions of the packaged crates.
copy_example() { # NAME
  mkdir -p "$scratch/$1"
  (cd "examples/$1" && tar -cf - --exclude=dist --exclude=target .) | tar -xf - -C "$scratch/$1"
  sed -i -E 's|^(fundraising-[a-z-]+) = \{ version = "([^"]+)", path = "[^"]+" \}|\1 = "\2"|' "$scratch/$1/Cargo.toml"
  if grep -q 'path = ' "$scratch/$1/Cargo.toml" || ! grep -q "^fundraising-client = \"$version\"" "$scratch/$1/Cargo.toml"; then
    echo "error: examples/$1/Cargo.toml no longer names its crates as { version, path }" >&2
    exit 1
  fi
  patch "${client_crates[@]}" "fundraising-$1" >>"$scratch/$1/Cargo.toml"
}

step "examples/leptos and examples/dioxus on the packaged crates: their wasm-bindgen-test suites under fundraising-sandbox exec"
copy_example leptos
copy_example dioxus
for example in leptos:leptos-example dioxus:dioxus; do
  (
    cd "$scratch/${example%%:*}"
    # (A debug build of a whole app loads slowly on a busy machine: a minute for the page.)
    CARGO_TARGET_DIR="$root/target/${example#*:}" CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver} \
      WASM_BINDGEN_TEST_DRIVER_TIMEOUT="${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-60}" fundraising-sandbox exec --companion -- cargo test --tests
  )
done

step "the Leptos example's dev loop on the packaged crates: trunk serve under exec signs in through its proxy, and a reload keeps the session"
CARGO_TARGET_DIR="$root/target/leptos-example" DEV_LEPTOS_DIR="$scratch/leptos" \
  DEV_PLAYWRIGHT="$scratch/vite/node_modules/playwright-core/index.mjs" node --test tests/outside/dev-loop.test.mjs

step "the Dioxus example's dev loop on the packaged crates: trunk serve under exec (dx serve is not run: its CLI takes too long to build)"
CARGO_TARGET_DIR="$root/target/dioxus" DEV_DIOXUS_DIR="$scratch/dioxus" \
  DEV_PLAYWRIGHT="$scratch/vite/node_modules/playwright-core/index.mjs" node --test tests/outside/dev-loop.test.mjs

step "docs/deploy.md: the companion behind nginx over TLS, signing in through it; docs/widgets.md's static hosting"
mkdir -p "$scratch/deploy"
cp tests/deploy/sandbox.toml "$scratch/deploy/"
deploy_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export DEPLOY_ORIGIN="https://localhost:$deploy_port"
(
  cd "$scratch/deploy"
  fundraising-sandbox exec --config sandbox.toml -- bash -c '
    set -euo pipefail
    # The site as the partner builds it for production: its addresses are the public ones.
    (cd "$1/vite" && FUNDRAISING_APP_ID=partner-app FUNDRAISING_COMPANION_URL="$DEPLOY_ORIGIN" \
      npx vite build --logLevel error --outDir "$1/deploy/site")
    DEPLOY_WORK="$1/deploy" DEPLOY_PLAYWRIGHT="$1/vite/node_modules/playwright-core/index.mjs" \
      node --test "$2/tests/deploy/"
  ' deploy "$scratch" "$root"
)
