// The <fundraising-campaign> widget (and <fundraising-event> beside it) on a partner's page of
// another origin, under the strict Content-Security-Policy a partner needs (e2e/partner-site.mjs),
// in Firefox and WebKit (e2e/webdriver.mjs) against the real companion and sandbox.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { addErrorCards, money, rawCampaign, servers } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";
import { builtAssets } from "./widget-assets.mjs";
import { deepRead, forEachEngine, inPage, waitForElement, waitUntil } from "./webdriver.mjs";

const env = servers();

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

forEachEngine("the widget on a partner page", (it) => {
  it("the partner's page under the strict CSP shows the card with its progress bar, styled, from one script tag", async ({ driver }) => {
    const raw = await rawCampaign(env);
    const reportsBefore = partner.reports.length;
    await driver.get(`${partner.origin}/`);
    const bar = await waitForElement(driver, ["fundraising-campaign", "[role=progressbar]"]);
    const raised = raw.DonationSummary.TotalAmount;
    assert.equal(Number(bar.attributes["aria-valuenow"]), Math.min(raised, raw.TargetAmount));
    assert.equal(Number(bar.attributes["aria-valuemax"]), raw.TargetAmount);
    assert.equal(bar.attributes["aria-valuemin"], "0");
    assert.ok(bar.attributes["aria-valuetext"].startsWith(`${money(raised, "GBP")} raised of a ${money(raw.TargetAmount, "GBP")} target`),
      bar.attributes["aria-valuetext"]);
    assert.equal((await waitForElement(driver, ["fundraising-campaign", "h2"])).text, raw.Title);
    assert.equal((await waitForElement(driver, ["fundraising-campaign", "[data-field=raised]"])).text, money(raised, "GBP"));

    // The card's styles apply although the CSP has no 'unsafe-inline' (a constructed style
    // sheet, and the bar's width set through the CSSOM); the page ran widget.js and the package
    // from the companion and nothing else.
    const companion = new URL(env.companionUrl).origin;
    const looks = await inPage(driver, () => {
      const root = document.querySelector("fundraising-campaign").shadowRoot;
      const bar = root.querySelector("[role=progressbar]");
      const fill = root.querySelector(".fill");
      return {
        radius: getComputedStyle(root.querySelector(".card")).borderTopLeftRadius,
        barWidth: bar.getBoundingClientRect().width,
        fillWidth: fill.getBoundingClientRect().width,
        fillStyleAttribute: fill.getAttribute("style"),
        pageScripts: document.scripts.length,
        code: performance.getEntriesByType("resource").map((e) => e.name).filter((n) => /\.(m?js|wasm)(\?|$)/.test(n)),
      };
    });
    assert.equal(looks.radius, "12px");
    const expected = (Math.min(raised, raw.TargetAmount) / raw.TargetAmount) * looks.barWidth;
    assert.ok(Math.abs(looks.fillWidth - expected) < 1.5, `fill ${looks.fillWidth}px, expected ${expected}px`);
    assert.equal(looks.pageScripts, 1, "one script tag on the partner page");
    assert.ok(looks.code.includes(`${companion}/widget.js`), JSON.stringify(looks.code));
    // The card's build (a campaign), under its content-hashed name.
    const { card: build } = await builtAssets();
    assert.ok(looks.code.includes(`${companion}/pkg/${build.wasm}`), JSON.stringify(looks.code));
    assert.deepEqual(looks.code.filter((url) => !url.startsWith(`${companion}/`)), [], "code from elsewhere than the companion");
    assert.deepEqual(partner.reports.slice(reportsBefore), [], "CSP violation reports");

    // The engine does report violations to the partner's report-uri, so the empty list above
    // means something: an inline script is one.
    await inPage(driver, () => {
      const script = document.createElement("script");
      script.textContent = "void 0";
      document.head.append(script);
    });
    await waitUntil(() => partner.reports.length > reportsBefore, { message: "the inline script's violation report" });
    assert.match(partner.reports.slice(reportsBefore).join("\n"), /script-src/);
  });

  it("<fundraising-event> ranks event 1001's first 100 fundraisers from the light build; an ended campaign's card has no Donate link", async ({ driver }) => {
    const answer = await (await fetch(`${env.baseUrl}/${env.appId}/v1/event/1001/pages?page=1&pagesize=100`)).json();
    const sorted = [...answer.fundraisingPages].sort((a, b) => b.raisedAmount - a.raisedAmount);
    const expected = sorted.map((page) => [sorted.findIndex((o) => o.raisedAmount === page.raisedAmount) + 1, page.pageId]);
    const reportsBefore = partner.reports.length;
    await driver.get(`${partner.origin}/event?limit=100&card`);
    const note = await waitForElement(driver, ["fundraising-event", "[part=note]"]);
    assert.equal(note.text, "Only the first 100 of 250 fundraising pages are ranked.");
    await waitForElement(driver, ["fundraising-campaign", "[role=progressbar]"]);
    const shown = await inPage(driver, () => ({
      ranked: [...document.querySelector("fundraising-event").shadowRoot.querySelectorAll("[part=fundraiser]")]
        .map((li) => [li.value, Number(li.dataset.pageId)]),
      wasm: performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname).filter((path) => path.endsWith(".wasm")),
    }));
    assert.deepEqual(shown.ranked, expected.slice(0, 10));
    // One build for the page's two elements: the light build.
    const { light } = await builtAssets();
    assert.deepEqual(shown.wasm, [`/pkg/${light.wasm}`]);

    await driver.get(`${partner.origin}/card?campaign=demo-campaign-ended`);
    const dates = await waitForElement(driver, ["fundraising-campaign", "[part=dates]"]);
    assert.match(dates.text, /^Ended on /);
    assert.equal(await deepRead(driver, "fundraising-campaign", "[part=donate]"), null);
    assert.deepEqual(partner.reports.slice(reportsBefore), [], "CSP violation reports");
  });

  it("an unknown campaign and a missing attribute show the widget's error state", async ({ driver }) => {
    await driver.get(`${partner.origin}/`);
    await waitForElement(driver, ["fundraising-campaign", "[role=progressbar]"]);
    await inPage(driver, addErrorCards, env);
    const unknown = await waitForElement(driver, ["#unknown", "[role=alert]"]);
    assert.match(unknown.text, /No campaign is called “no-such-campaign”/);
    const partial = await waitForElement(driver, ["#partial", "[role=alert]"]);
    assert.equal(partial.text, "Missing attributes: app-id, base-url.");
  });
});
