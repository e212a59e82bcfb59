// Engines below the supported versions, and the engine check, in Firefox and WebKit
// (e2e/webdriver.mjs; the Chromium run of the same is unsupported.test.mjs). A partner's page
// in an engine whose WebAssembly lacks a feature the package needs (e2e/partner-site.mjs's
// /old-browser pages take it away before the widget loads, so the real compile of the package
// fails), or under a CSP without 'wasm-unsafe-eval', shows the widget's error state saying what
// is missing, never a blank card: init() failed, fetched engine-check.js and rejected with
// FundraisingError "unsupported". An engine that runs the package never fetches
// engine-check.js, and one without BroadcastChannel runs it.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { servers } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";
import { forEachEngine, inPage, waitForElement } from "./webdriver.mjs";
import { isCheck, isWasm, UNSUPPORTED_PREFIX as PREFIX } from "./widget-assets.mjs";

const env = servers();

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/** The paths of the companion's files the page fetched (its resource timing entries). */
function companionFetched(driver) {
  return inPage(driver, (origin) => performance.getEntriesByType("resource")
    .map((e) => new URL(e.name)).filter((u) => u.origin === origin).map((u) => u.pathname), new URL(env.companionUrl).origin);
}

/** Waits for the card's campaign (its progress bar), with no error state. */
async function campaignShown(driver) {
  await waitForElement(driver, ["fundraising-campaign", "[role=progressbar]"]);
  assert.equal(await inPage(driver, () => document.querySelector("fundraising-campaign").shadowRoot.querySelector("[role=alert]")), null);
}

forEachEngine("below the supported versions", (it) => {
  it("an engine that runs the package never fetches engine-check.js", async ({ driver }) => {
    await driver.get(`${partner.origin}/`);
    await campaignShown(driver);
    const fetched = await companionFetched(driver);
    assert.ok(fetched.some(isWasm), `the package's wasm was not fetched: ${fetched}`);
    assert.ok(!fetched.some(isCheck), `engine-check.js was fetched: ${fetched}`);
  });

  it("without BroadcastChannel the card shows the campaign, and engine-check.js is not fetched", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser?hide=BroadcastChannel`);
    await campaignShown(driver);
    assert.equal(await inPage(driver, () => typeof BroadcastChannel), "undefined");
    const fetched = await companionFetched(driver);
    assert.ok(!fetched.some(isCheck), `engine-check.js was fetched: ${fetched}`);
  });

  it("without WebAssembly reference types the package does not compile, and the card names them", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser?hide=reference-types`);
    const alert = await waitForElement(driver, ["fundraising-campaign", "[role=alert]"]);
    assert.equal(alert.text, `${PREFIX}fundraising-client cannot run here: this browser lacks WebAssembly reference types.`);
    assert.equal(await inPage(driver, () => document.querySelector("fundraising-campaign").shadowRoot.querySelector("[role=progressbar]")), null);
    // init() fetched the module, failed to compile it, then fetched the check.
    const fetched = await companionFetched(driver);
    assert.ok(fetched.some(isWasm) && fetched.some(isCheck), `fetched: ${fetched}`);
  });

  it("without constructed style sheets the card shows its error state instead of nothing", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser?hide=CSSStyleSheet`);
    const alert = await waitForElement(driver, ["fundraising-campaign", "[role=alert]"]);
    assert.match(alert.text, new RegExp(`^${PREFIX}this browser lacks constructed style sheets \\(.+\\)\\.$`));
    assert.equal(alert.visible, true);
  });

  it("the donation return without WebAssembly reference types says so", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser-thanks?hide=reference-types&donation=demo-ref-2`);
    await waitForElement(driver, ["fundraising-donation", "[part=status]"], (r) => r.attributes["data-state"] === "error");
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[part=title]"])).text, "This browser cannot show your donation");
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[part=error]"])).attributes["data-code"], "unsupported");
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[data-field=error]"])).text,
      "fundraising-client cannot run here: this browser lacks WebAssembly reference types.");
  });

  it("the donation return without BroadcastChannel thanks the donor", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser-thanks?hide=BroadcastChannel&donation=demo-ref-2`);
    await waitForElement(driver, ["fundraising-donation", "[part=status]"], (r) => r.attributes["data-state"] === "confirmed", 30_000);
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[data-field=message]"])).text, "Go go go! Proud of you.");
  });

  it("a partner CSP without 'wasm-unsafe-eval' gets a card that says what the policy needs", async ({ driver }) => {
    await driver.get(`${partner.origin}/no-wasm-csp`);
    const alert = await waitForElement(driver, ["fundraising-campaign", "[role=alert]"]);
    assert.equal(alert.text, `${PREFIX}fundraising-client cannot run here: the page's CSP forbids WebAssembly (script-src needs 'wasm-unsafe-eval').`);
    const fetched = await companionFetched(driver);
    assert.ok(fetched.some(isCheck), `engine-check.js was not fetched: ${fetched}`);
  });
});
