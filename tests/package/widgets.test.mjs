// dist/widgets/ (`make pkg`, scripts/build-widgets.mjs) holds exactly what a partner hosts: each
// element as one minified module with no import of its own, the two builds of the package they
// load (the widgets' build, and the light build for <fundraising-event>), each its one module and
// its wasm under content-hashed names whose hashes match their bytes with the engine check beside
// them, a .br and a .gz copy of each that decompress to the same bytes, and no page or npm file.
// Served by the companion (`--static-dir dist/widgets`), it answers with the headers
// docs/widgets.md lists for any host. The widgets' sources (www/widgets/) spell no address of the
// service's API.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { ELEMENTS, elementLoads, SOURCES } from "../../scripts/build-widgets.mjs";
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

/** The content-hashed copies of each build, as pkg/assets.js names them. */
const pkgAssets = () => import(pathToFileURL(join(root, "pkg", "assets.js")).href);

test("dist/widgets holds the elements and the builds they load, and nothing else", async () => {
  assert.ok(existsSync(join(dir, "widget.js")), "dist/widgets is missing: run make pkg");
  const files = walk(dir);
  const plain = files.filter((f) => !/\.(br|gz)$/.test(f));
  assert.deepEqual(plain.filter((f) => /\.(html|css|md|json|d\.ts)$/.test(f)), [], "pages or npm files");

  // Each element is one module: it imports nothing, and names the builds' hashed module and wasm.
  const assets = await pkgAssets();
  const builds = { widgets: assets.widgets, light: assets.light };
  const named = new Set(Object.values(builds).flatMap((b) => [`pkg/${b.js}`, `pkg/${b.wasm}`]));
  const reached = new Set(ELEMENTS);
  for (const element of ELEMENTS) {
    const code = readFileSync(join(dir, element), "utf8");
    assert.deepEqual(relativeReferences(code, element).filter((r) => r.kind === "import"), [], `${element} imports a module`);
    assert.deepEqual(elementLoads(code, element).sort(), [...named].sort(), `${element} names the two builds`);
  }
  // And what those load: each build's engine check, imported when init() fails.
  const queue = [...named];
  while (queue.length > 0) {
    const file = posix.normalize(queue.shift());
    if (reached.has(file)) continue;
    assert.ok(existsSync(join(dir, file)), `${file} is loaded but missing`);
    reached.add(file);
    if (file.endsWith(".js")) {
      for (const { specifier } of relativeReferences(readFileSync(join(dir, file), "utf8"), file)) {
        queue.push(posix.join(posix.dirname(file), specifier));
      }
    }
  }
  assert.deepEqual(plain.sort(), [...reached].sort(), "files in dist/widgets against the files the elements load");
  // Each build is its one module and its wasm, with the engine check the module imports when
  // init() fails: no other file of it (no snippets/ folder).
  for (const [name, build] of Object.entries(builds)) {
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
  for (const build of Object.values(builds)) {
    assert.ok(readFileSync(join(dir, "pkg", build.wasm)).equals(readFileSync(join(root, "pkg", build.wasm))), build.wasm);
  }
});

/** The widgets' sources as git has them (not the demo's built copies). */
function sources() {
  return readdirSync(SOURCES).filter((f) => f.endsWith(".js")).map((f) => [f, readFileSync(join(SOURCES, f), "utf8")]);
}

test("the widgets' sources spell no address of the service's API: the package makes every request", () => {
  // Path segments and query names of the resource operations (core/src/operation.rs).
  const spelled = /byshortname|donation\/ref|v1\/|\/event\/|\/pages\b|[?&]page=|pagesize|campaign\//;
  const found = sources().flatMap(([file, text]) => text.split("\n").map((line, i) => [file, i + 1, line]))
    .filter(([, , line]) => spelled.test(line));
  assert.deepEqual(found, []);
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

  const assets = await pkgAssets();
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
