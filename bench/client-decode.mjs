// The client's own work, without the network (bench section 2): in Node, getEventPages of 100
// summaries against fetch + JSON.parse, both served the same answer from memory. The answer is
// read once from the sandbox (FUNDRAISING_BASE_URL); then `fetch` returns it without a request,
// so what is left is the package's request building and decoding against the platform's
// JSON.parse. Alternated batches of 100 calls; prints the medians of the batches' means (ms).
//   BENCH_PKG_DIR (folder with fundraising_client.js and _bg.wasm), FUNDRAISING_BASE_URL
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.env.BENCH_PKG_DIR;
const url = `${process.env.FUNDRAISING_BASE_URL}/demo-app/v1/event/1001/pages?page=1&pagesize=100`;
const body = await (await fetch(url)).text();
const served = () => new Response(body, { status: 200, headers: { "content-type": "application/json" } });
globalThis.fetch = async () => served();

const m = await import(pathToFileURL(path.join(dir, "fundraising_client.js")).href);
await m.default({ module_or_path: await readFile(path.join(dir, "fundraising_client_bg.wasm")) });
const client = new m.FundraisingClient({ appId: "demo-app", baseUrl: process.env.FUNDRAISING_BASE_URL });
const viaClient = () => client.getEventPages(1001, { page: 1, pageSize: 100 });
const plain = async () => JSON.parse(await (await fetch(url)).text());

const first = await viaClient();
if (first.fundraisingPages.length !== 100) throw new Error(`decoded ${first.fundraisingPages.length} summaries`);
for (let i = 0; i < 300; i++) { await viaClient(); await plain(); }
const out = { client: [], plain: [] };
for (let batch = 0; batch < 21; batch++) {
  const order = batch % 2 ? [["client", viaClient], ["plain", plain]] : [["plain", plain], ["client", viaClient]];
  for (const [name, f] of order) {
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) await f();
    out[name].push((performance.now() - t0) / 100);
  }
}
console.log("DECODEJSON " + JSON.stringify(out));
process.exit(0);
