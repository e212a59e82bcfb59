// Below the supported versions, in Firefox and WebKit (e2e/webdriver.mjs): a partner's page in
// an engine missing something the package or the widgets need (e2e/partner-site.mjs's
// /old-browser pages take it away before the widget loads), or under a CSP without
// 'wasm-unsafe-eval', shows the widget's error state saying what is missing, never a blank
// card; the package's init() rejects with FundraisingError "unsupported" before fetching the wasm.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { servers } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";
import { forEachEngine, inPage, waitForElement } from "./webdriver.mjs";

const env = servers();
const PREFIX = "This browser cannot show the campaign: ";

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/** The addresses of the WebAssembly files the page fetched. */
function wasmFetched(driver) {
  return inPage(driver, () => performance.getEntriesByType("resource").map((e) => e.name).filter((n) => n.endsWith(".wasm")));
}

forEachEngine("below the supported versions", (it) => {
  it("without BroadcastChannel the card says so, and no WebAssembly is fetched", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser?hide=BroadcastChannel`);
    const alert = await waitForElement(driver, ["fundraising-campaign", "[role=alert]"]);
    assert.equal(alert.text, `${PREFIX}fundraising-client cannot run here: this browser lacks BroadcastChannel.`);
    assert.equal(await inPage(driver, () => document.querySelector("fundraising-campaign").shadowRoot.querySelector("[role=progressbar]")), null);
    assert.deepEqual(await wasmFetched(driver), []);
  });

  it("without WebAssembly reference types the card names them", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser?hide=reference-types`);
    const alert = await waitForElement(driver, ["fundraising-campaign", "[role=alert]"]);
    assert.equal(alert.text, `${PREFIX}fundraising-client cannot run here: this browser lacks WebAssembly reference types.`);
  });

  it("without constructed style sheets the card shows its error state instead of nothing", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser?hide=CSSStyleSheet`);
    const alert = await waitForElement(driver, ["fundraising-campaign", "[role=alert]"]);
    assert.match(alert.text, new RegExp(`^${PREFIX}this browser lacks constructed style sheets \\(.+\\)\\.$`));
    assert.equal(alert.visible, true);
  });

  it("the donation return without BroadcastChannel says so", async ({ driver }) => {
    await driver.get(`${partner.origin}/old-browser-thanks?hide=BroadcastChannel&donation=any-reference`);
    await waitForElement(driver, ["fundraising-donation", "[part=status]"], (r) => r.attributes["data-state"] === "error");
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[part=title]"])).text, "This browser cannot show your donation");
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[part=error]"])).attributes["data-code"], "unsupported");
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[data-field=error]"])).text,
      "fundraising-client cannot run here: this browser lacks BroadcastChannel.");
  });

  it("a partner CSP without 'wasm-unsafe-eval' gets a card that says what the policy needs", async ({ driver }) => {
    await driver.get(`${partner.origin}/no-wasm-csp`);
    const alert = await waitForElement(driver, ["fundraising-campaign", "[role=alert]"]);
    assert.equal(alert.text, `${PREFIX}fundraising-client cannot run here: the page's CSP forbids WebAssembly (script-src needs 'wasm-unsafe-eval').`);
    assert.deepEqual(await wasmFetched(driver), []);
  });
});
