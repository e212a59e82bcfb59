#!/usr/bin/env bash
# Builds the npm package `fundraising-client` into pkg/, twice: the full build (pkg/) and the
# light build without sign-in (pkg/light/, the subpath export `fundraising-client/light`), each
#   cargo (release, wasm32) -> wasm-bindgen --target web -> wasm-opt -Oz -> terser,
# then package.json + README, the content-hashed and precompressed copies the companion serves
# (scripts/hash-assets.mjs), and prints the gzip -9 size of each build's wasm plus JS glue (the
# figures the size budgets are about).
#
#   scripts/build-pkg.sh [--out DIR]      (default: pkg)
#   KEEP_NAMES=1                          keep the wasm's function names (bench/breakdown.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=pkg
if [ "${1:-}" = "--out" ]; then out=$2; fi

name=fundraising_client
# The features of each build, once the crate has them: `js` is the JS layer, `signin` (on by
# default) sign-in and sessions. The light build (pkg/light/, the widgets' build) has no sign-in.
if grep -qE '^signin *=' Cargo.toml && grep -qE '^js *=' Cargo.toml; then
  full_features=(--features js)
  light_features=(--no-default-features --features js)
else
  echo "warning: the crate has no 'js' and 'signin' features yet: pkg/light/ is the full build" >&2
  full_features=()
  light_features=()
fi

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
    cargo +nightly build -q --release --target wasm32-unknown-unknown -p fundraising-client "$@" \
    -Z build-std=std,panic_abort -Z build-std-features=optimize_for_size
}
use_nightly=0
if have_nightly; then use_nightly=1; else
  echo "warning: no nightly toolchain with rust-src: building with stable (a larger package)" >&2
fi

# wasm-opt and terser come from tools/ (npm, locked; scripts/ensure-tools.sh wasm installs them):
# wasm-bindgen's output uses externref tables, which binaryen before 116 rewrites wrongly
# (Debian bookworm has 108).
wasm_opt="$root/tools/node_modules/.bin/wasm-opt"
terser="$root/tools/node_modules/.bin/terser"

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
# decoding got 6-8% slower, at 30 it costs 2-3% in Chromium; see the README's size section).
features=(--enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int
  --enable-mutable-globals --enable-reference-types --enable-multivalue)

# build_variant DIR [cargo feature flags...]: one build of the package into DIR (pkg/ or
# pkg/light/): cargo, wasm-bindgen (which writes its .d.ts from that build), wasm-opt, short
# names, the FundraisingError export, terser, and the declarations checked for `any`.
build_variant() {
  local dir=$1; shift
  local target_dir
  if [ "$use_nightly" = 1 ] && nightly_build "$@"; then
    target_dir="$root/target/pkg-nightly${KEEP_NAMES:+-named}"
  else
    [ "$use_nightly" = 1 ] && echo "warning: the nightly size build failed: building with stable (a larger package)" >&2
    target_dir="$root/target"
    cargo build -q --release --target wasm32-unknown-unknown -p fundraising-client "$@"
  fi
  local raw="$target_dir/wasm32-unknown-unknown/release/$name.wasm"

  wasm-bindgen --target web --out-dir "$dir" "$raw"

  # KEEP_NAMES=1 keeps the function names (for bench/breakdown.sh's twiggy; the code is the same:
  # rustc's name section is kept, then each wasm-opt keeps it with -g).
  local names=(--strip-debug) keep=()
  [ "${KEEP_NAMES:-}" = 1 ] && names=(-g) && keep=(-g)
  "$wasm_opt" --one-caller-inline-max-function-size=30 --flatten --rereloop -Oz -Oz "${names[@]}" --strip-producers --strip-target-features --low-memory-unused \
    "${features[@]}" -o "$dir/${name}_bg.opt.wasm" "$dir/${name}_bg.wasm"
  mv "$dir/${name}_bg.opt.wasm" "$dir/${name}_bg.wasm"

  # Short names for the wasm's imports and exports, in the wasm and in the glue.
  node scripts/minify-names.mjs "$wasm_opt" "$dir" "$name" "${features[@]}" "${keep[@]}"

  # FundraisingError is a JS class (it must extend Error); export it from the package entry.
  local error_js
  error_js=$(cd "$dir" && find snippets -path '*/src/js/error.js' | head -n 1)
  [ -n "$error_js" ] || { echo "error: src/js/error.js snippet not found in $dir/snippets" >&2; exit 1; }
  printf '\nexport { FundraisingError } from "./%s";\n' "$error_js" >>"$dir/$name.js"

  # Minify the JS glue and snippets (terser; class names kept, so FundraisingClient.name and
  # FundraisingError's constructor name stay). Comments go, except the TypeScript pointer.
  local js
  for js in "$dir/$name.js" $(find "$dir/snippets" -name '*.js'); do
    "$terser" "$js" --module --ecma 2020 --compress passes=2 --mangle --keep-classnames \
      --comments '/@ts-self-types/' -o "$js.min"
    mv "$js.min" "$js"
  done

  # No `any` in the declarations: the raw wasm exports wasm-bindgen lists (InitOutput and the
  # _bg.wasm.d.ts) carry JS values as `any`; they are `unknown` to callers.
  sed -i -E '/^export interface InitOutput/,/^}/ s/\bany\b/unknown/g' "$dir/$name.d.ts"
  sed -i -E 's/\bany\b/unknown/g' "$dir/${name}_bg.wasm.d.ts"
  if grep -nE '\bany\b' "$dir"/*.d.ts | grep -vE '^\S+:[0-9]+:\s*(\*|/\*\*|//)'; then
    echo "error: 'any' in the TypeScript declarations (above)" >&2
    exit 1
  fi
}

rm -rf "$out"
build_variant "$out" "${full_features[@]}"
# The light build, for the widgets: the four resource calls and waitForDonation, no sign-in.
build_variant "$out/light" "${light_features[@]}"

version=$(awk -F'"' '/^version = / { print $2; exit }' Cargo.toml)
files=$(cd "$out" && find . -type f ! -name '.gitignore' | sed 's|^\./||' | sort | sed 's/.*/    "&"/' | paste -sd, - | sed 's/,/,\n/g')
cat >"$out/package.json" <<JSON
{
  "name": "fundraising-client",
  "version": "$version",
  "description": "Sign in with the fundraising service and call its API from the browser (WebAssembly)",
  "license": "MIT",
  "type": "module",
  "main": "$name.js",
  "module": "$name.js",
  "types": "$name.d.ts",
  "exports": {
    ".": { "types": "./$name.d.ts", "default": "./$name.js" },
    "./${name}_bg.wasm": "./${name}_bg.wasm",
    "./light": { "types": "./light/$name.d.ts", "default": "./light/$name.js" },
    "./light/${name}_bg.wasm": "./light/${name}_bg.wasm"
  },
  "files": [
$files,
    "README.md"
  ],
  "sideEffects": false
}
JSON

cat >"$out/README.md" <<'MD'
# fundraising-client

Sign a user in with the fundraising service (OAuth 2.0 / OpenID Connect, pop-up or redirect,
code exchange through your backend companion) and call its four resource operations, from the
browser, web workers or Node 20+. Built from Rust with wasm-bindgen.

```js
import init, { FundraisingClient, FundraisingError } from "fundraising-client";
await init();
const client = new FundraisingClient({
  appId: "demo-app",
  baseUrl: "http://127.0.0.1:8081",
  authUrl: "http://127.0.0.1:8082",
  redirectUri: "http://127.0.0.1:8080/",
  companionUrl: "http://127.0.0.1:8080",
  scopes: ["fundraise", "offline_access"],
});
await client.handleCallback();          // on the home page
const session = await client.signInWithPopup();   // from a click handler
const campaign = await client.getCampaign("demo-campaign");
for await (const page of client.eventPages(1001, { pageSize: 100 })) console.log(page.pageTitle);
```

In Node: `await init({ module_or_path: await fs.readFile(new URL("fundraising_client_bg.wasm", import.meta.resolve("fundraising-client"))) })`.

Every failure rejects with a `FundraisingError` whose `code` is stable (`not_found`,
`invalid_argument`, `http_error`, `network_error`, `timeout`, `aborted`, `decode_error`,
`popup_blocked`, `popup_closed`, `access_denied`, `state_mismatch`, ...) and whose `status` is
the HTTP status or `null`. Every call takes a last optional `{ signal }`.
MD

# What the companion serves beside the package's own files (after package.json, whose `files`
# lists those only): content-hashed copies, pkg/assets.js naming them, .br and .gz siblings.
node scripts/hash-assets.mjs "$out" "$name" . light

# The gzip -9 size of the wasm plus the JS glue of each build (the figure the budgets are about).
size_line() { # dir label budget_kb
  local wasm_gz js_gz total
  wasm_gz=$(gzip -9 -c "$1/${name}_bg.wasm" | wc -c)
  js_gz=$(cat "$1/$name.js" $(find "$1/snippets" -name '*.js' ! -name '*.*.js') | gzip -9 -c | wc -c)
  total=$((wasm_gz + js_gz))
  printf 'pkg: %s  wasm %d B + JS glue %d B = %d B gzip -9 (%.1f KB; budget %d KB)\n' \
    "$2" "$wasm_gz" "$js_gz" "$total" "$(awk -v t="$total" 'BEGIN { print t / 1024 }')" "$3"
}
size_line "$out" "$out" 76
size_line "$out/light" "$out/light" 55
