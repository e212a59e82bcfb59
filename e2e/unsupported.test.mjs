// Below the supported versions, in Chromium (the Firefox and WebKit run of the same is
// webdriver-unsupported.test.mjs): a partner's page in an engine missing something the package
// or the widgets need (e2e/partner-site.mjs's /old-browser pages take it away before the widget
// loads), or under a CSP without 'wasm-unsafe-eval', shows the widget's error state saying what
// is missing, never a blank card; init() rejects before the wasm is fetched.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { browserTests, launchBrowser, LOCALE, servers } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";

const env = servers();
const it = browserTests({ timeout: 60_000 });
const PREFIX = "This browser cannot show the campaign: ";

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/** Records the WebAssembly files the page fetches. */
function wasmRequests(page) {
  const urls = [];
  page.on("request", (r) => { if (r.url().endsWith(".wasm")) urls.push(r.url()); });
  return urls;
}

it("without BroadcastChannel the card says so, and no WebAssembly is fetched", async ({ page }) => {
  const wasm = wasmRequests(page);
  await page.goto(`${partner.origin}/old-browser?hide=BroadcastChannel`);
  const alert = page.locator("fundraising-campaign [role=alert]");
  await alert.waitFor();
  assert.equal(await alert.textContent(), `${PREFIX}fundraising-client cannot run here: this browser lacks BroadcastChannel.`);
  assert.equal(await page.locator("fundraising-campaign [role=progressbar]").count(), 0);
  assert.deepEqual(wasm, []);
});

it("without WebAssembly reference types the card names them", async ({ page }) => {
  await page.goto(`${partner.origin}/old-browser?hide=reference-types`);
  const alert = page.locator("fundraising-campaign [role=alert]");
  await alert.waitFor();
  assert.equal(await alert.textContent(), `${PREFIX}fundraising-client cannot run here: this browser lacks WebAssembly reference types.`);
});

it("without constructed style sheets the card shows its error state instead of nothing", async ({ page }) => {
  await page.goto(`${partner.origin}/old-browser?hide=CSSStyleSheet`);
  const alert = page.locator("fundraising-campaign [role=alert]");
  await alert.waitFor();
  assert.match(await alert.textContent(), new RegExp(`^${PREFIX}this browser lacks constructed style sheets \\(.+\\)\\.$`));
  assert.equal(await alert.isVisible(), true);
});

it("the donation return without BroadcastChannel says so", async ({ page }) => {
  await page.goto(`${partner.origin}/old-browser-thanks?hide=BroadcastChannel&donation=any-reference`);
  const element = page.locator("fundraising-donation");
  await element.locator("[part=status][data-state=error]").waitFor();
  assert.equal(await element.locator("[part=title]").textContent(), "This browser cannot show your donation");
  assert.equal(await element.locator("[part=error]").getAttribute("data-code"), "unsupported");
  assert.equal(await element.locator("[data-field=error]").textContent(), "fundraising-client cannot run here: this browser lacks BroadcastChannel.");
});

// Its own browser context: the page breaks its CSP on purpose, which browserTests() refuses.
test("a partner CSP without 'wasm-unsafe-eval' gets a card that says what the policy needs, and a violation report", { timeout: 60_000 }, async () => {
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ locale: LOCALE })).newPage();
    const wasm = wasmRequests(page);
    const reportsBefore = partner.reports.length;
    await page.goto(`${partner.origin}/no-wasm-csp`);
    const alert = page.locator("fundraising-campaign [role=alert]");
    await alert.waitFor();
    assert.equal(await alert.textContent(), `${PREFIX}fundraising-client cannot run here: the page's CSP forbids WebAssembly (script-src needs 'wasm-unsafe-eval').`);
    assert.deepEqual(wasm, []);
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
