// What the companion serves from pkg/, beside the npm package's own files: content-hashed
// copies of each build's one module and its wasm (a name that changes with the bytes,
// so the companion can let browsers keep them for a year: `immutable`), `assets.js` naming
// them (scripts/build-widgets.mjs inlines those names into the elements), and a brotli (.br)
// and a gzip (.gz) sibling of every script and wasm file, which the companion sends as they are
// (tower-http's precompressed files).
//
// The npm package keeps its stable names (bundlers import those); the copies are extra files.
// Run after package.json is written, whose `files` lists the package's own files only. The
// modules' references are found and rewritten through their syntax trees, never by pattern.
//
//   node scripts/hash-assets.mjs <pkg dir> <name> <variant dir>...    (variant "." is pkg/ itself)
//
// Each copy is named `stem.<16 hex digits of its SHA-256>.ext`. A module is hashed after its
// references (modules, the wasm) are rewritten to their hashed names, so any change below it
// changes its name too.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { extname, join, posix } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { relativeReferences, rewriteReferences } from "./js-modules.mjs";

const [out, name, ...variants] = process.argv.slice(2);
if (!out || !name || variants.length === 0) {
  console.error("usage: node scripts/hash-assets.mjs <pkg dir> <name> <variant dir>...");
  process.exit(2);
}

const fail = (message) => {
  console.error(`error: hash-assets: ${message}`);
  process.exit(1);
};

/** `stem.ext` -> `stem.<hash>.ext` for `bytes`. */
function hashedName(file, bytes) {
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  const dot = file.lastIndexOf(".");
  return `${file.slice(0, dot)}.${hash}${file.slice(dot)}`;
}

/** Writes `bytes` under a hashed name beside `path` (relative to `out`); returns that name. */
function writeHashed(path, bytes) {
  const hashed = hashedName(path, bytes);
  writeFileSync(join(out, hashed), bytes);
  return hashed;
}

const CHECK = "./engine-check.js";

/**
 * The hashed copy of the module `path` (relative to `out`) and of every file it loads, found and
 * rewritten through the module's syntax tree (scripts/js-modules.mjs): each reference points at
 * its file's hashed copy, so a change below a module changes the module's name too. The engine
 * check keeps its name (init() imports it only when it fails). Returns the module's hashed name.
 */
function hashModule(path, seen = new Map()) {
  if (seen.has(path)) return seen.get(path);
  const source = readFileSync(join(out, path), "utf8");
  const renamed = new Map();
  for (const { specifier } of relativeReferences(source, path)) {
    if (specifier === CHECK || renamed.has(specifier)) continue;
    const target = posix.join(posix.dirname(path), specifier);
    const hashed = target.endsWith(".js") ? hashModule(target, seen) : writeHashed(target, readFileSync(join(out, target)));
    renamed.set(specifier, `./${posix.relative(posix.dirname(path), hashed)}`);
  }
  const hashed = writeHashed(path, Buffer.from(rewriteReferences(source, renamed, path), "utf8"));
  seen.set(path, hashed);
  return hashed;
}

const manifest = {};
for (const variant of variants) {
  const dir = posix.normalize(variant);
  const at = (file) => (dir === "." ? file : posix.join(dir, file));
  const entry = at(`${name}.js`);
  const wasm = at(`${name}_bg.wasm`);
  const js = hashModule(entry);
  // The wasm's hashed copy, as the entry's hashed copy names it (init() fetches it by default).
  const wasmHashed = writeHashed(wasm, readFileSync(join(out, wasm)));
  if (!relativeReferences(readFileSync(join(out, js), "utf8"), js).some((r) => r.specifier === `./${posix.basename(wasmHashed)}`)) {
    fail(`${js} does not name the wasm's hashed copy ${wasmHashed}`);
  }
  manifest[dir === "." ? "full" : posix.basename(dir)] = { js, wasm: wasmHashed };
}

const lines = Object.entries(manifest).map(
  ([key, { js, wasm }]) => `export const ${key} = { js: ${JSON.stringify(js)}, wasm: ${JSON.stringify(wasm)} };`,
);
writeFileSync(
  join(out, "assets.js"),
  "// The content-hashed copies of each build (paths relative to this file), written by\n" +
    "// scripts/hash-assets.mjs; scripts/build-widgets.mjs inlines them into the elements.\n" +
    `${lines.join("\n")}\n`,
);

// Precompressed siblings of what browsers load (scripts and wasm; brotli at its best quality,
// gzip -9), where they are smaller than the file. Not of README.md or package.json: npm packs
// every README* whatever `files` says, and the companion compresses anything else on the fly.
const COMPRESSIBLE = new Set([".js", ".mjs", ".wasm", ".css", ".html", ".svg", ".map"]);
const walk = (path) =>
  readdirSync(path).flatMap((entry) => {
    const full = join(path, entry);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
let written = 0;
for (const file of walk(out)) {
  if (!COMPRESSIBLE.has(extname(file))) continue;
  const bytes = readFileSync(file);
  const br = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
      [constants.BROTLI_PARAM_MODE]: file.endsWith(".wasm") ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  const gz = gzipSync(bytes, { level: 9 });
  for (const [ext, data] of [["br", br], ["gz", gz]]) {
    if (data.length < bytes.length) {
      writeFileSync(`${file}.${ext}`, data);
      written += 1;
    }
  }
}

for (const [key, { js, wasm }] of Object.entries(manifest)) {
  const size = (path) => statSync(join(out, path)).size;
  const br = (path) => {
    try {
      return statSync(join(out, `${path}.br`)).size;
    } catch {
      return size(path);
    }
  };
  console.log(
    `hash-assets: ${key}: ${join(out, js)} (${size(js)} B, br ${br(js)} B), ` +
      `${join(out, wasm)} (${size(wasm)} B, br ${br(wasm)} B)`,
  );
}
console.log(`hash-assets: ${out}/assets.js; ${written} precompressed siblings (.br, .gz)`);
