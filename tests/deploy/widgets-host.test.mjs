// docs/widgets.md's nginx location for hosting dist/widgets/ on a static host, as written
// there (only the folder's path swapped for the build's), in Debian's nginx with its brotli
// module: a partner's page gets the scripts and the hashed wasm with the headers the page's
// table lists, brotli-compressed from the .br copies.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { brotliDecompressSync } from "node:zlib";
import { docBlock, freePort, root, startNginx, swap, until } from "./helpers.mjs";

const widgets = join(root, "dist", "widgets");
let nginx;
let base;

before(async () => {
  assert.ok(existsSync(join(widgets, "widget.js")), "dist/widgets is missing: run make pkg");
  const port = await freePort();
  const location = swap(docBlock("widgets.md", "nginx", "## Hosting the widgets"), [["/srv/widgets/", `${widgets}/`]]);
  const work = process.env.DEPLOY_WORK ?? join(root, "target", "widgets-host");
  nginx = startNginx(join(work, "nginx-widgets"), `server {\n  listen 127.0.0.1:${port};\n${location}}\n`);
  base = `http://127.0.0.1:${port}/widgets`;
  await until("nginx answering", async () => (await fetch(`${base}/widget.js`)).ok);
});

after(() => {
  nginx?.kill("SIGTERM");
  if (process.exitCode) console.error(`---- nginx ----\n${nginx?.lines.join("")}`);
});

/** The raw answer (no decoding) to a partner page's request for `path`. */
async function get(path) {
  const { get: httpGet } = await import("node:http");
  return new Promise((resolve, reject) => {
    httpGet(`${base}/${path}`, { headers: { Origin: "https://partner.example", "Accept-Encoding": "br, gzip" } }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c)).on("end", () => resolve({ res, body: Buffer.concat(chunks) }));
    }).on("error", reject);
  });
}

test("the element scripts: CORS, revalidated, brotli from the .br copy", async () => {
  const { res, body } = await get("widget.js");
  assert.equal(res.statusCode, 200);
  assert.match(res.headers["content-type"], /javascript/);
  assert.equal(res.headers["access-control-allow-origin"], "*");
  assert.equal(res.headers["cross-origin-resource-policy"], "cross-origin");
  assert.equal(res.headers["cache-control"], "no-cache");
  assert.equal(res.headers["content-encoding"], "br");
  assert.ok(brotliDecompressSync(body).equals(readFileSync(join(widgets, "widget.js"))));
});

test("the hashed wasm: application/wasm, immutable, brotli", async () => {
  // The card's build as the package names it (scripts/hash-assets.mjs), which the card loads.
  const { card: build } = await import(pathToFileURL(join(root, "pkg", "assets.js")).href);
  const { res, body } = await get(`pkg/${build.wasm}`);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers["content-type"], "application/wasm");
  assert.equal(res.headers["access-control-allow-origin"], "*");
  assert.equal(res.headers["cross-origin-resource-policy"], "cross-origin");
  assert.match(res.headers["cache-control"], /max-age=31536000, immutable/);
  assert.equal(res.headers["content-encoding"], "br");
  assert.ok(brotliDecompressSync(body).equals(readFileSync(join(widgets, "pkg", build.wasm))));
});
