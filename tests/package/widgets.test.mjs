// dist/widgets/ (`make pkg`, scripts/build-widgets.mjs) holds exactly what a partner hosts: the
// element scripts and what they load, the two builds of the package they use (the widgets' build,
// and the light build for <fundraising-event>), each its one module and its wasm under
// content-hashed names whose hashes match their bytes with the engine check beside them, a .br
// and a .gz copy of each that decompress to the same bytes, and no page or npm file. Served by the companion (`--static-dir dist/widgets`), it answers with the
// headers docs/widgets.md lists for any host.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { relativeReferences } from "../../scripts/js-modules.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dir = join(root, "dist", "widgets");
const companionBin = join(root, "target", "debug", "fundraising-companion");

function walk(path) {
  return readdirSync(path).flatMap((entry) => {
    const full = join(path, entry);
    return statSync(full).isDirectory() ? walk(full) : [relative(dir, full).split("\\").join("/")];
  });
}

/** Files beside it a script loads (static, dynamic, re-exports) and `new URL(..., import.meta.url)`,
 * read through its syntax tree (scripts/js-modules.mjs), as the build reads them. */
function loads(source, file) {
  return relativeReferences(source, file).map((r) => r.specifier);
}

test("dist/widgets holds the elements and the builds they load, and nothing else", async () => {
  assert.ok(existsSync(join(dir, "widget.js")), "dist/widgets is missing: run make pkg");
  const files = walk(dir);
  const plain = files.filter((f) => !/\.(br|gz)$/.test(f));
  assert.deepEqual(plain.filter((f) => /\.(html|css|md|json|d\.ts)$/.test(f)), [], "pages or npm files");

  // What the element scripts reach: their modules, assets.js, and the builds it names.
  const assets = await import(pathToFileURL(join(dir, "pkg", "assets.js")).href);
  assert.deepEqual(Object.keys(assets).sort(), ["light", "widgets"], "assets.js names the widgets' and the light build");
  const reached = new Set();
  const queue = ["widget.js", "donation-return.js", "event-widget.js",
    ...Object.values(assets).flatMap((build) => [`pkg/${build.js}`, `pkg/${build.wasm}`])];
  while (queue.length > 0) {
    const file = posix.normalize(queue.shift());
    if (reached.has(file)) continue;
    assert.ok(existsSync(join(dir, file)), `${file} is loaded but missing`);
    reached.add(file);
    if (file.endsWith(".js")) {
      for (const spec of loads(readFileSync(join(dir, file), "utf8"), file)) {
        if (spec === "pkg/") continue; // widget.js's base folder of the package
        queue.push(posix.join(posix.dirname(file), spec));
      }
    }
  }
  assert.deepEqual(plain.sort(), [...reached].sort(), "files in dist/widgets against the files the elements load");
  // Each build is its one module and its wasm, with the engine check the module imports when
  // init() fails: no other file of it (no snippets/ folder).
  for (const [name, build] of Object.entries(assets)) {
    const folder = posix.dirname(`pkg/${build.js}`);
    assert.equal(posix.dirname(`pkg/${build.wasm}`), folder, `${name}: the module and the wasm side by side`);
    assert.deepEqual(plain.filter((f) => f.startsWith(`${folder}/`)).sort(),
      [`pkg/${build.js}`, `pkg/${build.wasm}`, `${folder}/engine-check.js`].sort(), `${name}: the build's files`);
  }

  for (const file of plain) {
    const bytes = readFileSync(join(dir, file));
    const hash = file.match(/\.([0-9a-f]{16})\.(js|wasm)$/)?.[1];
    if (hash) assert.equal(createHash("sha256").update(bytes).digest("hex").slice(0, 16), hash, `${file}'s hash`);
    for (const [ext, decode] of [["br", brotliDecompressSync], ["gz", gunzipSync]]) {
      const copy = join(dir, `${file}.${ext}`);
      if (bytes.length > 200) assert.ok(existsSync(copy), `${file}.${ext} is missing`);
      if (existsSync(copy)) assert.ok(decode(readFileSync(copy)).equals(bytes), `${file}.${ext} holds other bytes`);
    }
  }
  // The builds' bytes are the npm package's own.
  for (const build of Object.values(assets)) {
    assert.ok(readFileSync(join(dir, "pkg", build.wasm)).equals(readFileSync(join(root, "pkg", build.wasm))), build.wasm);
  }
});

let companion;
let base;

before(async () => {
  assert.ok(existsSync(companionBin), "target/debug/fundraising-companion is missing: cargo build -p fundraising-companion");
  companion = spawn(companionBin, ["--listen", "127.0.0.1:0", "--demo", "--static-dir", dir], {
    env: { ...process.env, FUNDRAISING_CLIENT_SECRET: "unused" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  base = await new Promise((resolve, reject) => {
    let out = "";
    companion.stdout.on("data", (d) => {
      out += d;
      const match = out.match(/companion listening on (http:\/\/\S+)/);
      if (match) resolve(match[1]);
    });
    companion.on("exit", (code) => reject(new Error(`the companion exited with ${code}`)));
  });
});

after(() => companion?.kill("SIGTERM"));

test("the companion serves dist/widgets to a partner's page with the headers the docs list", async () => {
  const partner = { Origin: "https://partner.example", "Accept-Encoding": "br, gzip" };
  const widget = await fetch(`${base}/widget.js`, { headers: partner });
  assert.equal(widget.status, 200);
  assert.match(widget.headers.get("content-type"), /javascript/);
  assert.equal(widget.headers.get("access-control-allow-origin"), "*");
  assert.equal(widget.headers.get("cache-control"), "no-cache");
  assert.equal(widget.headers.get("content-encoding"), "br");

  const assets = await import(pathToFileURL(join(dir, "pkg", "assets.js")).href);
  const wasm = await fetch(`${base}/pkg/${assets.widgets.wasm}`, { headers: partner });
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  assert.equal(wasm.headers.get("access-control-allow-origin"), "*");
  assert.equal(wasm.headers.get("cross-origin-resource-policy"), "cross-origin");
  assert.match(wasm.headers.get("cache-control"), /max-age=31536000, immutable/);
  assert.match(wasm.headers.get("vary") ?? "", /accept-encoding/i);
  const body = Buffer.from(await wasm.arrayBuffer());
  assert.ok(body.equals(readFileSync(join(dir, "pkg", assets.widgets.wasm))), "the wasm's bytes");
  assert.equal((await fetch(`${base}/index.html`)).status, 404, "no page is hosted");
});
