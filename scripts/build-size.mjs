// The size of each build of the package as a browser fetches it: the build's one JS module and
// its wasm, each file compressed on its own (gzip -9, and brotli at its best, as the companion
// sends them), summed, against the build's budget. Not engine-check.js (fetched only when
// init() fails) nor assets.js (the companion's list of hashed names).
//
//   node scripts/build-size.mjs [PKG_DIR] [--json]     (default: pkg)
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";

/** The builds, their folders under the package, and their budgets in KB of 1024 bytes. */
export const BUILDS = [
  { name: "full", dir: ".", budgetKb: 72 },
  { name: "light", dir: "light", budgetKb: 50 },
  { name: "widgets", dir: "widgets", budgetKb: 40 },
  { name: "card", dir: "card", budgetKb: 40 },
];

const ENTRY = "fundraising_client";

/** The files a browser fetches for one build: the module and the wasm. */
export function buildFiles(folder) {
  return [join(folder, `${ENTRY}.js`), join(folder, `${ENTRY}_bg.wasm`)];
}

/** `gzip -9` (GNU gzip, the measure the budgets name) of a file's bytes. */
export const gzip = (bytes) => {
  const out = spawnSync("gzip", ["-9", "-c"], { input: bytes, maxBuffer: 1 << 26 });
  if (out.status !== 0) throw new Error(`gzip failed: ${out.stderr}`);
  return out.stdout.length;
};
export const brotli = (bytes, wasm) =>
  brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
      [constants.BROTLI_PARAM_MODE]: wasm ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).length;

/** One build's figures: per file and summed. */
export function measure(pkg, build) {
  const folder = join(pkg, build.dir);
  const files = buildFiles(folder).map((path) => {
    const bytes = readFileSync(path);
    const wasm = path.endsWith(".wasm");
    return { path: relative(pkg, path), raw: bytes.length, gzip: gzip(bytes), brotli: brotli(bytes, wasm), wasm };
  });
  const sum = (key, only = () => true) => files.filter(only).reduce((n, f) => n + f[key], 0);
  return {
    ...build,
    files,
    raw: sum("raw"),
    gzip: sum("gzip"),
    brotli: sum("brotli"),
    wasmGzip: sum("gzip", (f) => f.wasm),
    jsGzip: sum("gzip", (f) => !f.wasm),
    budget: build.budgetKb * 1024,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const pkg = args.find((a) => !a.startsWith("--")) ?? "pkg";
  const results = BUILDS.filter((b) => existsSync(join(pkg, b.dir, `${ENTRY}_bg.wasm`))).map((b) => measure(pkg, b));
  if (args.includes("--json")) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    for (const r of results) {
      const kb = (r.gzip / 1024).toFixed(1);
      console.log(
        `pkg: ${join(pkg, r.dir)}  ${r.gzip} B gzip -9 (${kb} KB; budget ${r.budgetKb} KB${r.gzip > r.budget ? ", OVER" : ""}): ` +
          `wasm ${r.wasmGzip} B + JS ${r.jsGzip} B in ${r.files.length - 1} file(s); brotli ${r.brotli} B`,
      );
    }
  }
}
