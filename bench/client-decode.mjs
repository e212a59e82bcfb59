// The client's own work, without the network (bench section 2): in Node, getEventPages of 100
// summaries against fetch + JSON.parse, both served the same answer from memory. The answer is
// read once from the sandbox (FUNDRAISING_BASE_URL); then `fetch` returns it without a request,
// so what is left is the package's request building and decoding against the platform's
// JSON.parse. Alternated batches of 100 calls; prints the medians of the batches' means (ms).
//   BENCH_PKG_DIR (folder with fundraising_client.js and _bg.wasm), FUNDRAISING_BASE_URL;
//   BENCH_BEFORE_PKG_DIR, optional: another build (say, of the commit before) measured in the
//   same batches, its calls alternating with this one's.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const url = `${process.env.FUNDRAISING_BASE_URL}/demo-app/v1/event/1001/pages?page=1&pagesize=100`;
const body = await (await fetch(url)).text();
const served = () => new Response(body, { status: 200, headers: { "content-type": "application/json" } });
globalThis.fetch = async () => served();

// Each build is its own module instance (a query string tells Node's module cache apart).
async function load(dir, tag) {
  const href = pathToFileURL(path.join(dir, "fundraising_client.js")).href + `?${tag}`;
  const m = await import(href);
  await m.default({ module_or_path: await readFile(path.join(dir, "fundraising_client_bg.wasm")) });
  const client = new m.FundraisingClient({ appId: "demo-app", baseUrl: process.env.FUNDRAISING_BASE_URL });
  const call = () => client.getEventPages(1001, { page: 1, pageSize: 100 });
  const first = await call();
  if (first.fundraisingPages.length !== 100) throw new Error(`${dir}: decoded ${first.fundraisingPages.length} summaries`);
  return call;
}

const sides = [["client", await load(process.env.BENCH_PKG_DIR, "now")]];
if (process.env.BENCH_BEFORE_PKG_DIR) sides.push(["before", await load(process.env.BENCH_BEFORE_PKG_DIR, "before")]);
sides.push(["plain", async () => JSON.parse(await (await fetch(url)).text())]);

for (let i = 0; i < 300; i++) for (const [, f] of sides) await f();
const out = Object.fromEntries(sides.map(([name]) => [name, []]));
for (let batch = 0; batch < 21; batch++) {
  // Rotate the order, so that no side always runs right after another.
  const order = sides.map((_, i) => sides[(i + batch) % sides.length]);
  for (const [name, f] of order) {
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) await f();
    out[name].push((performance.now() - t0) / 100);
  }
}
console.log("DECODEJSON " + JSON.stringify(out));
process.exit(0);
