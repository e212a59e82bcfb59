#!/usr/bin/env bash
# Builds the npm package `fundraising-client` into pkg/:
#   cargo (release, wasm32) -> wasm-bindgen --target web -> wasm-opt -Oz -> package.json + README
#   (scripts/package-meta.mjs),
# and prints the gzip -9 size of the wasm plus the JS glue (the figure the size budget is about).
#
#   scripts/build-pkg.sh [--out DIR]      (default: pkg)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=pkg
if [ "${1:-}" = "--out" ]; then out=$2; fi

name=fundraising_client
# The size build: nightly's std rebuilt for size with panics as plain traps (no panic
# messages or source locations, no formatting machinery for them), and without `Debug`
# formatting (`{:?}` prints nothing: our messages quote with core's `Quoted`; serde's
# invalid-type messages then name the type but not the value), in its own target
# directory so it does not rebuild the stable artifacts of the tests. Stable (a larger
# package) when nightly or its rust-src is missing (scripts/ensure-tools.sh wasm adds rust-src).
nightly_build() {
  cargo +nightly --version >/dev/null 2>&1 \
    && [ -d "$(rustc +nightly --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library" ] \
    && CARGO_TARGET_DIR="$root/target/pkg-nightly" \
      RUSTFLAGS='--cfg getrandom_backend="wasm_js" -Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=none' \
      cargo +nightly build -q --release --target wasm32-unknown-unknown -p fundraising-client --features js \
      -Z build-std=std,panic_abort -Z build-std-features=optimize_for_size
}
if nightly_build; then
  target_dir="$root/target/pkg-nightly"
else
  echo "warning: no nightly toolchain with rust-src, or its size build failed: building with stable (a larger package)" >&2
  target_dir="$root/target"
  cargo build -q --release --target wasm32-unknown-unknown -p fundraising-client --features js
fi
raw="$target_dir/wasm32-unknown-unknown/release/$name.wasm"

rm -rf "$out"
wasm-bindgen --target web --out-dir "$out" "$raw"

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
# decoding got 6-8% slower, at 30 it costs 2-3% in Chromium; see docs/performance.md).
features=(--enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
"$wasm_opt" --one-caller-inline-max-function-size=30 --flatten --rereloop -Oz -Oz --strip-debug --strip-producers --strip-target-features --low-memory-unused \
  "${features[@]}" -o "$out/${name}_bg.opt.wasm" "$out/${name}_bg.wasm"
mv "$out/${name}_bg.opt.wasm" "$out/${name}_bg.wasm"

# Short names for the wasm's imports and exports, in the wasm and in the glue.
node scripts/minify-names.mjs "$wasm_opt" "$out" "$name" "${features[@]}"

# FundraisingError is a JS class (it must extend Error); export it from the package entry.
error_js=$(cd "$out" && find snippets -path '*/src/js/error.js' | head -n 1)
[ -n "$error_js" ] || { echo "error: src/js/error.js snippet not found in $out/snippets" >&2; exit 1; }
printf '\nexport { FundraisingError } from "./%s";\n' "$error_js" >>"$out/$name.js"

# The engine check behind init(): when init() fails, it imports engine-check.js
# (scripts/init-check.mjs) and rejects with a FundraisingError "unsupported" saying what the
# engine lacks (a WebAssembly feature, or a CSP that allows WebAssembly), instead of a
# CompileError from inside the glue (docs/browsers.md). An engine that runs the package never
# fetches the check.
glue_exports='export { initSync, __wbg_init as default };'
if [ "$(grep -cxF "$glue_exports" "$out/$name.js")" != 1 ]; then
  echo "error: the glue's exports are not '$glue_exports' (wasm-bindgen changed?)" >&2
  exit 1
fi
grep -vxF "$glue_exports" "$out/$name.js" >"$out/$name.js.checked"
{
  printf 'import { FundraisingError as UnsupportedError } from "./%s";\n' "$error_js"
  cat <<'JS'
const explain = (e) => import("./engine-check.js").then((check) => check.explain(e, UnsupportedError), () => e);
async function checkedInit(module_or_path) {
  try {
    return await __wbg_init(module_or_path);
  } catch (e) {
    throw await explain(e);
  }
}
export { initSync, checkedInit as default };
JS
} >>"$out/$name.js.checked"
mv "$out/$name.js.checked" "$out/$name.js"
cp scripts/init-check.mjs "$out/engine-check.js"

# Minify the JS glue and snippets (terser; class names kept, so FundraisingClient.name and
# FundraisingError's constructor name stay). Comments go, except the TypeScript pointer.
for js in "$out/$name.js" "$out/engine-check.js" $(find "$out/snippets" -name '*.js'); do
  "$terser" "$js" --module --ecma 2020 --compress passes=2 --mangle --keep-classnames \
    --comments '/@ts-self-types/' -o "$js.min"
  mv "$js.min" "$js"
done

# No `any` in the declarations: the raw wasm exports wasm-bindgen lists (InitOutput and the
# _bg.wasm.d.ts) carry JS values as `any`; they are `unknown` to callers.
sed -i -E '/^export interface InitOutput/,/^}/ s/\bany\b/unknown/g' "$out/$name.d.ts"
sed -i -E 's/\bany\b/unknown/g' "$out/${name}_bg.wasm.d.ts"
if grep -nE '\bany\b' "$out"/*.d.ts | grep -vE '^\S+:[0-9]+:\s*(\*|/\*\*|//)'; then
  echo "error: 'any' in the TypeScript declarations (above)" >&2
  exit 1
fi

# wasm-bindgen declares `[Symbol.dispose]()` on the classes, which needs TypeScript's
# `esnext.disposable` lib; an app whose `lib` is, say, es2022 + dom lacks it and fails to
# compile. The declarations load it themselves.
if grep -q 'Symbol.dispose' "$out/$name.d.ts"; then
  sed -i '1i /// <reference lib="esnext.disposable" />' "$out/$name.d.ts"
fi

# package.json and the npm README (from Cargo.toml's metadata and docs/api.md).
node scripts/package-meta.mjs "$out"

wasm_gz=$(gzip -9 -c "$out/${name}_bg.wasm" | wc -c)
js_gz=$(cat "$out/$name.js" $(find "$out/snippets" -name '*.js') | gzip -9 -c | wc -c)
total=$((wasm_gz + js_gz))
check_gz=$(gzip -9 -c "$out/engine-check.js" | wc -c)
printf 'pkg: %s  wasm %d B + JS glue %d B = %d B gzip -9 (%.1f KB; budget 76 KB); engine-check.js %d B, fetched only when init() fails\n' \
  "$out" "$wasm_gz" "$js_gz" "$total" "$(awk -v t="$total" 'BEGIN { print t / 1024 }')" "$check_gz"
