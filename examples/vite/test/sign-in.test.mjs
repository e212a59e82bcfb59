// The built app (dist/, served by the companion on its own origin) in headless Chromium:
// the campaign from the sandbox, then a sign-in by pop-up through the sandbox's real login and
// consent pages and the companion's code exchange. Run it under `fundraising-sandbox exec`
// (npm test), which exports FUNDRAISING_COMPANION_URL.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const site = process.env.FUNDRAISING_COMPANION_URL;
let browser;

before(async () => {
  assert.ok(site, "FUNDRAISING_COMPANION_URL is not set: run under fundraising-sandbox exec --companion");
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
});

after(async () => {
  await browser?.close();
});

test("the page shows the campaign and signs in through the companion", async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${site}/`);
  await page.getByText("Demo Campaign: Clean Water for Everyone").waitFor({ timeout: 15_000 });
  assert.match(await page.locator("#raised").textContent(), /raised of 10000/);
  await page.getByText("Signed out").waitFor();

  const popupOpened = page.waitForEvent("popup");
  await page.click("#sign-in");
  const popup = await popupOpened;
  await popup.fill("input[name=username]", "demo@example.org");
  await popup.fill("input[name=password]", "demo-password");
  await popup.press("input[name=password]", "Enter");
  await popup.click("[name=allow]");
  await page.getByText("Signed in as Demo Fundraiser").waitFor({ timeout: 15_000 });
  assert.deepEqual(errors, []);
});
