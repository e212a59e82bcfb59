// Accessibility (axe-core: no serious or critical violation), a clean console under the
// companion's Content-Security-Policy, and a 390 px wide layout where nothing overflows its card:
// the demo signed out and signed in, and the widget page, in headless Chromium.
import assert from "node:assert/strict";
import {
  axeSeriousViolations, browserTests, consoleErrors, openDemo, overflowingChildren, servers, signInByPopup,
} from "./harness.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

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
