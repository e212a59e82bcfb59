// The package's four resource calls from a dedicated module worker (www/demo/resource-worker.js,
// which imports the package from /pkg/) in headless Chromium against the real sandbox: the
// worker posts the results back and the test checks them against the sandbox's seed.
import assert from "node:assert/strict";
import { browserTests, consoleErrors, rawCampaign, servers } from "./harness.mjs";

const env = servers();
const it = browserTests({ timeout: 60_000 });

it("getCampaign, getDonationByReference, createEvent and getEventPages run in a dedicated worker", async ({ page }) => {
  const raw = await rawCampaign(env);
  const rawPages = await (await fetch(`${env.baseUrl}/${env.appId}/v1/event/1001/pages?page=1&pagesize=100`)).json();
  const problems = consoleErrors(page);
  await page.goto(`${env.companionUrl}/widget.html`);

  const workerStarted = page.waitForEvent("worker");
  const eventName = `Worker walk ${Date.now()}`;
  const answers = await page.evaluate(async ({ appId, baseUrl, eventName }) => {
    const worker = new Worker("/resource-worker.js", { type: "module" });
    let next = 0;
    const call = (method, ...args) => new Promise((resolve, reject) => {
      const id = (next += 1);
      const onMessage = ({ data }) => {
        if (data.id !== id) return;
        worker.removeEventListener("message", onMessage);
        resolve(data);
      };
      worker.addEventListener("message", onMessage);
      worker.addEventListener("error", (e) => reject(new Error(`worker error: ${e.message}`)), { once: true });
      worker.postMessage({ id, appId, baseUrl, method, args });
    });
    const campaign = await call("getCampaign", "demo-campaign");
    const donation = await call("getDonationByReference", "demo-ref-2");
    const unknown = await call("getDonationByReference", "no-such-reference");
    const event = await call("createEvent", {
      name: eventName,
      description: "Registered from a web worker by the end-to-end tests",
      eventType: "Walks",
      startDate: new Date("2026-06-01T00:00:00Z"),
      completionDate: new Date("2026-06-02T00:00:00Z"),
      expiryDate: new Date("2026-12-31T00:00:00Z"),
      location: "York",
    });
    const pages = await call("getEventPages", 1001, { page: 1, pageSize: 100 });
    worker.terminate();
    const donationDate = donation.result?.donationDate;
    return {
      campaign, donation, unknown, event, pages,
      donationDateIsDate: donationDate instanceof Date,
    };
  }, { appId: env.appId, baseUrl: env.baseUrl, eventName });

  // It really was a dedicated worker, with no document.
  const worker = await workerStarted;
  assert.equal(new URL(worker.url()).pathname, "/resource-worker.js");

  for (const name of ["campaign", "donation", "event", "pages"]) {
    assert.equal(answers[name].error, undefined, `${name}: ${JSON.stringify(answers[name].error)}`);
  }

  const campaign = answers.campaign.result;
  assert.equal(campaign.title, raw.Title);
  assert.equal(campaign.targetAmount, raw.TargetAmount);
  assert.equal(campaign.donationSummary.totalAmount, raw.DonationSummary.TotalAmount);
  assert.equal(campaign.donationSummary.totalNumberOfDonations, raw.DonationSummary.TotalNumberOfDonations);
  assert.equal(campaign.currency.currencyCode, "GBP");

  const donation = answers.donation.result;
  assert.equal(donation.thirdPartyReference, "demo-ref-2");
  assert.equal(donation.message, "Go go go! Proud of you.");
  assert.equal(answers.donationDateIsDate, true, "dates cross the worker boundary as Date");

  assert.equal(answers.unknown.error.name, "FundraisingError");
  assert.equal(answers.unknown.error.code, "not_found");
  assert.equal(answers.unknown.error.status, 404);

  const created = answers.event.result;
  assert.ok(Number.isInteger(created.id) && created.id > 0, `event id: ${created.id}`);
  assert.equal(created.next.uri, `${env.baseUrl}/${env.appId}/v1/event/${created.id}`);
  const createdPages = await fetch(`${env.baseUrl}/${env.appId}/v1/event/${created.id}/pages`);
  assert.equal(createdPages.status, 200, "the event exists at the service");

  const pages = answers.pages.result;
  assert.equal(pages.eventId, 1001);
  assert.equal(pages.totalFundraisingPages, 250);
  assert.equal(pages.totalPages, 3);
  assert.equal(pages.fundraisingPages.length, 100);
  const rawIds = rawPages.fundraisingPages.map((p) => p.pageId);
  assert.deepEqual(pages.fundraisingPages.map((p) => p.pageId), rawIds);

  problems.check();
});
