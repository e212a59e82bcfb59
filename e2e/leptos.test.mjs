// End-to-end test of the Leptos example (examples/leptos, built by scripts/leptos-example.sh),
// a Rust app on the typed API, served by its own companion (FUNDRAISING_LEPTOS_COMPANION_URL): it shows
// the demo campaign, signs in by pop-up through the real login and consent pages (by redirect
// when the browser blocks the pop-up), lists every fundraising page of event 1001, and signs
// out. Its session across reloads and tabs: session-restore.test.mjs.
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  USER, browserTests, consoleErrors, loginAndConsent, rawCampaign, servers, signInByRedirect,
} from "./harness.mjs";

const env = servers();
const leptosUrl = process.env.FUNDRAISING_LEPTOS_COMPANION_URL;
const it = browserTests({ timeout: 90_000 });

describe("the Leptos example", () => {
  it("shows the campaign, signs in by pop-up, lists the 250 pages of event 1001 and signs out", async ({ page }) => {
    assert.ok(leptosUrl, "FUNDRAISING_LEPTOS_COMPANION_URL is not set: run inside scripts/with-servers.sh");
    const built = await fetch(`${leptosUrl}/pkg/fundraising_leptos_example.js`);
    assert.equal(built.status, 200, "the example is not built: run scripts/leptos-example.sh");
    const errors = consoleErrors(page);
    await page.goto(`${leptosUrl}/`);

    const raw = await rawCampaign(env);
    const campaign = page.getByTestId("campaign");
    await campaign.locator("h2").waitFor();
    assert.equal(await campaign.locator("h2").textContent(), raw.Title);
    const summary = raw.DonationSummary;
    const symbol = raw.Currency.CurrencySymbol;
    assert.equal(
      await page.getByTestId("progress").textContent(),
      `${symbol}${summary.TotalAmount.toFixed(2)} raised of ${symbol}${raw.TargetAmount.toFixed(2)}`,
    );

    // Sign in: the pop-up opens from the click; the same app, loaded in it as the registered
    // home page, hands the callback over and closes.
    const popupOpened = page.waitForEvent("popup");
    await page.getByRole("button", { name: "Sign in" }).click();
    const popup = await popupOpened;
    // While the sign-in runs, a second click cannot start another.
    await page.locator("#sign-in[disabled]").waitFor();
    await loginAndConsent(popup);
    if (!popup.isClosed()) await popup.waitForEvent("close");
    await page.getByTestId("signed-in").waitFor();
    assert.equal(await page.getByTestId("signed-in").textContent(), `Signed in as ${USER.name}`);

    await page.getByRole("button", { name: "List the pages" }).click();
    await page.getByTestId("page-count").waitFor();
    assert.equal(await page.getByTestId("page-count").textContent(), "250 pages");
    const titles = await page.getByTestId("pages").locator("li").allTextContents();
    assert.equal(titles.length, 10);
    assert.match(titles[0], /#1$/);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    assert.equal(await page.getByTestId("signed-in").count(), 0);
    errors.check();
  });

  it("when the browser blocks the pop-up, signs in by redirect and comes back signed in", async ({ page }) => {
    const errors = consoleErrors(page);
    await page.goto(`${leptosUrl}/`);
    await page.locator("[data-session=signedOut]").waitFor();
    await signInByRedirect(page, { appUrl: leptosUrl, authUrl: env.authUrl });
    assert.equal(await page.getByTestId("signed-in").textContent(), `Signed in as ${USER.name}`);
    assert.equal(await page.locator("[role=alert]").count(), 0);
    errors.check();
  });
});
