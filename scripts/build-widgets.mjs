// Writes the folder a partner hosts to offer the widgets, and nothing else: the element scripts
// (widget.js, donation-return.js, event-widget.js and the modules they import), pkg/assets.js
// naming the builds of the package they load, each build's content-hashed module and wasm with
// the engine check the module imports when init() fails, and a brotli and a gzip copy of each of
// them. No demo page, no npm package files. docs/widgets.md says how to serve it.
//
//   node scripts/build-widgets.mjs <pkg dir> <out dir> [builds]
//
// `builds` are the package builds the elements load, comma-separated (default `widgets,light`:
// pkg/widgets/ for the card and the thank-you, pkg/light/ for <fundraising-event>): keys of
// pkg/assets.js, whose hashed copies scripts/hash-assets.mjs wrote. The folder's assets.js names
// those builds alone, under the same keys, so widget.js loads them as it loads them from pkg/.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { relativeReferences } from "./js-modules.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const [pkgDir, out, buildList = "widgets,light"] = process.argv.slice(2);
if (!pkgDir || !out) {
  console.error("usage: node scripts/build-widgets.mjs <pkg dir> <out dir> [builds]");
  process.exit(2);
}
const ELEMENTS = ["widget.js", "donation-return.js", "event-widget.js"];

const builds = await import(pathToFileURL(join(pkgDir, "assets.js")).href);
const names = buildList.split(",").filter(Boolean);
for (const build of names) {
  if (!builds[build]) {
    console.error(`error: build-widgets: pkg/assets.js names no build "${build}" (it has ${Object.keys(builds)})`);
    process.exit(1);
  }
}

/** Relative modules a script loads: static and dynamic imports, re-exports (read through its
 * syntax tree, scripts/js-modules.mjs). */
function imports(source, what) {
  return [...new Set(relativeReferences(source, what).filter((r) => r.kind === "import").map((r) => r.specifier))];
}

/** `start` and every module it loads, transitively, as paths relative to `base`; a path that
 * `outside` matches is listed but not read. */
function closure(base, start, outside = () => false) {
  const seen = new Set();
  const queue = [...start];
  while (queue.length > 0) {
    const file = posix.normalize(queue.shift());
    if (seen.has(file)) continue;
    seen.add(file);
    if (outside(file)) continue;
    for (const spec of imports(readFileSync(join(base, file), "utf8"), file)) queue.push(posix.join(posix.dirname(file), spec));
  }
  return [...seen];
}

rmSync(out, { recursive: true, force: true });
const written = [];
const put = (path, bytes) => {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  writeFileSync(join(out, path), bytes);
  written.push(path);
};

// The elements and their modules, from www/ (pkg/assets.js is written below, not copied).
const inPkg = (file) => file.startsWith("pkg/");
for (const file of closure(join(root, "www"), ELEMENTS, inPkg).filter((f) => !inPkg(f))) {
  put(file, readFileSync(join(root, "www", file)));
}
// The chosen builds: each one's hashed module with every module it loads (the engine check), and
// its hashed wasm.
for (const build of names) {
  const chosen = builds[build];
  for (const file of [...closure(pkgDir, [chosen.js]), chosen.wasm]) {
    put(posix.join("pkg", file), readFileSync(join(pkgDir, file)));
  }
}
put(
  "pkg/assets.js",
  "// The content-hashed copies of the package builds the widgets load (paths relative to this\n" +
    "// file), written by scripts/build-widgets.mjs.\n" +
    names.map((build) => `export const ${build} = { js: ${JSON.stringify(builds[build].js)}, wasm: ${JSON.stringify(builds[build].wasm)} };\n`).join(""),
);

// Brotli (best quality) and gzip -9 copies where they are smaller; the build's own copies when
// scripts/hash-assets.mjs already made them.
for (const path of [...written]) {
  const bytes = readFileSync(join(out, path));
  const source = path.startsWith("pkg/") && path !== "pkg/assets.js" ? join(pkgDir, path.slice(4)) : null;
  for (const ext of ["br", "gz"]) {
    let data;
    if (source && existsSync(`${source}.${ext}`)) {
      copyFileSync(`${source}.${ext}`, join(out, `${path}.${ext}`));
      continue;
    }
    data = ext === "br"
      ? brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } })
      : gzipSync(bytes, { level: 9 });
    if (data.length < bytes.length) writeFileSync(join(out, `${path}.${ext}`), data);
  }
}
console.log(`build-widgets: ${out}: ${written.length} files (builds: ${names.join(", ")}) with .br and .gz copies`);
