// What a partner page's visitor pays for the widget, counted with Chromium's CDP Network
// events: a card far below the fold fetches nothing of the package until it is scrolled to
// (loading="eager" opts out); the wasm then crosses the network as the build's brotli file,
// cached as immutable; a page with a card pays the card's build in five requests at most (the
// page, the element's one file, the build's module and wasm, the campaign), a page with the event element
// the light build (and only it, with a card beside); a second visit fetches none of it from the
// network.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { browserTests, consoleErrors, servers } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";
import { builtAssets, PKG, pkgSize, recordNetwork } from "./widget-assets.mjs";
import { buildFiles } from "../scripts/build-size.mjs";
import { PAGES } from "../scripts/page-size.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

const IMMUTABLE = "public, max-age=31536000, immutable";
const isPackage = (url) => new URL(url).pathname.startsWith("/pkg/");

/** The files of `build` (a key of pkg/assets.js) a page fetches, as the package names them
 * (`light/fundraising_client.js`): its one module and its wasm, under their hashed names. */
function ownNames(paths, build) {
  return paths.map((path) => {
    const [folder, file] = [path.slice("/pkg/".length, path.lastIndexOf("/")), path.slice(path.lastIndexOf("/") + 1)];
    const parts = file.split(".");
    assert.equal(folder, build, `${path} is not of the ${build} build`);
    assert.match(parts.at(-2), /^[0-9a-f]{16}$/, `${path} is not a hashed copy`);
    return `${folder}/${[...parts.slice(0, -2), parts.at(-1)].join(".")}`;
  }).sort();
}

/** The files scripts/page-size.mjs (and so make bench) counts for a page that loads `build`. */
const counted = (build) => buildFiles(`${PKG}${build}`).map((path) => path.slice(PKG.length)).sort();

it("a card far below the fold loads nothing until scrolled to, then the wasm crosses at its brotli size", async ({ page }) => {
  const { card: cardBuild } = await builtAssets();
  const problems = consoleErrors(page);
  const net = await recordNetwork(page);
  await page.goto(`${partner.origin}/far`);
  await page.waitForLoadState("networkidle");
  const card = page.locator("fundraising-campaign");
  // Out of sight: the element is defined and shows its loading state, and nothing of the
  // package nor the campaign was asked for.
  assert.equal(await card.evaluate((node) => node.getBoundingClientRect().top > 3 * innerHeight), true);
  assert.equal(await card.locator("[part=loading]").count(), 1);
  assert.deepEqual(net.requests.filter((r) => isPackage(r.url)).map((r) => r.url), []);
  assert.deepEqual(net.requests.filter((r) => r.url.startsWith(env.baseUrl)).map((r) => r.url), []);

  await card.scrollIntoViewIfNeeded();
  await card.locator("[role=progressbar]").waitFor();
  const wasm = net.requests.filter((r) => r.url.endsWith(".wasm"));
  assert.equal(wasm.length, 1, JSON.stringify(wasm));
  assert.equal(new URL(wasm[0].url).pathname, `/pkg/${cardBuild.wasm}`);
  assert.equal(wasm[0].encoding, "br");
  assert.equal(wasm[0].cacheControl, IMMUTABLE);
  const brotli = pkgSize(`${cardBuild.wasm}.br`);
  const raw = pkgSize(cardBuild.wasm);
  assert.ok(wasm[0].bodyBytes > 0 && wasm[0].bodyBytes <= brotli,
    `the wasm crossed as ${wasm[0].bodyBytes} B; its .br is ${brotli} B, the file ${raw} B`);
  // Every script of the package came compressed and immutable too; widget.js stays short-lived.
  for (const r of net.requests.filter((r) => isPackage(r.url))) {
    assert.ok(["br", "gzip"].includes(r.encoding) || r.bodyBytes < 300, `${r.url}: ${r.encoding}`);
    assert.equal(r.cacheControl, IMMUTABLE, r.url);
  }
  const widget = net.requests.find((r) => r.url === `${new URL(env.companionUrl).origin}/widget.js`);
  assert.equal(widget.cacheControl, "no-cache");
  assert.equal(widget.encoding, "br");
  problems.check();
  await net.detach();
});

it("a page with one campaign card fetches the card's build only, and the bytes it pays are counted", async ({ page }) => {
  const { card: cardBuild } = await builtAssets();
  const problems = consoleErrors(page);
  const net = await recordNetwork(page);
  await page.goto(`${partner.origin}/`);
  await page.locator("fundraising-campaign [role=progressbar]").waitFor();
  await page.waitForLoadState("networkidle");
  const pkg = net.requests.filter((r) => isPackage(r.url)).map((r) => ({ ...r, path: new URL(r.url).pathname }));
  // The card's build and nothing else of the package: its one module and its wasm, the files
  // make bench counts for this page.
  assert.deepEqual(pkg.map((r) => r.path).sort(), [`/pkg/${cardBuild.js}`, `/pkg/${cardBuild.wasm}`].sort());
  assert.deepEqual(ownNames(pkg.map((r) => r.path), "card"), counted("card"));
  // What crossed the network for them is their compressed files, each as served (brotli).
  const paid = pkg.reduce((sum, r) => sum + r.bodyBytes, 0);
  const served = pkg.reduce((sum, r) => sum + pkgSize(`${r.path.slice("/pkg/".length)}.br`), 0);
  for (const r of pkg) assert.equal(r.encoding, "br", r.path);
  assert.ok(paid > 0 && paid <= served, `${paid} B paid for ${served} B of brotli files`);
  // The card's build's budget (gzip -9, summed per file) holds for what a visitor pays.
  assert.ok(paid <= 40 * 1024, `the card cost ${paid} B of the package`);
  // The element is one file, the one make bench counts for this page (scripts/page-size.mjs).
  const companion = new URL(env.companionUrl).origin;
  const card = PAGES.find((p) => p.name === "card");
  const scripts = net.requests.filter((r) => r.url.startsWith(`${companion}/`) && !new URL(r.url).pathname.startsWith("/pkg/"))
    .map((r) => new URL(r.url).pathname).sort();
  assert.deepEqual(scripts, [`/${card.element}`]);
  // The page with its card is five requests at most: the page, the element, the build's module
  // and its wasm, the campaign (besides the partner's own files: its style sheet, its icon).
  const all = net.requests.map((r) => r.url).filter((url) => !url.startsWith("data:"))
    .filter((url) => url === `${partner.origin}/` || !url.startsWith(`${partner.origin}/`));
  assert.ok(all.length <= card.requests, `the card's page made ${all.length} requests:\n${all.join("\n")}`);
  assert.deepEqual(all.filter((url) => url.startsWith(env.baseUrl)).length, 1, "one request for the campaign");
  console.log(`one campaign card: ${all.length} requests; ${pkg.length} files of the card's build, ${paid} B over the network`);
  problems.check();
  await net.detach();
});

it("a page with <fundraising-event> fetches the light build only, within 50 KB; with a card beside it, still that build alone", async ({ page }) => {
  const { light } = await builtAssets();
  const problems = consoleErrors(page);
  const companion = new URL(env.companionUrl).origin;
  const visit = async (path, ready) => {
    const net = await recordNetwork(page);
    await page.goto(`${partner.origin}${path}`);
    for (const selector of ready) await page.locator(selector).waitFor();
    await page.waitForLoadState("networkidle");
    await net.detach();
    return net.requests.map((r) => ({ ...r, path: new URL(r.url).pathname }));
  };
  // Far below the fold it loads nothing, as the card does, until the visitor scrolls to it.
  const far = await recordNetwork(page);
  await page.goto(`${partner.origin}/event?limit=100&far`);
  await page.waitForLoadState("networkidle");
  assert.equal(await page.locator("fundraising-event [part=loading]").count(), 1);
  assert.deepEqual(far.requests.filter((r) => isPackage(r.url) || r.url.startsWith(env.baseUrl)).map((r) => r.url), []);
  await far.detach();

  const requests = await visit("/event?limit=100", ["fundraising-event [part=fundraiser] >> nth=0"]);
  const pkg = requests.filter((r) => isPackage(r.url));
  // The light build's one module and its wasm, the files make bench counts for this page.
  assert.deepEqual(pkg.map((r) => r.path).sort(), [`/pkg/${light.js}`, `/pkg/${light.wasm}`].sort());
  assert.deepEqual(ownNames(pkg.map((r) => r.path), "light"), counted("light"));
  for (const r of pkg) {
    assert.equal(r.encoding, "br", r.path);
    assert.equal(r.cacheControl, IMMUTABLE, r.path);
  }
  const paid = pkg.reduce((sum, r) => sum + r.bodyBytes, 0);
  assert.ok(paid > 0 && paid <= 50 * 1024, `the event element cost ${paid} B of the package`);
  // The element's one file, from the companion, and nothing else of it: the file make bench
  // counts for this page (scripts/page-size.mjs).
  const scripts = requests.filter((r) => r.url.startsWith(`${companion}/`) && !r.path.startsWith("/pkg/")).map((r) => r.path).sort();
  assert.deepEqual(scripts, [`/${PAGES.find((p) => p.name === "event").element}`]);
  console.log(`<fundraising-event>: ${pkg.length} files of the light build, ${paid} B over the network`);

  // A card beside the event: both use the light build (from the cache now), the card's build is never asked for.
  const both = await visit("/event?card&limit=100", ["fundraising-event [part=fundraiser] >> nth=0", "fundraising-campaign [role=progressbar]"]);
  const paths = both.filter((r) => isPackage(r.url)).map((r) => r.path);
  assert.ok(paths.includes(`/pkg/${light.wasm}`), JSON.stringify(paths));
  assert.deepEqual(paths.filter((p) => !p.startsWith("/pkg/light/")), []);
  // Cached as the card's build is: the second page took the light build from the cache.
  assert.deepEqual(both.filter((r) => isPackage(r.url) && !r.fromCache).map((r) => r.path), []);
  problems.check();
});

it("a second visit fetches 0 bytes of wasm from the network", async ({ page, context }) => {
  const first = await recordNetwork(page);
  await page.goto(`${partner.origin}/`);
  await page.locator("fundraising-campaign [role=progressbar]").waitFor();
  const firstWasm = first.requests.filter((r) => r.url.endsWith(".wasm"));
  assert.equal(firstWasm.length, 1);
  assert.ok(firstWasm[0].bodyBytes > 0, "the first visit fetched the wasm");
  await first.detach();
  await page.close();

  // The visitor comes back in a new tab of the same browser profile.
  const again = await context.newPage();
  const problems = consoleErrors(again);
  const second = await recordNetwork(again);
  await again.goto(`${partner.origin}/`);
  await again.locator("fundraising-campaign [role=progressbar]").waitFor();
  const wasm = second.requests.filter((r) => r.url.endsWith(".wasm"));
  const fromNetwork = wasm.reduce((sum, r) => sum + r.networkBytes, 0);
  assert.equal(fromNetwork, 0, JSON.stringify(wasm));
  assert.ok(wasm.every((r) => r.fromCache), JSON.stringify(wasm));
  // Nor any byte of the package's scripts: immutable, so not even revalidated.
  const scripts = second.requests.filter((r) => isPackage(r.url));
  assert.ok(scripts.length > 0);
  assert.deepEqual(scripts.filter((r) => !r.fromCache).map((r) => r.url), []);
  problems.check();
  await second.detach();
});

it("loading=\"eager\" loads the card at once, far below the fold", async ({ page }) => {
  const net = await recordNetwork(page);
  await page.goto(`${partner.origin}/far-eager`);
  const card = page.locator("fundraising-campaign");
  await card.locator("[role=progressbar]").waitFor({ state: "attached" });
  assert.equal(await card.evaluate((node) => node.getBoundingClientRect().top > 3 * innerHeight), true, "still out of sight");
  assert.equal(net.requests.filter((r) => r.url.endsWith(".wasm")).length, 1);
  await net.detach();
});
