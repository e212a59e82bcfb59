// The built app (dist/, served by the companion on its own origin) in headless Chromium:
// the campaign from the sandbox, a sign-in by pop-up through the sandbox's real login and
// consent pages and the companion's code exchange, then a reload that restores the session
// with no second sign-in. The pop-up only hands its callback over: it calls neither the
// resource API nor the companion. Run it under `fundraising-sandbox exec` (npm test), which
// exports FUNDRAISING_COMPANION_URL and FUNDRAISING_BASE_URL.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const site = process.env.FUNDRAISING_COMPANION_URL;
const api = process.env.FUNDRAISING_BASE_URL;
let browser;

before(async () => {
  assert.ok(site, "FUNDRAISING_COMPANION_URL is not set: run under fundraising-sandbox exec --companion");
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
});

after(async () => {
  await browser?.close();
});

test("the page shows the campaign, signs in through the companion, and is still signed in after a reload", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${site}/`);
  await page.getByText("Demo Campaign: Clean Water for Everyone").waitFor({ timeout: 15_000 });
  assert.match(await page.locator("#raised").textContent(), /raised of 10000/);
  await page.getByText("Signed out").waitFor();

  const popupOpened = page.waitForEvent("popup");
  await page.click("#sign-in");
  const popup = await popupOpened;
  const popupCalls = [];
  popup.on("request", (request) => {
    const url = request.url();
    if (url.startsWith(`${api}/`) || url.startsWith(`${site}/auth/`)) popupCalls.push(url);
  });
  await popup.fill("input[name=username]", "demo@example.org");
  await popup.fill("input[name=password]", "demo-password");
  await popup.press("input[name=password]", "Enter");
  await popup.click("[name=allow]");
  await page.getByText("Signed in as Demo Fundraiser").waitFor({ timeout: 15_000 });
  if (!popup.isClosed()) await popup.waitForEvent("close");
  assert.deepEqual(popupCalls, [], "the pop-up called the resource API or the companion");

  // A reload: the companion's cookie still holds the session, and the page restores it.
  let popups = 0;
  context.on("page", () => popups++);
  await page.reload();
  await page.getByText("Signed in as Demo Fundraiser").waitFor({ timeout: 15_000 });
  assert.equal(popups, 0, "the reload opened a sign-in");
  assert.equal(await page.locator("#sign-in").isHidden(), true);
  assert.deepEqual(errors, []);
});
