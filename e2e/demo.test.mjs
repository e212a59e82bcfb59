// End-to-end tests of the demo site (www/demo/index.html) in headless Chromium against the real
// sandbox and companion started by scripts/with-servers.sh.
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  USER, browserTests, keepScreenshot, money, openDemo, rawCampaign, servers, signInByPopup, signInByRedirect,
} from "./harness.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

/** The donors' messages of the sandbox's seed donations. */
const SEED_MESSAGES = {
  "demo-ref-1": "Good luck on race day, we are all cheering for you!",
  "demo-ref-2": "Go go go! Proud of you.",
};

describe("sign-in", () => {
  it("signs in by pop-up through the real login and consent pages, shows the name, keeps it over a reload, signs out", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    assert.equal(await page.locator("body").getAttribute("data-signed-in"), "false");
    await signInByPopup(page);
    await page.locator("#signed-in").waitFor();
    assert.equal(await page.locator("#user-name").textContent(), USER.name);
    assert.equal(await page.locator("#sign-in").isVisible(), false);
    assert.equal(await page.locator("#auth-message").isVisible(), false);

    const companionSession = () => page.evaluate(async () => (await fetch("/auth/session", { credentials: "include" })).json());
    assert.equal((await companionSession()).active, true);

    // A reload keeps the user signed in: a new access token comes through the companion's cookie.
    const refreshed = page.waitForResponse((r) => r.url() === `${env.companionUrl}/auth/refresh`);
    await openDemo(page, env.companionUrl);
    assert.equal((await refreshed).status(), 200);
    assert.equal(await page.locator("#user-name").textContent(), USER.name);

    await page.locator("#sign-out").click();
    await page.locator("#sign-in").waitFor();
    assert.equal(await page.locator("#signed-in").isVisible(), false);
    assert.equal(await page.locator("#user-name").textContent(), "");
    assert.equal(await page.locator("body").getAttribute("data-signed-in"), "false");
    // The companion's refreshable session is gone too, so a reload stays signed out.
    assert.equal((await companionSession()).active, false);
    await openDemo(page, env.companionUrl);
    assert.equal(await page.locator("body").getAttribute("data-signed-in"), "false");
    assert.equal(await page.locator("#sign-in").isVisible(), true);
  });

  it("a denied consent shows a clear message and stays signed out", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    await signInByPopup(page, "deny");
    const banner = page.locator("#auth-message");
    await banner.waitFor();
    assert.match(await banner.textContent(), /did not allow/);
    assert.equal(await banner.getAttribute("data-kind"), "error");
    assert.equal(await page.locator("#signed-in").isVisible(), false);
    assert.equal(await page.locator("#sign-in").isEnabled(), true);
  });

  it("a pop-up closed before finishing shows a clear message", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    const popupOpened = page.waitForEvent("popup");
    await page.locator("#sign-in").click();
    const popup = await popupOpened;
    await popup.locator("input[name=username]").waitFor();
    await popup.close();
    const banner = page.locator("#auth-message");
    await banner.waitFor();
    assert.match(await banner.textContent(), /window was closed/);
    assert.equal(await page.locator("#signed-in").isVisible(), false);
  });

  it("when the pop-up is blocked the redirect flow signs in", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    await signInByRedirect(page, { appUrl: env.companionUrl, authUrl: env.authUrl });
    await page.locator("#signed-in").waitFor();
    assert.equal(await page.locator("#user-name").textContent(), USER.name);
  });
});

describe("campaign card", () => {
  it("shows the seed campaign's title, summary, figures and progress", async ({ page }) => {
    const raw = await rawCampaign(env);
    const summary = raw.DonationSummary;
    assert.equal(raw.Currency.CurrencyCode, "GBP");
    assert.equal(raw.TargetAmount, 10000);

    await openDemo(page, env.companionUrl);
    const card = page.locator("#campaign");
    const bar = card.locator("[role=progressbar]");
    await bar.waitFor();
    assert.equal(await card.locator("h2").textContent(), raw.Title);
    assert.equal(await card.locator(".summary").textContent(), raw.Summary);
    assert.equal(await card.locator("[data-field=raised]").textContent(), money(summary.TotalAmount, "GBP"));
    assert.equal(await card.locator("[data-field=target]").textContent(), money(raw.TargetAmount, "GBP"));
    assert.match(await card.locator("[data-field=raised]").textContent(), /^£/);
    assert.equal(await card.locator("[data-field=donations]").textContent(), `${summary.TotalNumberOfDonations} donations`);
    assert.equal(Number(await bar.getAttribute("aria-valuenow")), Math.min(summary.TotalAmount, raw.TargetAmount));
    assert.equal(Number(await bar.getAttribute("aria-valuemax")), raw.TargetAmount);
    assert.match(await bar.getAttribute("aria-valuetext"), new RegExp(`${money(summary.TotalAmount, "GBP").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} raised`));
  });
});

describe("donation lookup", () => {
  it("demo-ref-1: no message signed out, the message once signed in as the page owner", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    await page.locator("#donation-ref").fill("demo-ref-1");
    await page.locator("#donation-form button[type=submit]").click();
    const facts = page.locator("#donation-facts");
    await facts.waitFor();
    assert.equal(await facts.locator("[data-field=thirdPartyReference]").textContent(), "demo-ref-1");
    assert.equal(await page.locator("#donation-result [data-field=message]").count(), 0);
    assert.equal(await page.locator("#donation-result [data-field=donorRealName]").count(), 0);
    await page.locator("#donation-result [data-field=message-hidden]").waitFor();

    await signInByPopup(page);
    await page.locator("#signed-in").waitFor();
    // Signing in repeats the lookup with the bearer token.
    const message = page.locator("#donation-result [data-field=message]");
    await message.waitFor();
    assert.equal(await message.textContent(), SEED_MESSAGES["demo-ref-1"]);
    assert.equal(await page.locator("#donation-result [data-field=message-hidden]").count(), 0);
    await page.locator("#donation-result [data-field=donorRealName]").waitFor();
  });

  it("demo-ref-2 shows its shared message when signed out; an unknown reference says so", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    await page.locator("#donation-ref").fill("demo-ref-2");
    await page.locator("#donation-form button[type=submit]").click();
    const message = page.locator("#donation-result [data-field=message]");
    await message.waitFor();
    assert.equal(await message.textContent(), SEED_MESSAGES["demo-ref-2"]);
    assert.equal(await page.locator("#donation-result [data-field=donorRealName]").count(), 0);

    await page.locator("#donation-ref").fill("no-such-reference");
    await page.locator("#donation-form button[type=submit]").click();
    const error = page.locator("#donation-result [role=alert]");
    await error.waitFor();
    assert.match(await error.textContent(), /No donation has the reference “no-such-reference”/);
  });
});

describe("event registration", () => {
  it("registers an event and shows its id and address", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    const form = page.locator("#event-form");
    const name = `E2E charity walk ${Date.now()}`;
    await form.locator("[name=name]").fill(name);
    await form.locator("[name=description]").fill("Registered by the end-to-end tests");
    await form.locator("[name=eventType]").selectOption("Walks");
    await form.locator("[name=startDate]").fill("2026-06-01");
    await form.locator("[name=completionDate]").fill("2026-06-02");
    await form.locator("[name=expiryDate]").fill("2026-12-31");
    await form.locator("[name=location]").fill("Leeds");
    await form.locator("button[type=submit]").click();

    const id = page.locator("#event-created [data-field=event-id]");
    await id.waitFor();
    const eventId = Number(await id.textContent());
    assert.ok(Number.isInteger(eventId) && eventId > 0, `event id: ${await id.textContent()}`);
    assert.equal(await page.locator("#event-created [data-field=event-uri]").textContent(),
      `${env.baseUrl}/${env.appId}/v1/event/${eventId}`);
    // The event really exists at the service: its (empty) list of pages answers 200.
    const pages = await fetch(`${env.baseUrl}/${env.appId}/v1/event/${eventId}/pages`);
    assert.equal(pages.status, 200);
    assert.equal((await pages.json()).eventId, eventId);
  });

  it("shows the package's validation messages (missing name, inconsistent dates) and sends nothing", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    const posts = [];
    page.on("request", (r) => { if (r.method() === "POST" && r.url().startsWith(env.baseUrl)) posts.push(r.url()); });
    const form = page.locator("#event-form");
    await form.locator("[name=eventType]").selectOption("Treks");
    await form.locator("button[type=submit]").click();
    const error = page.locator("#event-error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "invalid_argument");
    assert.match(await error.textContent(), /name/i);
    assert.equal(await form.locator("[name=name]").getAttribute("aria-invalid"), "true");

    // Dates that contradict each other: finished before it started.
    await form.locator("[name=name]").fill("Backwards trek");
    await form.locator("[name=startDate]").fill("2026-06-02");
    await form.locator("[name=completionDate]").fill("2026-06-01");
    await form.locator("button[type=submit]").click();
    await page.locator("#event-error[data-code=invalid_argument]").waitFor();
    assert.match(await page.locator("#event-error").textContent(), /date/i);
    assert.equal(await form.locator("[name=name]").getAttribute("aria-invalid"), null);
    assert.deepEqual(posts, []);
  });
});

describe("fundraising pages of an event", () => {
  it("event 1001 paged to the end gives 250 rows in all", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    const position = page.locator("#pages-position");
    await page.locator("#pages-position[data-page='1']").waitFor();
    assert.equal(await page.locator("#pages-event-id").inputValue(), "1001");
    assert.equal(await page.locator("#pages-summary [data-field=total-pages-count]").textContent(), "250");
    assert.equal(await position.getAttribute("data-total-pages"), "3");
    assert.equal(await page.locator("#pages-prev").isDisabled(), true);

    const ids = new Set();
    let rows = 0;
    for (let wanted = 1; ; wanted += 1) {
      await page.locator(`#pages-position[data-page='${wanted}']`).waitFor();
      const pageIds = await page.locator("#pages-table tbody tr").evaluateAll((trs) => trs.map((tr) => tr.dataset.pageId));
      rows += pageIds.length;
      pageIds.forEach((id) => ids.add(id));
      if (await page.locator("#pages-next").isDisabled()) break;
      assert.ok(wanted < 10, "the Next button never became disabled");
      await page.locator("#pages-next").click();
    }
    assert.equal(rows, 250);
    assert.equal(ids.size, 250, "every page appears once");
    assert.equal(await position.textContent(), "Page 3 of 3");

    await page.locator("#pages-prev").click();
    await page.locator("#pages-position[data-page='2']").waitFor();
    assert.equal(await page.locator("#pages-table tbody tr").count(), 100);
  });

  it("a page size over 100 gives the package's message", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    await page.locator("#pages-position[data-page='1']").waitFor();
    await page.locator("#pages-size").fill("101");
    await page.locator("#pages-form button[type=submit]").click();
    const error = page.locator("#pages-error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "invalid_argument");
  });
});

describe("screenshot", () => {
  it("the whole demo page, signed in, for the closing note (test-artifacts/demo.png)", async ({ page }) => {
    await openDemo(page, env.companionUrl);
    await signInByPopup(page);
    await page.locator("#signed-in").waitFor();
    await page.locator("#donation-form button[type=submit]").click();
    await page.locator("#donation-result [data-field=message]").waitFor();
    await page.locator("#campaign [role=progressbar]").waitFor();
    await page.locator("#pages-position[data-page='1']").waitFor();
    const path = await keepScreenshot(page, "demo.png", { fullPage: true });
    assert.ok(path.endsWith("demo.png"));
  });
});
