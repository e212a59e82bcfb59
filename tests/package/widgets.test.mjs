// dist/widgets/ (`make pkg`, scripts/build-widgets.mjs) holds exactly what a partner hosts: each
// element as one minified module with no import of its own, the two builds of the package they
// load (the widgets' build, and the light build for <fundraising-event>), each its one module and
// its wasm under content-hashed names whose hashes match their bytes with the engine check beside
// them, a .br and a .gz copy of each that decompress to the same bytes, and no page or npm file.
// Served by the companion (`--static-dir dist/widgets`), it answers with the headers
// docs/widgets.md lists for any host. The widgets' sources (www/widgets/) spell no address of the
// service's API, and the event element's paging (event-ranking.js) runs here on a client of the
// test's own.
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
import { fetchPages, IN_FLIGHT } from "../../www/widgets/event-ranking.js";

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
  const builds = { card: assets.card, widgets: assets.widgets, light: assets.light };
  const named = new Set(Object.values(builds).flatMap((b) => [`pkg/${b.js}`, `pkg/${b.wasm}`]));
  const reached = new Set(ELEMENTS);
  for (const element of ELEMENTS) {
    const code = readFileSync(join(dir, element), "utf8");
    assert.deepEqual(relativeReferences(code, element).filter((r) => r.kind === "import"), [], `${element} imports a module`);
    assert.deepEqual(elementLoads(code, element).sort(), [...named].sort(), `${element} names the builds`);
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

test("the widgets' sources spell no address of the service's API: core's table gives every one (generated:operations)", () => {
  // Path segments and query names of the resource operations (core/src/operation.rs).
  const spelled = /byshortname|donation\/ref|v1\/|\/event\/|\/pages\b|[?&]page=|pagesize|campaign\//;
  const found = sources().flatMap(([file, text]) => text.split("\n").map((line, i) => [file, i + 1, line]))
    .filter(([, , line]) => spelled.test(line));
  assert.deepEqual(found, []);
});

/** A client of the test's own for fetchPages: `getEventPages` answers from `event` when `release(page)` is called. */
function pagedClient(event, { fail = null } = {}) {
  const calls = [];
  const aborted = [];
  let inFlight = 0;
  let most = 0;
  const waiting = new Map();
  const client = {
    getEventPages(eventId, { page, pageSize, signal }) {
      calls.push({ page, pageSize });
      inFlight += 1;
      most = Math.max(most, inFlight);
      return new Promise((resolve, reject) => {
        let settled = false;
        const done = () => { settled = true; inFlight -= 1; };
        signal?.addEventListener("abort", () => {
          if (settled) return;
          done();
          aborted.push(page);
          waiting.delete(page);
          reject(Object.assign(new Error("aborted"), { code: "aborted" }));
        }, { once: true });
        waiting.set(page, () => {
          done();
          if (fail === page) return reject(Object.assign(new Error("boom"), { code: "network_error" }));
          const from = (page - 1) * pageSize;
          resolve({
            eventId, totalRaised: event.totalRaised, totalFundraisingPages: event.pages.length,
            totalPages: Math.ceil(event.pages.length / pageSize), fundraisingPages: event.pages.slice(from, from + pageSize),
          });
        });
      });
    },
  };
  const asked = () => [...waiting.keys()].sort((a, b) => a - b);
  /** Answers `page` once it has been asked for. */
  const release = async (page) => {
    await until(() => waiting.has(page), `page ${page} to be asked for`);
    waiting.get(page)();
    waiting.delete(page);
  };
  return { client, calls, aborted, release, asked, most: () => most };
}

/** Waits until `condition()` holds, turn by turn of the event loop, at most 1,000 turns. */
async function until(condition, what) {
  for (let i = 0; i < 1000 && !condition(); i += 1) await new Promise((r) => setImmediate(r));
  assert.ok(condition(), `waited for ${what}`);
}

const summaries = (n) => Array.from({ length: n }, (_, i) => ({ pageId: i + 1, raisedAmount: (i * 37) % 500, targetAmount: 500 }));

test("the event's pages: the first alone, then the others side by side, at most IN_FLIGHT at once", async () => {
  assert.equal(IN_FLIGHT, 4);
  const event = { totalRaised: 1234, pages: summaries(950) };
  const paged = pagedClient(event);
  const first = [];
  const done = fetchPages(paged.client, 1001, 1000, new AbortController().signal, (partial) => first.push(partial));
  assert.deepEqual(paged.asked(), [1], "the first page alone");
  await paged.release(1);
  // Once the first answer is in: it is handed over for showing, and four more are asked for together.
  await until(() => paged.asked().length === IN_FLIGHT, "four requests in flight");
  assert.equal(first.length, 1);
  assert.equal(first[0].complete, false);
  assert.equal(first[0].pages.length, 100);
  assert.deepEqual(paged.asked(), [2, 3, 4, 5]);
  // Answers in any order; a free slot asks for the next page at once, never more than four.
  for (const page of [4, 2, 3, 5, 8, 6, 7, 9, 10]) await paged.release(page);
  const result = await done;
  assert.equal(paged.most(), IN_FLIGHT);
  assert.deepEqual(paged.calls.map((c) => c.page), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.ok(paged.calls.every((c) => c.pageSize === 100));
  // Kept in the service's order, every page once, the totals the first answer's.
  assert.deepEqual(result.pages.map((p) => p.pageId), event.pages.map((p) => p.pageId));
  assert.equal(result.totalRaised, 1234);
  assert.equal(result.limited, false);
  assert.equal(result.complete, true);
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

test("the event's pages: limit keeps the first N, one request when it is 100 or less; a failure aborts the others", async () => {
  const event = { totalRaised: 99, pages: summaries(250) };
  // limit 120 of 250: two requests of 100, the first 120 kept, and the ranking says it is limited.
  let paged = pagedClient(event);
  let done = fetchPages(paged.client, 1001, 120, new AbortController().signal);
  await paged.release(1);
  await paged.release(2);
  let result = await done;
  assert.deepEqual(paged.calls, [{ page: 1, pageSize: 100 }, { page: 2, pageSize: 100 }]);
  assert.deepEqual(result.pages.map((p) => p.pageId), event.pages.slice(0, 120).map((p) => p.pageId));
  assert.equal(result.limited, true);

  // limit 10: one request of 10, nothing handed over early.
  paged = pagedClient(event);
  const early = [];
  done = fetchPages(paged.client, 1001, 10, new AbortController().signal, (p) => early.push(p));
  await paged.release(1);
  result = await done;
  assert.deepEqual(paged.calls, [{ page: 1, pageSize: 10 }]);
  assert.equal(result.pages.length, 10);
  assert.deepEqual(early, []);

  // An event that fits one page: one request.
  paged = pagedClient({ totalRaised: 5, pages: summaries(40) });
  done = fetchPages(paged.client, 1001, 500, new AbortController().signal);
  await paged.release(1);
  assert.equal((await done).pages.length, 40);
  assert.equal(paged.calls.length, 1);

  // Page 3 fails: the call rejects with its error and the requests still in flight are aborted.
  paged = pagedClient(event, { fail: 3 });
  done = fetchPages(paged.client, 1001, 500, new AbortController().signal);
  await paged.release(1);
  await until(() => paged.asked().length === 2, "pages 2 and 3");
  await paged.release(3);
  await assert.rejects(done, { code: "network_error" });
  assert.deepEqual(paged.calls.map((c) => c.page), [1, 2, 3]);
  assert.deepEqual(paged.aborted, [2]);

  // The element's abort aborts every request.
  paged = pagedClient(event);
  const controller = new AbortController();
  done = fetchPages(paged.client, 1001, 500, controller.signal);
  await paged.release(1);
  await until(() => paged.asked().length === 2, "pages 2 and 3");
  controller.abort();
  await assert.rejects(done, { code: "aborted" });
  assert.deepEqual(paged.aborted.sort(), [2, 3]);
});
