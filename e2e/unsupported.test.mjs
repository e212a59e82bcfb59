// Engines below the supported versions, and the engine check, in Chromium (the Firefox and
// WebKit run of the same is webdriver-unsupported.test.mjs). A partner's page in an engine
// whose WebAssembly lacks a feature the package needs (e2e/partner-site.mjs's /old-browser
// pages take it away before the widget loads, so the real compile of the package fails), or
// under a CSP without 'wasm-unsafe-eval', shows the widget's error state saying what is
// missing, never a blank card: init() failed, fetched engine-check.js and rejected with
// FundraisingError "unsupported". An engine that runs the package never fetches
// engine-check.js, and one without BroadcastChannel runs it (the card, the donation return, the
// sign-in by pop-up).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { browserTests, launchBrowser, LOCALE, openDemo, servers, signInByPopup, USER } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";
import { isCheck, isWasm, UNSUPPORTED_PREFIX as PREFIX } from "./widget-assets.mjs";

const env = servers();
const it = browserTests({ timeout: 60_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/** Records the paths of the companion's files the page requests (the package's among them). */
function companionRequests(page) {
  const paths = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.origin === new URL(env.companionUrl).origin) paths.push(url.pathname);
  });
  return paths;
}

/** Waits for the card's campaign (its progress bar) and checks its title is the campaign's. */
async function campaignShown(page) {
  const card = page.locator("fundraising-campaign");
  await card.locator("[role=progressbar]").waitFor();
  assert.equal(await card.locator("h2").count(), 1);
  assert.equal(await card.locator("[role=alert]").count(), 0);
}

it("an engine that runs the package never fetches engine-check.js", async ({ page }) => {
  const requests = companionRequests(page);
  await page.goto(`${partner.origin}/`);
  await campaignShown(page);
  assert.ok(requests.some(isWasm), `the package's wasm was not fetched: ${requests}`);
  assert.ok(!requests.some(isCheck), `engine-check.js was fetched: ${requests}`);
});

it("without BroadcastChannel the card shows the campaign, and engine-check.js is not fetched", async ({ page }) => {
  const requests = companionRequests(page);
  await page.goto(`${partner.origin}/old-browser?hide=BroadcastChannel`);
  await campaignShown(page);
  assert.equal(await page.evaluate(() => typeof BroadcastChannel), "undefined");
  assert.ok(!requests.some(isCheck), `engine-check.js was fetched: ${requests}`);
});

it("without WebAssembly reference types the package does not compile, and the card names them", async ({ page }) => {
  const requests = companionRequests(page);
  await page.goto(`${partner.origin}/old-browser?hide=reference-types`);
  const alert = page.locator("fundraising-campaign [role=alert]");
  await alert.waitFor();
  assert.equal(await alert.textContent(), `${PREFIX}fundraising-client cannot run here: this browser lacks WebAssembly reference types.`);
  assert.equal(await page.locator("fundraising-campaign [role=progressbar]").count(), 0);
  // init() fetched the module, failed to compile it, then fetched the check.
  assert.ok(requests.some(isWasm) && requests.some(isCheck), `requests: ${requests}`);
  assert.ok(requests.findIndex(isCheck) > requests.findIndex(isWasm), `requests: ${requests}`);
});

it("without constructed style sheets the card shows its error state instead of nothing", async ({ page }) => {
  await page.goto(`${partner.origin}/old-browser?hide=CSSStyleSheet`);
  const alert = page.locator("fundraising-campaign [role=alert]");
  await alert.waitFor();
  assert.match(await alert.textContent(), new RegExp(`^${PREFIX}this browser lacks constructed style sheets \\(.+\\)\\.$`));
  assert.equal(await alert.isVisible(), true);
});

it("the donation return without WebAssembly reference types says so", async ({ page }) => {
  await page.goto(`${partner.origin}/old-browser-thanks?hide=reference-types&donation=demo-ref-2`);
  const element = page.locator("fundraising-donation");
  await element.locator("[part=status][data-state=error]").waitFor();
  assert.equal(await element.locator("[part=title]").textContent(), "This browser cannot show your donation");
  assert.equal(await element.locator("[part=error]").getAttribute("data-code"), "unsupported");
  assert.equal(await element.locator("[data-field=error]").textContent(), "fundraising-client cannot run here: this browser lacks WebAssembly reference types.");
});

it("the donation return without BroadcastChannel thanks the donor", async ({ page }) => {
  await page.goto(`${partner.origin}/old-browser-thanks?hide=BroadcastChannel&donation=demo-ref-2`);
  const element = page.locator("fundraising-donation");
  await element.locator("[part=status][data-state=confirmed]").waitFor({ timeout: 30_000 });
  assert.equal(await element.locator("[data-field=message]").textContent(), "Go go go! Proud of you.");
});

it("without BroadcastChannel (in the page and the pop-up), the demo signs in by pop-up: the answer comes by postMessage", async ({ page, context }) => {
  await context.addInitScript(() => { delete window.BroadcastChannel; });
  await openDemo(page, env.companionUrl);
  assert.equal(await page.evaluate(() => typeof BroadcastChannel), "undefined");
  const popup = await signInByPopup(page);
  assert.equal(popup.isClosed(), true);
  await page.locator("#signed-in").waitFor();
  assert.equal(await page.locator("#user-name").textContent(), USER.name);
  await page.locator("#sign-out").click();
  await page.locator("#sign-in").waitFor();
});

// Its own browser context: the page breaks its CSP on purpose, which browserTests() refuses.
test("a partner CSP without 'wasm-unsafe-eval' gets a card that says what the policy needs, and a violation report", { timeout: 60_000 }, async () => {
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ locale: LOCALE })).newPage();
    const requests = companionRequests(page);
    const reportsBefore = partner.reports.length;
    await page.goto(`${partner.origin}/no-wasm-csp`);
    const alert = page.locator("fundraising-campaign [role=alert]");
    await alert.waitFor();
    assert.equal(await alert.textContent(), `${PREFIX}fundraising-client cannot run here: the page's CSP forbids WebAssembly (script-src needs 'wasm-unsafe-eval').`);
    assert.ok(requests.some(isCheck), `engine-check.js was not fetched: ${requests}`);
    const deadline = Date.now() + 15_000;
    while (partner.reports.length === reportsBefore) {
      assert.ok(Date.now() < deadline, "no CSP violation report arrived");
      await page.waitForTimeout(100);
    }
    assert.match(partner.reports.slice(reportsBefore).join("\n"), /wasm-eval|script-src/);
  } finally {
    await browser.close();
  }
});
