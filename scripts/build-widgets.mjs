// Builds the widgets from their sources in www/widgets/: each element (widget.js,
// event-widget.js, donation-return.js) bundled by rollup with every module it imports (the
// shared element life, its texts, theme and giving rules) and the modules generated at build
// time, minified by terser, into one file, so that a page pays one round trip for an element.
//
//   node scripts/build-widgets.mjs <pkg dir> <out dir> [builds] [--elements-only]
//
// `builds` are the package builds the elements load, comma-separated (default `widgets,light`:
// pkg/widgets/ for the card and the thank-you, pkg/light/ for <fundraising-event>): keys of
// <pkg dir>/assets.js, whose hashed copies scripts/hash-assets.mjs wrote. Their content-hashed
// names are inlined into each element (`generated:assets`), as addresses beside it under `pkg/`.
//
// Without --elements-only the folder is what a partner hosts (dist/widgets/, and the npm package
// fundraising-widgets made from it), and nothing else: the elements, each chosen build's hashed
// module with the engine check it imports when init() fails and its hashed wasm, under `pkg/`,
// and a brotli and a gzip copy of each. No demo page, no npm package files. docs/widgets.md says
// how to serve it. With --elements-only, the elements alone: the demo's site (www/demo/), whose
// companion serves the package's folder at /pkg itself.
//
// Modules generated at build time are imported as `generated:<name>` (GENERATED below): a source
// never spells what a build or the service defines elsewhere.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, posix } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { relativeReferences } from "./js-modules.mjs";

const require = createRequire(fileURLToPath(new URL("../tools/package.json", import.meta.url)));
const { rollup } = require("rollup");
const { minify } = require("terser");

const root = fileURLToPath(new URL("..", import.meta.url));

/** The widgets' sources. */
export const SOURCES = join(root, "www", "widgets");

/** The elements, each one file of the built folder. */
export const ELEMENTS = ["widget.js", "event-widget.js", "donation-return.js"];

/** The prefix of the modules generated at build time. */
const GENERATED_PREFIX = "generated:";

/**
 * The modules generated at build time, by name: each a function of the build's context
 * (`{builds}`: the chosen builds' hashed `{js, wasm}` paths, relative to the package folder)
 * giving the module's source.
 */
const GENERATED = {
  /**
   * `BUILDS`: the address of each chosen build's module and wasm, beside the element under
   * `pkg/`, as `new URL(..., import.meta.url)` (which tools read through the syntax tree).
   */
  assets: ({ builds }) => {
    const url = (path) => `new URL(${JSON.stringify(`pkg/${path}`)}, import.meta.url)`;
    const entries = Object.entries(builds).map(([name, { js, wasm }]) => `  ${name}: { js: ${url(js)}, wasm: ${url(wasm)} },`);
    return `export const BUILDS = {\n${entries.join("\n")}\n};\n`;
  },
  /**
   * A function per read of the service (`campaign(appId, shortName)`, `pages(appId, eventId,
   * page, pageSize)`, ...) giving its path below the base URL: core's table of operations as
   * JS, printed by a native generator from core (core/examples/js_operations.rs), so that an
   * element's early request is addressed as the package addresses it.
   */
  operations: () => jsOperations(),
};

let operationsModule;

/** The `generated:operations` module, from core's generator (built once per process). */
function jsOperations() {
  operationsModule ??= execFileSync("cargo", ["run", "-q", "-p", "fundraising-core", "--example", "js_operations"], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return operationsModule;
}

/** The chosen builds of `pkgDir` (keys of its assets.js, by scripts/hash-assets.mjs), with their hashed paths. */
export async function chosenBuilds(pkgDir, names) {
  const all = await import(pathToFileURL(join(pkgDir, "assets.js")).href);
  const builds = {};
  for (const name of names) {
    if (!all[name]) throw new Error(`${join(pkgDir, "assets.js")} names no build "${name}" (it has ${Object.keys(all)})`);
    builds[name] = { js: all[name].js, wasm: all[name].wasm };
  }
  return builds;
}

/** Each element of ELEMENTS as one minified module: `{file: code}`. */
export async function bundleElements(builds) {
  const generated = {
    name: "generated",
    resolveId(source) {
      if (!source.startsWith(GENERATED_PREFIX)) return null;
      if (!GENERATED[source.slice(GENERATED_PREFIX.length)]) throw new Error(`no generated module ${source}`);
      return `\0${source}`;
    },
    load(id) {
      return id.startsWith(`\0${GENERATED_PREFIX}`) ? GENERATED[id.slice(1 + GENERATED_PREFIX.length)]({ builds }) : null;
    },
  };
  const out = {};
  for (const file of ELEMENTS) {
    const bundle = await rollup({
      input: join(SOURCES, file),
      plugins: [generated],
      onwarn: (warning) => {
        throw new Error(`rollup: ${file}: ${warning.message}`);
      },
    });
    const { output } = await bundle.generate({ format: "es" });
    await bundle.close();
    if (output.length !== 1) throw new Error(`${file}: expected one module, rollup made ${output.length}`);
    // Comments dropped, names mangled but the exports (pages import loadPackage, formatMoney, el).
    const result = await minify(output[0].code, {
      module: true,
      ecma: 2022,
      compress: { passes: 2 },
      mangle: true,
      format: { comments: false },
    });
    if (!result.code) throw new Error(`terser made nothing of ${file}`);
    out[file] = result.code;
  }
  return out;
}

/**
 * The files beside it an element's built file loads, as paths relative to it: each build's
 * module and wasm it names (`new URL("pkg/...", import.meta.url)`), read through its syntax tree.
 */
export function elementLoads(code, what) {
  return [...new Set(relativeReferences(code, what).map((r) => posix.normalize(r.specifier)))];
}

/** Modules a script loads beside it: static and dynamic imports (read through its syntax tree). */
function imports(source, what) {
  return [...new Set(relativeReferences(source, what).filter((r) => r.kind === "import").map((r) => r.specifier))];
}

/** `start` and every module it loads, transitively, as paths relative to `base`. */
function closure(base, start) {
  const seen = new Set();
  const queue = [...start];
  while (queue.length > 0) {
    const file = posix.normalize(queue.shift());
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of imports(readFileSync(join(base, file), "utf8"), file)) queue.push(posix.join(posix.dirname(file), spec));
  }
  return [...seen];
}

/** Writes the built folder `out` (see the top of this file); returns the paths written. */
export async function buildWidgets(pkgDir, out, names, { elementsOnly = false } = {}) {
  const builds = await chosenBuilds(pkgDir, names);
  const elements = await bundleElements(builds);
  const written = [];
  const put = (path, bytes) => {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    writeFileSync(join(out, path), bytes);
    written.push(path);
  };
  if (elementsOnly) {
    for (const [file, code] of Object.entries(elements)) put(file, code);
    return written;
  }
  rmSync(out, { recursive: true, force: true });
  for (const [file, code] of Object.entries(elements)) put(file, code);
  // The chosen builds: each one's hashed module with every module it loads (the engine check),
  // and its hashed wasm.
  for (const { js, wasm } of Object.values(builds)) {
    for (const file of [...closure(pkgDir, [js]), wasm]) put(posix.join("pkg", file), readFileSync(join(pkgDir, file)));
  }
  // Brotli (best quality) and gzip -9 copies where they are smaller; the build's own copies when
  // scripts/hash-assets.mjs already made them.
  for (const path of [...written]) {
    const bytes = readFileSync(join(out, path));
    const source = path.startsWith("pkg/") ? join(pkgDir, path.slice(4)) : null;
    for (const ext of ["br", "gz"]) {
      if (source && existsSync(`${source}.${ext}`)) {
        copyFileSync(`${source}.${ext}`, join(out, `${path}.${ext}`));
        continue;
      }
      const data = ext === "br"
        ? brotliCompressSync(bytes, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          },
        })
        : gzipSync(bytes, { level: 9 });
      if (data.length < bytes.length) writeFileSync(join(out, `${path}.${ext}`), data);
    }
  }
  return written;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const elementsOnly = args.includes("--elements-only");
  const [pkgDir, out, buildList = "widgets,light"] = args.filter((a) => !a.startsWith("--"));
  if (!pkgDir || !out) {
    console.error("usage: node scripts/build-widgets.mjs <pkg dir> <out dir> [builds] [--elements-only]");
    process.exit(2);
  }
  const names = buildList.split(",").filter(Boolean);
  try {
    const written = await buildWidgets(pkgDir, out, names, { elementsOnly });
    console.log(`build-widgets: ${out}: ${written.length} files (builds: ${names.join(", ")})${elementsOnly ? ", the elements only" : " with .br and .gz copies"}`);
  } catch (error) {
    console.error(`error: build-widgets: ${error.message}`);
    process.exit(1);
  }
}
