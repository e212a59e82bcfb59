// The donation return in Firefox and WebKit (e2e/webdriver.mjs): <fundraising-donation> waiting
// for a donation staged in the real sandbox (POST {base_url}/_sandbox/staged-donations), on the
// demo page and on a partner's thank-you page of another origin under the strict CSP.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { DONATION, servers, stageDonation } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";
import { forEachEngine, inPage, waitForElement } from "./webdriver.mjs";

const env = servers();

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/**
 * Records every state the element's status region goes through, from now on (in order,
 * without repeats), and its `fundraising-donation-settled` events; `readStates` reads them.
 * Kept in an attribute of the document element (Firefox runs each WebDriver script in a
 * sandbox of its own, where globals do not last).
 */
function recordStates(driver, selector) {
  return inPage(driver, (selector) => {
    const root = document.documentElement;
    const log = { states: [], settled: [] };
    const save = () => { root.dataset.e2eDonation = JSON.stringify(log); };
    const status = document.querySelector(selector).shadowRoot.querySelector("[part=status]");
    const seen = () => {
      const pending = status.querySelector("[data-field=waiting]")?.textContent.includes("processed");
      const state = `${status.dataset.state}${pending ? ":pending" : ""}`;
      if (log.states.at(-1) !== state) log.states.push(state);
      save();
    };
    seen();
    new MutationObserver(seen).observe(status, { subtree: true, childList: true, attributes: true, characterData: true });
    document.addEventListener("fundraising-donation-settled", (e) => { log.settled.push(e.detail.status); save(); });
  }, selector);
}

/** What `recordStates` recorded. */
async function readStates(driver) {
  return JSON.parse(await inPage(driver, () => document.documentElement.dataset.e2eDonation));
}

forEachEngine("donation return", (it) => {
  it("the demo, back with ?donation=: waits through 404 and Pending, then thanks the donor with £12.50 and the message", async ({ driver }) => {
    const reference = await stageDonation(env, { ...DONATION, appears_after_secs: 2, final_after_secs: 6, final_status: "Accepted" });
    await driver.get(`${env.companionUrl}/?donation=${encodeURIComponent(reference)}`);
    await waitForElement(driver, ["#donation-return", "[part=status]"], (r) => r.attributes["data-state"] === "waiting");
    await recordStates(driver, "#donation-return");
    const waiting = await waitForElement(driver, ["#donation-return", "[data-field=waiting]"]);
    assert.match(waiting.text, /Waiting for your donation|being processed/);
    assert.equal((await waitForElement(driver, ["#donation-return", "[part=reference]"])).text, `Reference: ${reference}`);
    assert.equal((await waitForElement(driver, "#donation-return")).attributes["aria-busy"], "true");

    await waitForElement(driver, ["#donation-return", "[part=status]"], (r) => r.attributes["data-state"] === "confirmed", 40_000);
    assert.equal((await waitForElement(driver, ["#donation-return", "[data-field=amount]"])).text, "£12.50");
    assert.equal((await waitForElement(driver, ["#donation-return", "[data-field=message]"])).text, "Well done!");
    assert.equal((await waitForElement(driver, ["#donation-return", "[part=title]"])).text, "Thank you, Kim!");
    assert.equal((await waitForElement(driver, "#donation-return")).attributes["aria-busy"], undefined);
    const log = await readStates(driver);
    assert.deepEqual(log.states.slice(-2), ["waiting:pending", "confirmed"], `states: ${log.states}`);
    assert.deepEqual(log.settled, ["Accepted"]);
  });

  it("a partner's thank-you page on another origin, under the strict CSP, thanks the donor", async ({ driver }) => {
    const reference = await stageDonation(env, { ...DONATION, appears_after_secs: 0, final_after_secs: 1, final_status: "Accepted" });
    const reportsBefore = partner.reports.length;
    await driver.get(`${partner.origin}/thanks?donation=${encodeURIComponent(reference)}`);
    await waitForElement(driver, ["fundraising-donation", "[part=status]"], (r) => r.attributes["data-state"] === "confirmed", 40_000);
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[data-field=amount]"])).text, "£12.50");
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[data-field=message]"])).text, "Well done!");
    assert.equal(await inPage(driver, () => document.scripts.length), 1, "one script tag on the partner page");
    assert.deepEqual(partner.reports.slice(reportsBefore), [], "CSP violation reports");
  });

  it("a donation that ends Rejected shows 'not completed'", async ({ driver }) => {
    const reference = await stageDonation(env, { ...DONATION, appears_after_secs: 0, final_after_secs: 1, final_status: "Rejected" });
    await driver.get(`${partner.origin}/thanks?donation=${encodeURIComponent(reference)}`);
    await waitForElement(driver, ["fundraising-donation", "[part=status]"], (r) => r.attributes["data-state"] === "not-completed", 40_000);
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[part=title]"])).text, "Your donation was not completed");
    assert.equal((await waitForElement(driver, ["fundraising-donation", "[data-field=reason]"])).attributes["data-status"], "Rejected");
    assert.equal(await inPage(driver, () => document.querySelector("fundraising-donation").shadowRoot.querySelector("[data-field=amount]")), null);
  });
});
