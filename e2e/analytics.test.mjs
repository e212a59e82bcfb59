// What a partner's analytics can count, and nothing they did not ask for, on a partner's pages
// (e2e/partner-site.mjs: another origin, a strict CSP): each event's detail (fundraising-view,
// fundraising-donate, fundraising-donation-settled), the campaign tags and click ids carried onto
// the Donate link only with carry-attribution and only names on the list, no cookie or storage
// written and no request but to the service, and the data layer recipe of docs/widgets.md, as
// written there, with and without the visitor's consent.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { axeSeriousViolations, browserTests, consoleErrors, servers, stageDonation } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/** The page address's parameters the tests visit with: tags and click ids, and two others. */
const VISIT = {
  utm_source: "newsletter",
  utm_medium: "email",
  utm_campaign: "spring appeal",
  gclid: "Cj0KCQ-abc",
  fbclid: "IwAR-f1",
  id: "7",
  email: "donor@example.org",
};
const ALLOWED = ["utm_source", "utm_medium", "utm_campaign", "gclid", "fbclid"];

/**
 * Records the elements' analytics events from before the page's scripts run, and keeps the
 * donor on the page when Donate is activated (the partner's own listener may cancel it).
 */
async function recordAnalytics(page) {
  await page.addInitScript(() => {
    const log = { views: [], donates: [], settled: [] };
    globalThis.__analytics = log;
    document.addEventListener("fundraising-view", (e) => {
      const d = e.detail;
      log.views.push({ element: e.target.localName, campaign: d.campaign?.shortName, giving: d.giving, reference: d.reference, state: d.state, eventId: d.eventId });
    });
    document.addEventListener("fundraising-donate", (e) => {
      e.preventDefault();
      log.donates.push({ ...e.detail, campaign: e.detail.campaign.shortName, currency: e.detail.campaign.currency?.currencyCode });
    });
    document.addEventListener("fundraising-donation-settled", (e) => {
      log.settled.push({ ...e.detail, donation: { thirdPartyReference: e.detail.donation.thirdPartyReference, status: e.detail.donation.status } });
    });
  });
  return () => page.evaluate(() => JSON.parse(JSON.stringify(globalThis.__analytics)));
}

const query = (params) => new URLSearchParams(params).toString();

/** What the page's origin holds after a visit: cookies, storage, databases, caches. */
async function stored(page) {
  const cookies = await page.context().cookies();
  const inPage = await page.evaluate(async () => ({
    documentCookie: document.cookie,
    localStorage: localStorage.length,
    sessionStorage: sessionStorage.length,
    indexedDB: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
  }));
  return { cookies, ...inPage };
}
const NOTHING = { cookies: [], documentCookie: "", localStorage: 0, sessionStorage: 0, indexedDB: [], caches: [] };

it("fundraising-view fires once, when the card is first at least half in view with its campaign", async ({ page }) => {
  const events = await recordAnalytics(page);
  await page.goto(`${partner.origin}/far-eager`);
  const card = page.locator("fundraising-campaign");
  // Loaded (eager) but far below: no view.
  await card.locator("[role=progressbar]").waitFor({ state: "attached" });
  assert.deepEqual((await events()).views, []);
  // A quarter of it in view: still none.
  const placeShowing = (share) => card.evaluate((node, share) => {
    const box = node.getBoundingClientRect();
    scrollBy(0, box.top - (innerHeight - box.height * share));
  }, share);
  await placeShowing(0.25);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(200);
  assert.deepEqual((await events()).views, []);
  // Three quarters: one view, with the campaign and its window.
  await placeShowing(0.75);
  await page.waitForFunction(() => globalThis.__analytics.views.length > 0);
  // Out of view and back: no second one.
  await page.evaluate(() => scrollTo(0, 0));
  await placeShowing(1);
  await page.waitForTimeout(300);
  assert.deepEqual((await events()).views, [{ element: "fundraising-campaign", campaign: "demo-campaign", giving: "open" }]);
});

it("fundraising-donate carries the campaign and the listed parameters only with carry-attribution", async ({ page }) => {
  const problems = consoleErrors(page);
  const warnings = [];
  page.on("console", (m) => { if (m.type() === "warning") warnings.push(m.text()); });
  const events = await recordAnalytics(page);
  const donate = page.locator("fundraising-campaign [part=donate]");
  const visit = async (carry) => {
    const params = { campaign: "demo-campaign", ...(carry === null ? {} : { carry }), ...VISIT };
    await page.goto(`${partner.origin}/card?${query(params)}`);
    await donate.waitFor();
    const href = new URL(await donate.getAttribute("href"));
    await donate.click();
    const detail = (await events()).donates.at(-1);
    return { href, detail };
  };

  // carry-attribution (empty): every listed parameter the address has, and nothing else.
  const all = await visit("");
  for (const name of ALLOWED) assert.equal(all.href.searchParams.get(name), VISIT[name], name);
  for (const name of ["id", "email", "campaign", "carry"]) assert.equal(all.href.searchParams.has(name), false, name);
  assert.deepEqual(all.detail.attribution, Object.fromEntries(ALLOWED.map((name) => [name, VISIT[name]])));
  assert.equal(all.detail.campaign, "demo-campaign");
  assert.equal(all.detail.currency, "GBP");
  assert.equal(all.detail.url, all.href.href);
  assert.equal(all.href.searchParams.get("reference"), all.detail.reference);
  // The donation site's own parameters are as the template made them.
  assert.equal(all.href.searchParams.get("return"), `${partner.origin}/thanks?donation=${all.detail.reference}`);

  // A list of names: those only; a name not on the list is said on the console and left behind.
  const some = await visit("utm_source gclid email");
  assert.deepEqual(some.detail.attribution, { utm_source: VISIT.utm_source, gclid: VISIT.gclid });
  assert.equal(some.href.searchParams.has("utm_medium"), false);
  assert.equal(some.href.searchParams.has("email"), false);
  assert.ok(warnings.some((w) => /carry-attribution: not carried .*: email/.test(w)), warnings.join("\n"));

  // Without the attribute nothing is carried.
  const none = await visit(null);
  assert.deepEqual(none.detail.attribution, {});
  for (const name of Object.keys(VISIT)) assert.equal(none.href.searchParams.has(name), false, name);
  assert.deepEqual([...none.href.searchParams.keys()].sort(), ["reference", "return"]);

  // A value longer than 256 characters stays behind.
  await page.goto(`${partner.origin}/card?${query({ campaign: "demo-campaign", carry: "", utm_source: "x".repeat(300), utm_medium: "ok" })}`);
  await donate.waitFor();
  const long = new URL(await donate.getAttribute("href"));
  assert.equal(long.searchParams.has("utm_source"), false);
  assert.equal(long.searchParams.get("utm_medium"), "ok");

  assert.deepEqual(await axeSeriousViolations(page), []);
  problems.check();
});

it("fundraising-donation-settled has the final status, the amount and the currency; the thank-you's view", async ({ page }) => {
  const events = await recordAnalytics(page);
  const accepted = await stageDonation(env, {
    amount: "12.50", currency_code: "GBP", donor_display_name: "Kim", appears_after_secs: 0, final_after_secs: 0, final_status: "Accepted",
  });
  await page.goto(`${partner.origin}/thanks?donation=${accepted}`);
  await page.locator("fundraising-donation [data-state=confirmed]").waitFor({ timeout: 30_000 });
  const rejected = await stageDonation(env, {
    amount: "40", currency_code: "EUR", appears_after_secs: 0, final_after_secs: 0, final_status: "Rejected",
  });
  const first = await events();
  await page.goto(`${partner.origin}/thanks?donation=${rejected}`);
  await page.locator("fundraising-donation [data-state=not-completed]").waitFor({ timeout: 30_000 });
  const second = await events();
  assert.deepEqual([...first.settled, ...second.settled], [
    { status: "Accepted", amount: 12.5, currency: "GBP", reference: accepted, donation: { thirdPartyReference: accepted, status: "Accepted" } },
    { status: "Rejected", amount: 40, currency: "EUR", reference: rejected, donation: { thirdPartyReference: rejected, status: "Rejected" } },
  ]);
  assert.equal(first.views.length, 1);
  assert.equal(first.views[0].element, "fundraising-donation");
  assert.equal(first.views[0].reference, accepted);
});

it("the elements set no cookie, store nothing, and call no one but the service", async ({ page }) => {
  const origins = new Set();
  page.on("request", (r) => origins.add(new URL(r.url()).origin));
  const reference = await stageDonation(env, {
    amount: "5", currency_code: "GBP", appears_after_secs: 0, final_after_secs: 0, final_status: "Accepted",
  });
  const found = {};
  const visits = [
    [`/card?${query({ campaign: "demo-campaign", carry: "", ...VISIT })}`, "fundraising-campaign [part=donate]"],
    ["/event?card&limit=100", "fundraising-event [part=fundraiser] >> nth=0"],
    [`/thanks?donation=${reference}`, "fundraising-donation [data-state=confirmed]"],
  ];
  for (const [path, ready] of visits) {
    await page.goto(`${partner.origin}${path}`);
    await page.locator(ready).waitFor({ timeout: 30_000 });
    if (path.startsWith("/card")) {
      // The donor activates Donate (kept on the page): that writes nothing either.
      await page.evaluate(() => document.addEventListener("fundraising-donate", (e) => e.preventDefault(), { once: true }));
      await page.locator("fundraising-campaign [part=donate]").click();
    }
    found[path] = await stored(page);
  }
  assert.deepEqual(found, Object.fromEntries(visits.map(([path]) => [path, NOTHING])));
  // The partner's own origin (its pages), the host of the elements' files, and the resource API.
  assert.deepEqual([...origins].sort(), [partner.origin, new URL(env.companionUrl).origin, new URL(env.baseUrl).origin].sort());
});

for (const consent of [true, false]) {
  it(`the docs' recipe ${consent ? "pushes view_item, begin_checkout and purchase once the visitor consents" : "pushes nothing without the visitor's consent"}`, async ({ page }) => {
    const problems = consoleErrors(page);
    if (consent) await page.addInitScript(() => { globalThis.Cookiebot = { consent: { statistics: true } }; });
    await page.addInitScript(() => document.addEventListener("fundraising-donate", (e) => e.preventDefault()));
    const dataLayer = () => page.evaluate(() => (globalThis.dataLayer ?? []).filter((entry) => entry.event));

    await page.goto(`${partner.origin}/card?campaign=demo-campaign&analytics`);
    const donate = page.locator("fundraising-campaign [part=donate]");
    await donate.waitFor();
    if (consent) await page.waitForFunction(() => globalThis.dataLayer?.some((entry) => entry.event === "view_item"));
    await donate.click();
    const onCard = await dataLayer();

    const reference = await stageDonation(env, {
      amount: "12.50", currency_code: "GBP", appears_after_secs: 0, final_after_secs: 0, final_status: "Accepted",
    });
    await page.goto(`${partner.origin}/thanks?donation=${reference}&campaign=demo-campaign&analytics`);
    await page.locator("fundraising-donation [data-state=confirmed]").waitFor({ timeout: 30_000 });
    const onThanks = await dataLayer();

    if (!consent) {
      assert.deepEqual([...onCard, ...onThanks], []);
    } else {
      const item = { item_id: "demo-campaign", item_name: "Demo Campaign: Clean Water for Everyone" };
      assert.deepEqual(onCard, [
        { event: "view_item", ecommerce: { currency: "GBP", items: [item] } },
        { event: "begin_checkout", ecommerce: { currency: "GBP", items: [item] } },
      ]);
      assert.deepEqual(onThanks, [{
        event: "purchase",
        ecommerce: {
          transaction_id: reference, value: 12.5, currency: "GBP",
          items: [{ item_id: "demo-campaign", item_name: "demo-campaign", price: 12.5, quantity: 1 }],
        },
      }]);
    }
    // The recipe writes nothing either: the data layer is the page's own variable.
    assert.deepEqual(await stored(page), NOTHING);
    problems.check();
    assert.deepEqual(partner.reports, [], "CSP violation reports");
  });
}
