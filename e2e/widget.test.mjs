// End-to-end tests of the <fundraising-campaign> widget (www/demo/widget.html, a page that imports
// nothing but widget.js) in headless Chromium against the real sandbox.
import assert from "node:assert/strict";
import { addErrorCards, browserTests, keepScreenshot, money, rawCampaign, servers } from "./harness.mjs";

const env = servers();
const it = browserTests({ timeout: 60_000 });

it("renders the campaign with an accessible progress bar (test-artifacts/widget.png)", async ({ page }) => {
  const raw = await rawCampaign(env);
  const scripts = [];
  page.on("request", (r) => { if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname); });
  await page.goto(`${env.companionUrl}/widget.html`);
  const widget = page.locator("fundraising-campaign");
  const bar = widget.locator("[role=progressbar]");
  await bar.waitFor();

  const raised = raw.DonationSummary.TotalAmount;
  assert.equal(Number(await bar.getAttribute("aria-valuenow")), Math.min(raised, raw.TargetAmount));
  assert.equal(Number(await bar.getAttribute("aria-valuemax")), raw.TargetAmount);
  assert.equal(await bar.getAttribute("aria-valuemin"), "0");
  const valueText = await bar.getAttribute("aria-valuetext");
  assert.ok(valueText.startsWith(`${money(raised, "GBP")} raised of a ${money(raw.TargetAmount, "GBP")} target`), valueText);
  // The text equivalent is on screen too.
  assert.equal(await widget.locator("[data-field=raised]").textContent(), money(raised, "GBP"));
  assert.equal(await widget.locator("[data-field=target]").textContent(), money(raw.TargetAmount, "GBP"));
  assert.equal(await widget.locator("h2").textContent(), raw.Title);

  // The card lives in a shadow root: the page's `p { color }` does not reach it, and the
  // widget's own styles do not reach the page.
  const colours = await page.evaluate(() => {
    const host = document.querySelector("fundraising-campaign");
    return {
      shadow: Boolean(host.shadowRoot),
      inside: getComputedStyle(host.shadowRoot.querySelector(".summary")).color,
      page: getComputedStyle(document.querySelector("p")).color,
      pageHeadingSize: getComputedStyle(document.querySelector("h1")).fontSize,
    };
  });
  assert.equal(colours.shadow, true);
  assert.equal(colours.page, "rgb(122, 31, 92)");
  assert.notEqual(colours.inside, colours.page);
  assert.equal(colours.pageHeadingSize, "32px");

  // One script tag of the widget: the page loads widget.js (one module: its texts and theme are
  // within), which loads the package; the page's own module (the demo's sandbox address, in a
  // file since the CSP forbids inline script) and the config.js it imports are the only other
  // scripts. The partner page of embed.test.mjs has the one tag alone.
  assert.deepEqual(scripts.filter((s) => !s.startsWith("/pkg/")).sort(), ["/config.js", "/widget-page.js", "/widget.js"]);
  await keepScreenshot(page, "widget.png", { fullPage: true });
});

it("shows a loading state while the campaign is on its way", async ({ page }) => {
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  // Hold the real response back until the loading state has been seen, then let it through.
  await page.route(`${env.baseUrl}/**/campaign/**`, async (route) => { await gate; await route.continue(); });
  await page.goto(`${env.companionUrl}/widget.html`);
  const widget = page.locator("fundraising-campaign");
  const loading = widget.locator("[role=status]");
  await loading.waitFor();
  assert.match(await loading.textContent(), /Loading campaign/);
  assert.equal(await widget.getAttribute("aria-busy"), "true");
  release();
  await widget.locator("[role=progressbar]").waitFor();
  assert.equal(await widget.locator("[role=status]").count(), 0);
  assert.equal(await widget.getAttribute("aria-busy"), null);
});

it("shows an error state for an unknown campaign and for a missing attribute", async ({ page }) => {
  await page.goto(`${env.companionUrl}/widget.html`);
  await page.locator("fundraising-campaign [role=progressbar]").waitFor();
  await page.evaluate(addErrorCards, env);
  const unknownAlert = page.locator("#unknown [role=alert]");
  await unknownAlert.waitFor();
  assert.match(await unknownAlert.textContent(), /No campaign is called “no-such-campaign”/);
  const partialAlert = page.locator("#partial [role=alert]");
  await partialAlert.waitFor();
  assert.equal(await partialAlert.textContent(), "Missing attributes: app-id, base-url.");
});
