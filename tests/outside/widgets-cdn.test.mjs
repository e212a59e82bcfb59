// The widgets as a partner gets them from npm: the packed `fundraising-widgets`, installed in a
// scratch folder and served as it is by a plain static server on its own origin (as a CDN that
// serves npm packages does: the files, their types, `Access-Control-Allow-Origin: *`, nothing
// built), embedded in a partner's page on another origin under the Content-Security-Policy
// docs/widgets.md gives. The card renders with no CSP violation, fetching widget.js and of the
// package the card's build's one module and its wasm; `loadPackage("full")` from that folder refuses with
// a message saying why (the folder holds the widgets' and the light build only).
// Runs under `fundraising-sandbox exec` (FUNDRAISING_BASE_URL, FUNDRAISING_APP_ID).
//
//   WIDGETS_PACK=fundraising-widgets-X.tgz DEV_PLAYWRIGHT=.../index.mjs fundraising-sandbox exec -- node --test tests/outside/widgets-cdn.test.mjs
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const { chromium } = await import(process.env.DEV_PLAYWRIGHT ?? "playwright-core");
const root = fileURLToPath(new URL("../../", import.meta.url));
const baseUrl = process.env.FUNDRAISING_BASE_URL;
const appId = process.env.FUNDRAISING_APP_ID;
const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json" };

let work;
let cdn;
let partner;
let servers = [];

/** A server on a free loopback port; resolves with its origin. */
function serve(handler) {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}`)));
}

/** The partner page's CSP: the line docs/widgets.md gives, for this CDN and resource API. */
function partnerCsp(widgets) {
  const doc = readFileSync(join(root, "docs", "widgets.md"), "utf8");
  const line = doc.match(/^Content-Security-Policy: (.+\{widgets\}.+)$/m)?.[1];
  assert.ok(line, "docs/widgets.md gives no Content-Security-Policy line with {widgets}");
  return line.replaceAll("{widgets}", widgets).replaceAll("{base_url}", baseUrl);
}

before(async () => {
  assert.ok(process.env.WIDGETS_PACK && baseUrl && appId, "run under fundraising-sandbox exec with WIDGETS_PACK set");
  work = mkdtempSync(join(tmpdir(), "fundraising-widgets-"));
  writeFileSync(join(work, "package.json"), '{ "name": "partner-site", "private": true }\n');
  const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", process.env.WIDGETS_PACK], { cwd: work, encoding: "utf8" });
  assert.equal(install.status, 0, install.stderr);
  const folder = join(work, "node_modules", "fundraising-widgets");
  const { version } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  // The CDN: /npm/fundraising-widgets@VERSION/<file>, the package's files as they are.
  const prefix = `/npm/fundraising-widgets@${version}/`;
  cdn = await serve((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const file = path.startsWith(prefix) ? normalize(join(folder, path.slice(prefix.length))) : null;
    let body;
    try {
      if (!file?.startsWith(folder)) throw new Error("outside");
      body = readFileSync(file);
    } catch {
      res.writeHead(404, { "Access-Control-Allow-Origin": "*" }).end();
      return;
    }
    res.writeHead(200, {
      "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
      "Access-Control-Allow-Origin": "*",
      "Cross-Origin-Resource-Policy": "cross-origin",
    });
    res.end(body);
  });
  const widgetJs = `${cdn}${prefix}widget.js`;
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A partner</title>
<script type="module" src="${widgetJs}"></script>
<script type="module" src="/full.js"></script>
</head><body>
<fundraising-campaign short-name="demo-campaign" app-id="${appId}" base-url="${baseUrl}" loading="eager"></fundraising-campaign>
<p id="full"></p>
</body></html>`;
  // The partner's own script: what loadPackage("full") says from the hosted folder.
  const full = `import { loadPackage } from "${widgetJs}";
loadPackage("full").then(() => { document.getElementById("full").textContent = "loaded"; },
  (e) => { document.getElementById("full").textContent = "refused: " + e.message; });`;
  partner = await serve((req, res) => {
    const csp = partnerCsp(cdn);
    if (req.url === "/full.js") return res.writeHead(200, { "Content-Type": "text/javascript", "Content-Security-Policy": csp }).end(full);
    res.writeHead(200, { "Content-Type": "text/html", "Content-Security-Policy": csp }).end(page);
  });
});

after(async () => {
  for (const server of servers) server.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the packed fundraising-widgets, served as a CDN serves it, renders a card on another origin under the documented CSP", async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on("console", (m) => {
      if (m.type() === "error" || /Content.Security.Policy/i.test(m.text())) problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    const fetched = [];
    page.on("request", (r) => fetched.push(r.url()));
    await page.goto(`${partner}/`);
    const card = page.locator("fundraising-campaign");
    await card.getByText("Demo Campaign: Clean Water for Everyone").waitFor({ timeout: 30_000 });
    await card.locator("[part=progress]").waitFor();
    // Everything of the widgets came from the CDN's folder of the package: widget.js, one module
    // with nothing to import, and the card's build as one module and its wasm, hashed.
    const widgets = fetched.filter((u) => !u.startsWith(partner) && !u.startsWith(baseUrl));
    assert.ok(widgets.every((u) => u.startsWith(`${cdn}/npm/fundraising-widgets@`)), widgets.join("\n"));
    assert.deepEqual(widgets.map((u) => new URL(u).pathname.replace(/^\/npm\/fundraising-widgets@[^/]+\//, "").replace(/\.[0-9a-f]{16}\./, ".")).sort(),
      ["pkg/card/fundraising_client.js", "pkg/card/fundraising_client_bg.wasm", "widget.js"], widgets.join("\n"));

    // loadPackage("full") from the hosted folder: a clear refusal, not a 404 deep in a loader.
    await page.locator("#full").filter({ hasText: /\S/ }).waitFor();
    assert.equal(await page.locator("#full").textContent(), "refused: the package's full build is not served beside widget.js");
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
