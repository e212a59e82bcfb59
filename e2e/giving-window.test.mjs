// The card's giving windows on a partner's page (e2e/partner-site.mjs: another origin, a strict
// CSP), with the sandbox's campaigns in each state: open (demo-campaign), ended, not started and
// closed by its status. The Donate link only while open, the line that says why, in English and
// Welsh, the event of each window, and a window that changes while the page is open.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { axeSeriousViolations, browserTests, consoleErrors, servers } from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/** The sandbox's campaigns in each window, and the date each one's line shows. */
const CAMPAIGNS = [
  { shortName: "demo-campaign", giving: "open", date: "EndDate", en: "Ends on", cy: "Yn dod i ben ar" },
  { shortName: "demo-campaign-ended", giving: "ended", date: "EndDate", en: "Ended on", cy: "Daeth i ben ar" },
  { shortName: "demo-campaign-upcoming", giving: "not-started", date: "StartDate", en: "Opens on", cy: "Yn agor ar" },
  { shortName: "demo-campaign-closed", giving: "closed", date: null,
    en: "This campaign is not taking donations.", cy: "Nid yw’r ymgyrch hon yn derbyn rhoddion." },
];

/** A campaign as the sandbox's resource API sends it. */
async function raw(shortName) {
  const response = await fetch(`${env.baseUrl}/${env.appId}/v1/campaign/byshortname/${shortName}`);
  assert.equal(response.status, 200, shortName);
  return response.json();
}

/** A date of the service's answer (`/Date(ms+0000)/`). */
const serviceDate = (text) => new Date(Number(/\/Date\((-?\d+)/.exec(text)[1]));

/** Records every fundraising-giving-* event from before the page's scripts run. */
async function recordWindows(page) {
  await page.addInitScript(() => {
    globalThis.__windows = [];
    for (const state of ["open", "not-started", "ended", "closed"]) {
      document.addEventListener(`fundraising-giving-${state}`, (e) => {
        globalThis.__windows.push({
          type: e.type,
          shortName: e.detail.campaign.shortName,
          state: e.detail.state,
          start: e.detail.start?.toISOString() ?? null,
          end: e.detail.end?.toISOString() ?? null,
        });
      });
    }
  });
  return () => page.evaluate(() => structuredClone(globalThis.__windows));
}

/** What each card on the page shows: its window, its line and whether it has a Donate link. */
function cards(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll("fundraising-campaign")].map((node) => {
    const root = node.shadowRoot;
    return [node.getAttribute("short-name"), {
      giving: root.querySelector("[part=card]")?.dataset.giving ?? null,
      line: root.querySelector("[part=dates]")?.textContent ?? null,
      donate: root.querySelectorAll("[part=donate]").length,
      property: node.giving,
    }];
  })));
}

it("each giving window in English and Welsh: the line that says it, a Donate link only while open, and its event", async ({ page }) => {
  const answers = Object.fromEntries(await Promise.all(CAMPAIGNS.map(async (c) => [c.shortName, await raw(c.shortName)])));
  assert.equal(answers["demo-campaign-closed"].Status, "Closed");
  const problems = consoleErrors(page);
  const windows = await recordWindows(page);
  await page.goto(`${partner.origin}/card?campaign=demo-campaign`);
  await page.locator("fundraising-campaign [part=donate]").waitFor();
  // The other three campaigns beside it, with the same donate-url.
  await page.evaluate((names) => {
    const first = document.querySelector("fundraising-campaign");
    for (const name of names) {
      const card = first.cloneNode();
      card.setAttribute("short-name", name);
      document.querySelector("main").append(card);
    }
  }, CAMPAIGNS.slice(1).map((c) => c.shortName));
  await page.waitForFunction(() => [...document.querySelectorAll("fundraising-campaign")].every((n) => n.shadowRoot.querySelector("[part=card]")));

  const date = (locale, c) => new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(serviceDate(answers[c.shortName][c.date]));
  const expected = (locale, words) => Object.fromEntries(CAMPAIGNS.map((c) => [c.shortName, {
    giving: c.giving,
    line: c.date ? `${c[words]} ${date(locale, c)}` : c[words],
    donate: c.giving === "open" ? 1 : 0,
    property: c.giving,
  }]));
  assert.deepEqual(await cards(page), expected("en", "en")); // the page is <html lang="en">

  // One event per card, for its window, with the campaign's dates.
  const fired = await windows();
  assert.deepEqual(fired.map((w) => [w.shortName, w.type]).sort(),
    CAMPAIGNS.map((c) => [c.shortName, `fundraising-giving-${c.giving}`]).sort());
  for (const w of fired) {
    const answer = answers[w.shortName];
    assert.equal(w.state, w.type.slice("fundraising-giving-".length));
    assert.equal(w.start, serviceDate(answer.StartDate).toISOString());
    assert.equal(w.end, serviceDate(answer.EndDate).toISOString());
  }

  // In Welsh: the same windows, the Welsh lines, nothing fetched and no event fired again.
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.evaluate(() => { document.documentElement.lang = "cy"; });
  await page.waitForFunction(() => document.querySelector("fundraising-campaign").shadowRoot.querySelector("[part=donate]").textContent === "Cyfrannu");
  assert.deepEqual(await cards(page), expected("cy", "cy"));
  assert.deepEqual(requests, []);
  assert.equal((await windows()).length, CAMPAIGNS.length);

  assert.deepEqual(await axeSeriousViolations(page), []);
  problems.check();
  assert.deepEqual(partner.reports, [], "CSP violation reports");
});

it("a window that changes while the page is open: the end passes, the Donate link goes; the start comes, it appears", async ({ page }) => {
  const open = await raw("demo-campaign");
  const upcoming = await raw("demo-campaign-upcoming");
  const windows = await recordWindows(page);
  // The page's clock five seconds before the open campaign ends.
  await page.clock.install({ time: serviceDate(open.EndDate).getTime() - 5_000 });
  await page.goto(`${partner.origin}/card?campaign=demo-campaign`);
  const card = page.locator("fundraising-campaign");
  await card.locator("[part=donate]").waitFor();
  await page.clock.fastForward(10_000);
  await card.locator("[part=card][data-giving=ended]").waitFor();
  assert.equal(await card.locator("[part=donate]").count(), 0);
  assert.match(await card.locator("[part=dates]").textContent(), /^Ended on /);
  assert.deepEqual((await windows()).map((w) => w.state), ["open", "ended"]);

  // And a campaign that opens five seconds after the page loads.
  await page.clock.setSystemTime(serviceDate(upcoming.StartDate).getTime() - 5_000);
  await page.goto(`${partner.origin}/card?campaign=demo-campaign-upcoming`);
  await card.locator("[part=card][data-giving=not-started]").waitFor();
  assert.equal(await card.locator("[part=donate]").count(), 0);
  await page.clock.fastForward(10_000);
  await card.locator("[part=donate]").waitFor();
  assert.match(await card.locator("[part=dates]").textContent(), /^Ends on /);
  assert.deepEqual((await windows()).map((w) => w.state), ["not-started", "open"]);
});
