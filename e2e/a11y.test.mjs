// Accessibility (axe-core: no serious or critical violation), a clean console under the
// companion's Content-Security-Policy, and a 390 px wide layout where nothing overflows its card:
// the demo signed out and signed in, the widget pages (widget.html, brands.html, the donation
// page) and a partner's pages with the elements, in English and Welsh, in the light and the
// dark colour scheme, in headless Chromium.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import {
  axeSeriousViolations, browserTests, consoleErrors, openDemo, overflowingChildren, servers, signInByPopup,
  stageDonation,
} from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/**
 * Every page with the elements, each with what to wait for before measuring: a partner's
 * pages (English, Welsh, branded, the thank-you page with a confirmed donation), the demo with
 * a confirmed donation (its elements also in Welsh), the widget page, the two brands side by
 * side (English and Welsh) and the sandbox's donation page.
 */
async function elementPages() {
  const reference = await stageDonation(env, {
    amount: "12.50", currency_code: "GBP", donor_display_name: "Kim", message: "Well done!", share_message: true,
    appears_after_secs: 0, final_after_secs: 0, final_status: "Accepted",
  });
  const card = "fundraising-campaign [part=donate]";
  return [
    { name: "partner page (en)", url: `${partner.origin}/`, ready: [card] },
    { name: "partner page (cy)", url: `${partner.origin}/cy`, ready: [card] },
    { name: "branded partner page", url: `${partner.origin}/brand`, ready: [card] },
    { name: "partner thank-you page (en)", url: `${partner.origin}/thanks?donation=${reference}`, ready: ["fundraising-donation [data-state=confirmed]"] },
    { name: "partner thank-you page (cy)", url: `${partner.origin}/thanks?donation=${reference}`, lang: "cy", ready: ["fundraising-donation [data-state=confirmed]"] },
    { name: "the demo (en)", url: `${env.companionUrl}/?donation=${reference}`,
      ready: ["body[data-ready=true]", "#campaign [part=donate]", "#donation-return [data-state=confirmed]"] },
    { name: "the demo's elements in Welsh", url: `${env.companionUrl}/?donation=${reference}`, lang: "cy",
      ready: ["body[data-ready=true]", "#campaign [part=donate]", "#donation-return [data-state=confirmed]"] },
    { name: "partner event page (en)", url: `${partner.origin}/event?page-url=${encodeURIComponent("https://www.example.org/fundraising/{pageShortName}")}`,
      ready: ["fundraising-event [part=more]"] },
    { name: "partner event page (cy, limited)", url: `${partner.origin}/event?limit=100&page-lang=cy`, ready: ["fundraising-event [part=note]"] },
    { name: "partner card of an ended campaign", url: `${partner.origin}/card?campaign=demo-campaign-ended`,
      ready: ["fundraising-campaign [part=card][data-giving=ended]"] },
    { name: "widget.html", url: `${env.companionUrl}/widget.html`, ready: ["fundraising-campaign [role=progressbar]"] },
    { name: "event.html", url: `${env.companionUrl}/event.html`, ready: ["fundraising-event [part=more]"] },
    { name: "brands.html (en and cy)", url: `${env.companionUrl}/brands.html?donation=${reference}`,
      ready: ["#riverside [part=donate]", "#harbour [part=donate]", "#thanks [data-state=confirmed]"] },
    { name: "donate.html", url: `${env.companionUrl}/donate.html?reference=${reference}-x&return=${encodeURIComponent(`${partner.origin}/thanks`)}`,
      ready: ["body[data-ready=true]"] },
  ];
}

/** Opens `entry` and waits for it to be ready. */
async function open(page, entry) {
  await page.goto(entry.url);
  if (entry.lang) await page.evaluate((lang) => { document.documentElement.lang = lang; }, entry.lang);
  for (const selector of entry.ready) await page.locator(selector).waitFor({ timeout: 30_000 });
}

/** Opens the demo with every section filled: the card, a donation, the pages table. */
async function filledDemo(page) {
  await openDemo(page, env.companionUrl);
  await page.locator("#campaign [role=progressbar]").waitFor();
  await page.locator("#pages-position[data-page='1']").waitFor();
  await page.locator("#donation-form button[type=submit]").click();
  await page.locator("#donation-facts").waitFor();
}

/** The demo's own pages carry the companion's CSP: strict, no inline script or style. */
function assertStrictCsp(response) {
  const csp = response.headers()["content-security-policy"] ?? "";
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.match(csp, /style-src 'self'/);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
}

it("the demo signed out: no serious or critical axe violation, no console error", async ({ page }) => {
  const problems = consoleErrors(page);
  const response = await page.goto(`${env.companionUrl}/`);
  assertStrictCsp(response);
  await filledDemo(page);
  assert.equal(await page.locator("body").getAttribute("data-signed-in"), "false");
  assert.deepEqual(await axeSeriousViolations(page), []);
  problems.check();
});

it("the demo signed in: no serious or critical axe violation, no console error", async ({ page }) => {
  const problems = consoleErrors(page);
  await filledDemo(page);
  await signInByPopup(page);
  await page.locator("#signed-in").waitFor();
  await page.locator("#donation-result [data-field=message]").waitFor();
  // A registered event's answer is on show too.
  const form = page.locator("#event-form");
  await form.locator("[name=name]").fill(`A11y walk ${Date.now()}`);
  await form.locator("[name=eventType]").selectOption("Walks");
  await form.locator("[name=startDate]").fill("2026-06-01");
  await form.locator("[name=completionDate]").fill("2026-06-02");
  await form.locator("[name=expiryDate]").fill("2026-12-31");
  await form.locator("button[type=submit]").click();
  await page.locator("#event-created").waitFor();
  assert.deepEqual(await axeSeriousViolations(page), []);
  problems.check();
});

it("the fundraising pages table scrolls by keyboard: its scroll container is focusable and named", async ({ page }) => {
  await filledDemo(page);
  const wrap = page.locator("#pages-view .table-wrap");
  const info = await wrap.evaluate((node) => ({
    scrolls: node.scrollWidth > node.clientWidth || node.scrollHeight > node.clientHeight,
    tabIndex: node.tabIndex,
    role: node.getAttribute("role"),
  }));
  assert.equal(info.scrolls, true, "the table is larger than its container at 1280 px");
  assert.equal(info.tabIndex, 0);
  assert.equal(info.role, "region");
  // Tab from the last control before it reaches the container, whose name is the section's.
  await page.locator("#pages-next").focus();
  await page.keyboard.press("Tab");
  assert.equal(await wrap.evaluate((node) => node === document.activeElement), true);
  const before = await wrap.evaluate((node) => node.scrollTop);
  await page.keyboard.press("PageDown");
  await page.waitForFunction((start) => document.querySelector("#pages-view .table-wrap").scrollTop > start, before);
  const snapshot = await page.locator("#pages-view").ariaSnapshot();
  assert.match(snapshot, /region "Fundraising pages of an event"/);
});

it("the widget page: no serious or critical axe violation, no console error", async ({ page }) => {
  const problems = consoleErrors(page);
  const response = await page.goto(`${env.companionUrl}/widget.html`);
  assertStrictCsp(response);
  await page.locator("fundraising-campaign [role=progressbar]").waitFor();
  assert.deepEqual(await axeSeriousViolations(page), []);
  problems.check();
});

it("the demo at 390 px: nothing overflows its card, and the page does not scroll sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await filledDemo(page);
  const measured = await overflowingChildren(page, ".panel, .card");
  assert.ok(measured.cards >= 5, `cards measured: ${measured.cards}`);
  assert.deepEqual(measured.problems, []);
  assert.ok(measured.documentOverflow <= 0, `the page scrolls sideways by ${measured.documentOverflow}px`);
});

it("the widget page at 390 px: nothing overflows the card", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${env.companionUrl}/widget.html`);
  await page.locator("fundraising-campaign [role=progressbar]").waitFor();
  const measured = await overflowingChildren(page, ".card");
  assert.equal(measured.cards, 1);
  assert.deepEqual(measured.problems, []);
  assert.ok(measured.documentOverflow <= 0, `the page scrolls sideways by ${measured.documentOverflow}px`);
});

for (const scheme of ["light", "dark"]) {
  it(`every page with the elements, in the ${scheme} colour scheme: no serious or critical axe violation, no console error`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const found = {};
    for (const entry of await elementPages()) {
      const problems = consoleErrors(page);
      await open(page, entry);
      found[entry.name] = await axeSeriousViolations(page);
      problems.check();
    }
    assert.deepEqual(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0)), {});
    assert.deepEqual(partner.reports, [], "CSP violation reports");
  });
}

it("every page with the elements at 390 px: nothing overflows a card, no page scrolls sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const found = {};
  for (const entry of await elementPages()) {
    await open(page, entry);
    const measured = await overflowingChildren(page, ".card, .box, .brand, .panel, .state");
    if (measured.problems.length > 0 || measured.documentOverflow > 0) found[entry.name] = measured;
  }
  assert.deepEqual(found, {});
});
