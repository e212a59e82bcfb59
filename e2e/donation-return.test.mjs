// End-to-end tests of the donation journey in headless Chromium: the campaign card's Donate
// link (a fresh reference from the package), the sandbox's donation page (www/demo/donate.html,
// standing in for the donation site: it stages the donation in the real sandbox through
// POST {base_url}/_sandbox/staged-donations and sends the donor back), and the
// <fundraising-donation reference-param="donation"> element (www/widgets/donation-return.js) waiting
// for the donation and thanking the donor; on the demo and on a partner's site on another origin.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { mkdirSync } from "node:fs";
import { ARTIFACTS, axeSeriousViolations, browserTests, consoleErrors, DONATION, money, openDemo, servers, stageDonation } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";

/** What a reference from the package looks like: long, random, and a plain path segment. */
const REFERENCE = /^[A-Za-z0-9_-]{16,}$/;

const env = servers();
const it = browserTests({ timeout: 90_000 });

/**
 * Records, from before the page's own scripts run, the element's events on document and every
 * state its status region goes through (in order, without repeats).
 */
async function recordElement(page) {
  await page.addInitScript(() => {
    const log = { settled: [], errors: [], states: [] };
    globalThis.__donationLog = log;
    document.addEventListener("fundraising-donation-settled", (e) => log.settled.push(e.detail.status));
    document.addEventListener("fundraising-error", (e) => log.errors.push(e.detail?.code ?? String(e.detail)));
    const seen = (status) => {
      const state = `${status.dataset.state}${status.querySelector("[data-field=waiting]")?.textContent.includes("processed") ? ":pending" : ""}`;
      if (log.states.at(-1) !== state) log.states.push(state);
    };
    const watching = new WeakSet();
    const watch = () => {
      const status = document.querySelector("fundraising-donation")?.shadowRoot?.querySelector("[part=status]");
      if (!status || watching.has(status)) return;
      watching.add(status);
      seen(status);
      new MutationObserver(() => seen(status)).observe(status, { subtree: true, childList: true, attributes: true, characterData: true });
    };
    new MutationObserver(watch).observe(document, { subtree: true, childList: true });
  });
  return { read: () => page.evaluate(() => structuredClone(globalThis.__donationLog)) };
}

/**
 * Asserts the page logged no error but Chromium's own line for each 404 of a poll of the
 * reference (the expected answer while the service does not know the donation yet).
 */
function checkConsole(errors, reference) {
  const url = `${env.baseUrl}/${env.appId}/v1/donation/ref/${reference}`;
  const expected = `console.error: Failed to load resource: the server responded with a status of 404 (Not Found) (${url})`;
  assert.deepEqual(errors.errors.filter((line) => line !== expected), [], "the page logged errors");
}

/** Polls of `GET …/donation/ref/{reference}` by the page, as the statuses of their answers. */
function donationAnswers(page, reference) {
  const answers = [];
  page.on("response", (r) => {
    if (new URL(r.url()).pathname.endsWith(`/donation/ref/${encodeURIComponent(reference)}`)) answers.push(r.status());
  });
  return answers;
}

describe("donation return", () => {
  it("the demo's journey: Donate on the card, the sandbox's donation page, back to the demo, thanked with £12.50 and the message", async ({ page }) => {
    const errors = consoleErrors(page);
    const log = await recordElement(page);
    await openDemo(page, env.companionUrl);
    const element = page.locator("#donation-return");
    // No reference in the address: the element shows nothing.
    assert.equal(await element.locator("[part=status]").getAttribute("data-state"), "idle");
    assert.equal(await element.locator("[part=status]").textContent(), "");

    const donate = page.locator("#campaign [part=donate]");
    await donate.waitFor();
    assert.equal(await donate.textContent(), "Donate");
    const target = new URL(await donate.getAttribute("href"));
    assert.equal(target.origin + target.pathname, `${env.companionUrl}/donate.html`);
    const reference = target.searchParams.get("reference");
    assert.match(reference, REFERENCE);
    assert.equal(target.searchParams.get("return"), `${env.companionUrl}/?donation=${reference}`);
    const announced = page.evaluate(() => new Promise((resolve) => {
      document.addEventListener("fundraising-donate", (e) => resolve(e.detail), { once: true });
    }));
    await donate.click();
    const detail = await announced;
    assert.deepEqual({ reference: detail.reference, url: detail.url }, { reference, url: target.href });
    assert.equal(detail.campaign.shortName, "demo-campaign");
    assert.deepEqual(detail.attribution, {}, "nothing carried without carry-attribution");

    // The donation site (the sandbox's page) has the reference and makes the donation.
    await page.waitForURL((url) => url.pathname === "/donate.html");
    await page.locator("body[data-ready=true]").waitFor();
    assert.equal(await page.locator("#donate-reference").textContent(), reference);
    await page.locator("select[name=outcome]").selectOption("Accepted");
    const staged = page.waitForResponse((r) => r.url() === `${env.baseUrl}/_sandbox/staged-donations`);
    await page.locator("#donate-form button[type=submit]").click();
    assert.equal((await staged).status(), 201);

    // Back on the demo with ?donation=<reference>: the element waits, then thanks the donor.
    await page.waitForURL((url) => url.pathname === "/" && url.searchParams.get("donation") === reference);
    await page.locator("body[data-ready=true]").waitFor();
    const status = page.locator("#donation-return [part=status]");
    assert.equal(await status.getAttribute("role"), "status");
    assert.equal(await status.getAttribute("aria-live"), "polite");
    await page.locator("#donation-return [part=status][data-state=confirmed]").waitFor({ timeout: 30_000 });
    assert.equal(await element.locator("[data-field=amount]").textContent(), "£12.50");
    assert.equal(await element.locator("[data-field=amount]").textContent(), money("12.50", "GBP"));
    assert.equal(await element.locator("[data-field=message]").textContent(), "Well done!");
    assert.equal(await element.locator("[part=title]").textContent(), "Thank you, Kim!");
    assert.equal(await element.getAttribute("aria-busy"), null);

    const seen = await log.read();
    assert.ok(seen.states.includes("waiting"), `states: ${seen.states}`);
    assert.equal(seen.states.at(-1), "confirmed");
    assert.deepEqual(seen.settled, ["Accepted"]);
    assert.deepEqual(seen.errors, []);
    // The service has the donation under the reference the card made.
    const raw = await fetch(`${env.baseUrl}/${env.appId}/v1/donation/ref/${reference}`);
    assert.equal((await raw.json()).status, "Accepted");

    assert.deepEqual(await axeSeriousViolations(page), [], "axe: the demo with a confirmed donation");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator("section[aria-labelledby=return-heading]").screenshot({ path: `${ARTIFACTS}donation-return.png` });
    checkConsole(errors, reference);
  });

  it("a partner's card on another origin: each Donate gets a fresh reference, and the donor lands thanked on the partner's page", async ({ page }) => {
    const errors = consoleErrors(page);
    const partner = await startPartnerSite(env);
    try {
      await page.goto(`${partner.origin}/`);
      const donate = page.locator("fundraising-campaign [part=donate]");
      await donate.waitFor();
      const first = new URL(await donate.getAttribute("href")).searchParams.get("reference");
      assert.match(first, REFERENCE);
      // A partner may take the journey over: cancelling fundraising-donate keeps the donor here,
      // and the used reference is replaced by a fresh one.
      await page.evaluate(() => {
        document.addEventListener("fundraising-donate", (e) => e.preventDefault(), { once: true });
      });
      await donate.click();
      await page.waitForFunction((used) => {
        const link = document.querySelector("fundraising-campaign").shadowRoot.querySelector("[part=donate]");
        return new URL(link.href).searchParams.get("reference") !== used;
      }, first);
      assert.equal(new URL(page.url()).origin, partner.origin);
      const target = new URL(await donate.getAttribute("href"));
      const reference = target.searchParams.get("reference");
      assert.match(reference, REFERENCE);
      assert.notEqual(reference, first);
      assert.equal(target.searchParams.get("return"), `${partner.origin}/thanks?donation=${reference}`);

      await donate.click();
      await page.waitForURL((url) => url.origin === env.companionUrl && url.pathname === "/donate.html");
      await page.locator("body[data-ready=true]").waitFor();
      assert.equal(await page.locator("#donate-reference").textContent(), reference);
      await page.locator("#donate-form button[type=submit]").click();

      await page.waitForURL((url) => url.origin === partner.origin && url.pathname === "/thanks");
      assert.equal(new URL(page.url()).searchParams.get("donation"), reference);
      const element = page.locator("fundraising-donation");
      await element.locator("[part=status][data-state=confirmed]").waitFor({ timeout: 30_000 });
      assert.equal(await element.locator("[data-field=amount]").textContent(), "£12.50");
      assert.equal(await element.locator("[part=title]").textContent(), "Thank you, Kim!");
      assert.deepEqual(await axeSeriousViolations(page), [], "axe: the partner's thank-you page");
      assert.deepEqual(partner.reports, [], "CSP violation reports");
      checkConsole(errors, reference);
    } finally {
      await partner.close();
    }
  });

  it("waits through 404 and Pending, then shows the confirmed amount and message", async ({ page }) => {
    const errors = consoleErrors(page);
    const log = await recordElement(page);
    // Unknown for 3 s: long enough for the page to load and show the waiting state first, even
    // on a busy machine (with 1 s, a slow load could miss it and see Pending already).
    const reference = await stageDonation(env, { ...DONATION, appears_after_secs: 3, final_after_secs: 7, final_status: "Accepted" });
    const answers = donationAnswers(page, reference);
    await page.goto(`${env.companionUrl}/?donation=${encodeURIComponent(reference)}`);
    const element = page.locator("#donation-return");
    await element.locator("[part=status][data-state=waiting]").waitFor();
    assert.match(await element.locator("[data-field=waiting]").textContent(), /Waiting for your donation/);
    assert.equal(await element.getAttribute("aria-busy"), "true");
    assert.equal(await element.locator("[part=reference]").textContent(), `Reference: ${reference}`);
    // Pending: still waiting, in other words.
    await element.locator("[data-field=waiting]", { hasText: "being processed" }).waitFor({ timeout: 15_000 });
    assert.equal(await element.locator("[part=status]").getAttribute("data-state"), "waiting");
    // Axe on the waiting state.
    assert.deepEqual(await axeSeriousViolations(page), [], "axe: the demo with a donation on its way");

    await element.locator("[part=status][data-state=confirmed]").waitFor({ timeout: 30_000 });
    assert.equal(await element.locator("[data-field=amount]").textContent(), "£12.50");
    assert.equal(await element.locator("[data-field=message]").textContent(), "Well done!");

    assert.equal(answers[0], 404, `answers: ${answers}`);
    assert.equal(answers.at(-1), 200);
    const seen = await log.read();
    assert.deepEqual(seen.states.slice(-3), ["waiting", "waiting:pending", "confirmed"], `states: ${seen.states}`);
    assert.deepEqual(seen.settled, ["Accepted"]);
    assert.deepEqual(await axeSeriousViolations(page), [], "axe: the confirmed donation");
    checkConsole(errors, reference);
  });

  it("a donation that ends Rejected shows 'not completed'; changing the reference attribute starts over", async ({ page }) => {
    const log = await recordElement(page);
    const unknown = `e2e-unknown-${crypto.randomUUID()}`;
    const rejected = await stageDonation(env, { ...DONATION, appears_after_secs: 0, final_after_secs: 1, final_status: "Rejected" });
    const unknownAnswers = donationAnswers(page, unknown);
    await page.goto(`${env.companionUrl}/?donation=${encodeURIComponent(unknown)}`);
    const element = page.locator("#donation-return");
    await element.locator("[part=status][data-state=waiting]").waitFor();
    await element.evaluate((node, reference) => node.setAttribute("reference", reference), rejected);

    await element.locator("[part=status][data-state=not-completed]").waitFor({ timeout: 20_000 });
    assert.equal(await element.locator("[part=title]").textContent(), "Your donation was not completed");
    assert.equal(await element.locator("[data-field=reason]").getAttribute("data-status"), "Rejected");
    assert.match(await element.locator("[data-field=reason]").textContent(), /declined/);
    assert.equal(await element.locator("[part=reference]").textContent(), `Reference: ${rejected}`);
    assert.equal(await element.locator("[data-field=amount]").count(), 0);
    assert.deepEqual(await axeSeriousViolations(page), [], "axe: a donation not completed");

    // It was waiting for the first reference (polled at least once) before the change.
    assert.ok(unknownAnswers.length >= 1 && unknownAnswers.every((s) => s === 404), `answers: ${unknownAnswers}`);
    const seen = await log.read();
    assert.deepEqual(seen.settled, ["Rejected"]);
    assert.deepEqual(seen.errors, []);
    assert.equal(seen.states.at(-1), "not-completed");
  });

  it("an unknown reference with a short timeout-ms shows the timeout state and fires fundraising-error", async ({ page }) => {
    const log = await recordElement(page);
    const unknown = `e2e-unknown-${crypto.randomUUID()}`;
    const answers = donationAnswers(page, unknown);
    await page.goto(`${env.companionUrl}/?donation=${encodeURIComponent(unknown)}`);
    const element = page.locator("#donation-return");
    await element.locator("[part=status][data-state=waiting]").waitFor();
    await element.evaluate((node) => node.setAttribute("timeout-ms", "1500"));

    const error = element.locator("[part=error]");
    await error.waitFor({ timeout: 20_000 });
    assert.equal(await error.getAttribute("data-code"), "timeout");
    assert.equal(await element.locator("[part=status]").getAttribute("data-state"), "error");
    assert.match(await element.locator("[part=title]").textContent(), /not confirmed yet/);
    assert.equal(await element.locator("[part=reference]").textContent(), `Reference: ${unknown}`);
    assert.equal(await element.getAttribute("aria-busy"), null);
    assert.ok(answers.length >= 2 && answers.every((s) => s === 404), `answers: ${answers}`);
    const seen = await log.read();
    assert.deepEqual(seen.errors, ["timeout"]);
    assert.deepEqual(seen.settled, []);
    assert.deepEqual(await axeSeriousViolations(page), [], "axe: the timeout state");

    // Missing attributes are an error too, said plainly (loading="eager": the element goes to
    // the end of the page, out of sight).
    const missing = await page.evaluate(() => new Promise((resolve) => {
      const node = document.createElement("fundraising-donation");
      node.setAttribute("loading", "eager");
      node.setAttribute("reference", "anything");
      node.addEventListener("fundraising-error", (e) => resolve({
        message: e.detail.message,
        text: node.shadowRoot.querySelector("[data-field=error]").textContent,
        state: node.shadowRoot.querySelector("[part=status]").dataset.state,
      }));
      document.body.append(node);
    }));
    assert.equal(missing.state, "error");
    assert.equal(missing.text, "Missing attributes: app-id, base-url.");
  });

  it("removing the element from the page aborts its wait", async ({ page }) => {
    const kept = `e2e-unknown-kept-${crypto.randomUUID()}`;
    const removed = `e2e-unknown-removed-${crypto.randomUUID()}`;
    const keptAnswers = donationAnswers(page, kept);
    const removedRequests = [];
    let held;
    const heldRoute = new Promise((resolve) => { held = resolve; });
    // Hold the removed element's first poll in flight until the element is gone.
    await page.route(`${env.baseUrl}/**/donation/ref/${removed}`, async (route) => {
      removedRequests.push(Date.now());
      if (removedRequests.length === 1) held(route);
      else await route.continue();
    });
    await page.goto(`${env.companionUrl}/?donation=${encodeURIComponent(kept)}`);
    await page.locator("#donation-return [part=status][data-state=waiting]").waitFor();
    await page.evaluate(({ appId, baseUrl, reference }) => {
      const node = document.createElement("fundraising-donation");
      node.id = "second";
      node.setAttribute("loading", "eager"); // at the end of the page, out of sight
      node.setAttribute("app-id", appId);
      node.setAttribute("base-url", baseUrl);
      node.setAttribute("reference", reference);
      document.body.append(node);
    }, { appId: env.appId, baseUrl: env.baseUrl, reference: removed });
    const route = await heldRoute;
    await page.evaluate(() => document.getElementById("second").remove());
    // Release the held poll: an aborted fetch ignores it; a wait that was not aborted would get
    // its 404 and poll again within a second.
    await route.continue().catch(() => {});
    const from = keptAnswers.length;
    // The kept element polls on; four more of its polls take at least 3.5 s (backoff).
    const deadline = Date.now() + 30_000;
    while (keptAnswers.length < from + 4) {
      assert.ok(Date.now() < deadline, `the kept element stopped polling (${keptAnswers.length} answers)`);
      await page.waitForResponse((r) => r.url().includes(`/donation/ref/${kept}`), { timeout: 15_000 });
    }
    assert.equal(removedRequests.length, 1, "the removed element polled again");
  });

  it("a partner's thank-you page on another origin, under the strict CSP, thanks the donor", async ({ page }) => {
    const errors = consoleErrors(page);
    const reference = await stageDonation(env, { ...DONATION, appears_after_secs: 0, final_after_secs: 1, final_status: "Accepted" });
    const partner = await startPartnerSite(env);
    try {
      assert.notEqual(partner.origin, new URL(env.companionUrl).origin);
      const response = await page.goto(`${partner.origin}/thanks?donation=${encodeURIComponent(reference)}`);
      const csp = response.headers()["content-security-policy"];
      assert.equal(csp, partner.csp);
      assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
      const element = page.locator("fundraising-donation");
      await element.locator("[part=status][data-state=confirmed]").waitFor({ timeout: 30_000 });
      assert.equal(await element.locator("[data-field=amount]").textContent(), "£12.50");
      assert.equal(await element.locator("[data-field=message]").textContent(), "Well done!");
      assert.deepEqual(await axeSeriousViolations(page), [], "axe: the partner's thank-you page");
      assert.deepEqual(partner.reports, [], "CSP violation reports");
      checkConsole(errors, reference);
    } finally {
      await partner.close();
    }
  });
});
