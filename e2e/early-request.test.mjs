// The request does not wait for the WebAssembly: a card in view sends its campaign's request
// beside the package's download and compile, and the package decodes that answer as its own; a
// failed early answer leaves the package to make its own call. The wasm's answer is held back
// (route interception) until the campaign's request has been seen, with a deadline: a card whose
// request waits for init() never sends it while the wasm is held, and the test fails.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { browserTests, consoleErrors, servers } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/** How long the wasm is held back at most, waiting for the element's API request. */
const HOLD_MS = 15_000;

const isApi = (url) => url.startsWith(`${env.baseUrl}/`);

/**
 * Holds every .wasm request of `page` until `released` settles or HOLD_MS passes; resolves
 * `held` with what happened, per wasm: whether the API request came while it was held.
 */
async function holdWasm(page, released) {
  const outcomes = [];
  await page.route((url) => url.pathname.endsWith(".wasm"), async (route) => {
    let timer;
    const deadline = new Promise((resolve) => { timer = setTimeout(resolve, HOLD_MS, "deadline"); });
    const why = await Promise.race([released.then(() => "api request seen"), deadline]);
    clearTimeout(timer);
    outcomes.push(why);
    await route.continue();
  });
  return outcomes;
}

/** The API requests of `page` as they are sent, and a promise of the first. */
function watchApi(page) {
  const sent = [];
  let first;
  const seen = new Promise((resolve) => { first = resolve; });
  page.on("request", (request) => {
    if (!isApi(request.url())) return;
    sent.push(request.url());
    first();
  });
  return { sent, seen };
}

it("the card's campaign request is sent while the wasm is still held back, and the package shows its answer without a second request", async ({ page }) => {
  const problems = consoleErrors(page);
  const api = watchApi(page);
  const outcomes = await holdWasm(page, api.seen);
  await page.goto(`${partner.origin}/`);
  const card = page.locator("fundraising-campaign");
  await card.locator("[role=progressbar]").waitFor();
  assert.deepEqual(outcomes, ["api request seen"], "the campaign's request waited for the wasm (init())");
  // The early answer was the package's: one request for the campaign, its title on show.
  assert.equal(api.sent.length, 1, api.sent.join("\n"));
  assert.match(api.sent[0], /\/v1\/campaign\/byshortname\/demo-campaign$/);
  assert.ok((await card.locator("[part=title]").textContent()).length > 0);
  problems.check();
});

it("the event element's first page request is sent while the wasm is still held back", async ({ page }) => {
  const problems = consoleErrors(page);
  const api = watchApi(page);
  const outcomes = await holdWasm(page, api.seen);
  await page.goto(`${partner.origin}/event?limit=100&per-page=10`);
  await page.locator("fundraising-event [part=fundraiser]").first().waitFor();
  assert.deepEqual(outcomes, ["api request seen"], "the first page's request waited for the wasm (init())");
  assert.match(api.sent[0], /\/v1\/event\/1001\/pages\?page=1&pagesize=100$/);
  assert.equal(api.sent.filter((url) => url === api.sent[0]).length, 1, api.sent.join("\n"));
  problems.check();
});

for (const [what, fail] of [
  ["a network error", (route) => route.abort("connectionreset")],
  ["a 503", (route) => route.fulfill({ status: 503, body: "busy", headers: { "access-control-allow-origin": "*" } })],
]) {
  it(`an early answer that failed (${what}) leaves the package to make its own call`, async ({ page }) => {
    const api = watchApi(page);
    let failed = 0;
    await page.route((url) => isApi(url.href), async (route) => {
      if (failed === 0) {
        failed += 1;
        await fail(route);
      } else {
        await route.continue();
      }
    });
    await page.goto(`${partner.origin}/`);
    const card = page.locator("fundraising-campaign");
    await card.locator("[role=progressbar]").waitFor();
    assert.equal(failed, 1);
    assert.equal(api.sent.length, 2, api.sent.join("\n"));
    assert.equal(api.sent[0], api.sent[1]);
  });
}
