// <fundraising-event> on a partner's page (e2e/partner-site.mjs: another origin, the strict CSP of
// docs/widgets.md) against the sandbox's event 1001 and its 250 fundraising pages: the ranking
// against the service's own answers, `limit` and its note, both languages and colour schemes,
// Show more, links, images, an empty event, a retried request, an aborted one, bad attributes
// and odd answers.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { axeSeriousViolations, browserTests, consoleErrors, servers } from "./harness.mjs";
import { IMAGE_ORIGIN, startPartnerSite } from "./partner-site.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

const EVENT = 1001;
const PAGE_URL = "https://www.example.org/fundraising/{pageShortName}";

/** Every fundraising page of `event` as the sandbox lists them (its own order), with its totals. */
async function servicePages(event = EVENT) {
  const pages = [];
  let first;
  for (let page = 1; ; page += 1) {
    const response = await fetch(`${env.baseUrl}/${env.appId}/v1/event/${event}/pages?page=${page}&pagesize=100`);
    assert.equal(response.status, 200);
    const answer = await response.json();
    first ??= answer;
    pages.push(...answer.fundraisingPages);
    if (page >= answer.totalPages) break;
  }
  return { pages, totalRaised: first.totalRaised, total: first.totalFundraisingPages };
}

/**
 * The ranking a reader expects of `pages`: by amount raised, highest first, equal amounts in
 * the service's order and sharing the rank of the first of them. As `[rank, pageId]` pairs.
 */
function expectedRanking(pages) {
  const sorted = [...pages].sort((a, b) => b.raisedAmount - a.raisedAmount);
  return sorted.map((page, index) => {
    const first = sorted.findIndex((other) => other.raisedAmount === page.raisedAmount);
    return [first + 1, page.pageId];
  });
}

/** Records the element's events from before the page's scripts run. */
async function recordEvents(page) {
  await page.addInitScript(() => {
    const log = { loaded: [], errors: [], views: [] };
    globalThis.__eventLog = log;
    document.addEventListener("fundraising-loaded", (e) => {
      log.loaded.push({ ...e.detail, fundraisers: e.detail.fundraisers.map((f) => [f.rank, f.page.pageId]) });
    });
    document.addEventListener("fundraising-error", (e) => log.errors.push({ code: e.detail?.code, message: e.detail?.message }));
    document.addEventListener("fundraising-view", (e) => log.views.push(e.detail));
  });
  return () => page.evaluate(() => structuredClone(globalThis.__eventLog));
}

/** The list on show: each fundraiser's rank (its list number), page id and title. */
function shownList(page) {
  return page.evaluate(() => [...document.querySelector("fundraising-event").shadowRoot.querySelectorAll("[part=fundraiser]")]
    .map((li) => ({ rank: li.value, pageId: Number(li.dataset.pageId), title: li.querySelector("[part=fundraiser-title]").textContent })));
}

/** The requests for the event's pages that the page made, as their query parameters. */
function pageRequests(page, event = EVENT) {
  const seen = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.endsWith(`/v1/event/${event}/pages`)) seen.push(Object.fromEntries(url.searchParams));
  });
  return seen;
}

/** A fundraiser of the element once its ranking is complete (not busy: every page is in). */
const RANKED = "fundraising-event:not([aria-busy]) [part=fundraiser]";

const money = (locale, amount) => new Intl.NumberFormat(locale, { style: "currency", currency: "GBP" }).format(amount);

it("ranks the 250 fundraisers of event 1001 by amount raised, in English, with links and Show more", async ({ page }) => {
  const service = await servicePages();
  assert.equal(service.pages.length, 250);
  const expected = expectedRanking(service.pages);
  const problems = consoleErrors(page);
  const events = await recordEvents(page);
  const requests = pageRequests(page);
  // The order requests go out and answers come back: pages 2 and 3 only once page 1 is in, and
  // then both in flight together.
  const order = [];
  page.on("request", (r) => { if (r.url().includes(`/event/${EVENT}/pages`)) order.push(`asked ${new URL(r.url()).searchParams.get("page")}`); });
  page.on("requestfinished", (r) => { if (r.url().includes(`/event/${EVENT}/pages`)) order.push(`answered ${new URL(r.url()).searchParams.get("page")}`); });
  await page.goto(`${partner.origin}/event?per-page=100&page-url=${encodeURIComponent(PAGE_URL)}`);
  const element = page.locator("fundraising-event");
  await page.locator(RANKED).first().waitFor();

  // Every page fetched, 100 a request: the first, then the other two side by side; the whole
  // ranking is the service's.
  assert.deepEqual(requests.map((q) => [q.page, q.pagesize]), [["1", "100"], ["2", "100"], ["3", "100"]]);
  assert.deepEqual(order.slice(0, 2), ["asked 1", "answered 1"]);
  assert.deepEqual(order.slice(2, 4).sort(), ["asked 2", "asked 3"], order.join(", "));
  const [loaded] = (await events()).loaded;
  assert.deepEqual(loaded.fundraisers, expected);
  assert.equal(loaded.limited, false);
  assert.equal(loaded.totalFundraisingPages, 250);
  assert.equal(loaded.totalRaised, service.totalRaised);
  // Ties are there to be shared: the seed has equal amounts.
  assert.ok(expected.some(([rank], index) => index > 0 && rank === expected[index - 1][0]), "the seed has a tie");

  // On show: the first 100, numbered by rank, titles as the service wrote them, linked.
  const shown = await shownList(page);
  assert.deepEqual(shown.map((f) => [f.rank, f.pageId]), expected.slice(0, 100));
  const byId = new Map(service.pages.map((p) => [p.pageId, p]));
  assert.deepEqual(shown.map((f) => f.title), shown.map((f) => byId.get(f.pageId).pageTitle));
  const top = byId.get(expected[0][1]);
  const link = element.locator("[part=fundraiser]").first().locator("a[part=fundraiser-title]");
  assert.equal(await link.getAttribute("href"), `https://www.example.org/fundraising/${top.pageShortName}`);
  const bar = element.locator("[part=fundraiser]").first().locator("[role=progressbar]");
  assert.equal(Number(await bar.getAttribute("aria-valuenow")), Math.min(top.raisedAmount, top.targetAmount));
  assert.equal(Number(await bar.getAttribute("aria-valuemax")), top.targetAmount);
  assert.ok((await bar.getAttribute("aria-valuetext")).startsWith(`${money("en", top.raisedAmount)} raised of a ${money("en", top.targetAmount)} target`));
  assert.equal(await element.locator("[part=fundraiser-figures]").first().locator("[part=fundraiser-raised]").textContent(), money("en", top.raisedAmount));

  // The event's figures, and no note: all 250 are ranked.
  assert.equal(await element.locator("[part=title]").textContent(), top.eventName);
  assert.equal(await element.locator("[data-field=total-raised]").textContent(), money("en", service.totalRaised));
  assert.equal(await element.locator("[part=pages]").textContent(), "250 fundraising pages");
  assert.equal(await element.locator("[part=note]").count(), 0);
  assert.equal(await element.locator("[part=shown]").textContent(), "Showing 100 of 250");

  // Show more: 100 more, the focus on the first of them; then the rest, and the button goes.
  await element.locator("[part=more]").click();
  assert.equal(await element.locator("[part=fundraiser]").count(), 200);
  assert.equal(await page.evaluate(() => document.querySelector("fundraising-event").shadowRoot.activeElement?.id), "fundraiser-100");
  await element.locator("[part=more]").click();
  assert.deepEqual((await shownList(page)).map((f) => [f.rank, f.pageId]), expected);
  assert.equal(await element.locator("[part=more]").isVisible(), false);
  assert.equal(await element.locator("[part=shown]").textContent(), "Showing 250 of 250");

  // The partner's custom properties and ::part() rules reach inside, as for the card (a
  // constructed sheet: the page's CSP has no 'unsafe-inline').
  const themed = await page.evaluate(() => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(`fundraising-event { --fundraising-accent: #7a1f5c; --fundraising-radius: 3px; }
      fundraising-event::part(fundraiser-title) { text-transform: uppercase; }`);
    document.adoptedStyleSheets = [sheet];
    const root = document.querySelector("fundraising-event").shadowRoot;
    const style = (selector) => getComputedStyle(root.querySelector(selector));
    return { raised: style("[part=raised]").color, radius: style("[part=card]").borderTopLeftRadius,
      title: style("[part=fundraiser-title]").textTransform };
  });
  assert.deepEqual(themed, { raised: "rgb(122, 31, 92)", radius: "3px", title: "uppercase" });

  assert.deepEqual(await axeSeriousViolations(page), []);
  problems.check();
  assert.deepEqual((await events()).errors, []);
  assert.deepEqual(partner.reports, [], "CSP violation reports");
});

it("once the first answer is in, the others load side by side, at most four at once, with the first on show meanwhile", async ({ page }) => {
  const problems = consoleErrors(page);
  const events = await recordEvents(page);
  // Event 4242: 1,000 fundraisers in ten pages of 100, made from event 1001's first page (the
  // package decodes them as any answer). Page 1 is answered at once; the others are held until
  // the test lets them go, one at a time.
  const real = await (await fetch(`${env.baseUrl}/${env.appId}/v1/event/${EVENT}/pages?page=1&pagesize=100`)).json();
  const answer = (number) => ({
    ...real, eventId: 4242, totalFundraisingPages: 1000, totalPages: 10, pageNumber: number,
    fundraisingPages: real.fundraisingPages.map((p, i) => ({ ...p, pageId: number * 1000 + i, raisedAmount: number * 1000 + i })),
  });
  const held = new Map();
  let most = 0;
  const asked = [];
  await page.route(`${env.baseUrl}/**/event/4242/pages**`, (route) => {
    const number = Number(new URL(route.request().url()).searchParams.get("page"));
    asked.push(number);
    if (number === 1) return route.fulfill({ json: answer(1) });
    held.set(number, () => route.fulfill({ json: answer(number) }));
    most = Math.max(most, held.size);
  });
  await page.goto(`${partner.origin}/event?event-id=4242&limit=1000`);
  const element = page.locator("fundraising-event");
  // The first answer on show while the others load: its fundraisers ranked, the element busy,
  // and a status saying how far the ranking is.
  await element.locator("[part=ranking]").waitFor();
  assert.equal(await element.getAttribute("aria-busy"), "true");
  assert.equal(await element.locator("[part=ranking]").textContent(), "Ranking the fundraisers: 100 of 1,000 so far…");
  assert.equal(await element.locator("[part=fundraiser]").count(), 10);
  assert.equal(await element.locator("[part=fundraiser]").first().getAttribute("data-page-id"), "1099");
  assert.equal(await element.locator("[part=more]").count(), 0, "no Show more before the ranking is whole");
  // Four in flight together; each answer let go makes room for one more, never a fifth at once.
  const until = async (condition, what) => {
    for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((r) => setTimeout(r, 25));
    assert.ok(condition(), `waited for ${what}; asked ${asked.join(", ")}`);
  };
  await until(() => held.size === 4, "four requests in flight");
  for (let released = 0; released < 9; released += 1) {
    await until(() => held.size === Math.min(4, 9 - released), `${Math.min(4, 9 - released)} in flight`);
    const next = Math.min(...held.keys());
    held.get(next)();
    held.delete(next);
  }
  await page.locator(RANKED).first().waitFor();
  assert.equal(most, 4, "at most four requests in flight");
  assert.deepEqual(asked, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const [loaded] = (await events()).loaded;
  assert.equal(loaded.fundraisers.length, 1000);
  assert.equal(loaded.limited, false);
  assert.deepEqual(loaded.fundraisers[0], [1, 10099], "the last page's best comes first");
  assert.equal(await element.locator("[part=ranking]").count(), 0);
  assert.equal(await element.getAttribute("aria-busy"), null);
  problems.check();
});

for (const scheme of ["light", "dark"]) {
  it(`in Welsh, ${scheme}: limit 120 ranks the first 120 pages (two requests) and says so`, async ({ page }) => {
    const service = await servicePages();
    const expected = expectedRanking(service.pages.slice(0, 120));
    await page.emulateMedia({ colorScheme: scheme });
    const problems = consoleErrors(page);
    const events = await recordEvents(page);
    const requests = pageRequests(page);
    await page.goto(`${partner.origin}/event?limit=120&page-lang=cy`);
    const element = page.locator("fundraising-event");
    await element.locator("[part=note]").waitFor();
    assert.deepEqual(requests.map((q) => [q.page, q.pagesize]), [["1", "100"], ["2", "100"]]);
    const [loaded] = (await events()).loaded;
    assert.deepEqual(loaded.fundraisers, expected);
    assert.equal(loaded.limited, true);
    assert.deepEqual((await shownList(page)).map((f) => [f.rank, f.pageId]), expected.slice(0, 10));
    assert.equal(await element.locator("[part=note]").textContent(),
      "Dim ond y 120 cyntaf o’r 250 o dudalennau codi arian sydd yn y rhestr.");
    assert.equal(await element.locator("[part=pages]").textContent(), "250 o dudalennau codi arian");
    assert.equal(await element.locator("[data-field=total-raised]").textContent(), money("cy", service.totalRaised));
    assert.equal(await element.locator("[part=more]").textContent(), "Dangos rhagor");
    assert.equal(await element.locator("[part=shown]").textContent(), "Yn dangos 10 o 120");
    // No page-url: the titles are text, not links.
    assert.equal(await element.locator("a").count(), 0);
    // The scheme's colours reach the shadow root.
    const background = await element.locator("[part=card]").evaluate((node) => getComputedStyle(node).backgroundColor);
    assert.equal(background, scheme === "dark" ? "rgb(22, 27, 34)" : "rgb(255, 255, 255)");

    // English again when the page's language changes, with nothing fetched again.
    const before = requests.length;
    await page.evaluate(() => { document.documentElement.lang = "en"; });
    await page.waitForFunction(() => document.querySelector("fundraising-event").shadowRoot.querySelector("[part=note]").textContent.startsWith("Only"));
    assert.equal(await element.locator("[part=note]").textContent(), "Only the first 120 of 250 fundraising pages are ranked.");
    assert.equal(requests.length, before);

    assert.deepEqual(await axeSeriousViolations(page), []);
    problems.check();
    assert.deepEqual(partner.reports, [], "CSP violation reports");
  });
}

it("images where given, owners where given, and every string of the service as text, never HTML", async ({ page }) => {
  const problems = consoleErrors(page);
  // The sandbox's images live on a host this offline machine cannot reach: serve one picture for all.
  const images = [];
  await page.route(`${IMAGE_ORIGIN}/**`, (route) => {
    images.push(route.request().url());
    return route.fulfill({ contentType: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48"><circle cx="24" cy="24" r="20" fill="#2bb673"/></svg>' });
  });
  // One answer whose strings hold markup, with an owner: the service's strings are shown as written.
  const hostile = "<img src=x onerror=alert(1)><b>Bold</b>";
  await page.route(`${env.baseUrl}/**/event/1001/pages**`, async (route) => {
    const answer = await (await route.fetch()).json();
    answer.fundraisingPages[0].pageTitle = hostile;
    answer.fundraisingPages[0].pageOwner = "<i>Kim</i> & co";
    answer.fundraisingPages[0].raisedAmount = 10_000;
    answer.fundraisingPages[0].eventName = "<script>x()</script>Marathon";
    return route.fulfill({ json: answer });
  });
  await page.goto(`${partner.origin}/event?images&limit=100`);
  const element = page.locator("fundraising-event");
  await element.locator("[part=fundraiser]").first().waitFor();
  const first = element.locator("[part=fundraiser]").first();
  assert.equal(await first.locator("[part=fundraiser-title]").textContent(), hostile);
  assert.equal(await first.locator("[part=fundraiser-owner]").textContent(), "by <i>Kim</i> & co");
  assert.equal(await element.locator("[part=title]").textContent(), "<script>x()</script>Marathon");
  const made = await page.evaluate(() => {
    const root = document.querySelector("fundraising-event").shadowRoot;
    return { b: root.querySelectorAll("b, i, script").length, imgs: [...root.querySelectorAll("img")].map((img) => img.getAttribute("src")) };
  });
  assert.equal(made.b, 0, "no element made from the service's strings");
  // Ten images, each the fundraiser's own, from the image host the page allows.
  assert.equal(made.imgs.length, 10);
  for (const src of made.imgs) assert.match(src, /^https:\/\/images\.example\.org\/pages\/\d+\.jpg$/);
  assert.equal(await first.locator("img").getAttribute("alt"), "");
  await page.waitForFunction(() => [...document.querySelector("fundraising-event").shadowRoot.querySelectorAll("img")].every((img) => img.complete));
  assert.ok(images.length >= 1);
  // Pages without an owner show none.
  assert.equal(await element.locator("[part=fundraiser-owner]").count(), 1);
  problems.check();
  assert.deepEqual(partner.reports, [], "CSP violation reports");
});

it("an event without fundraising pages shows the empty state", async ({ page }) => {
  // A real event of the sandbox with no pages yet (the service takes a creation without a token).
  const created = await fetch(`${env.baseUrl}/${env.appId}/v1/event/`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      name: `Empty walk ${Date.now()}`, description: "No one has signed up yet.", eventType: "Walks", location: "Cardiff",
      startDate: "/Date(1893456000000+0000)/", completionDate: "/Date(1893542400000+0000)/", expiryDate: "/Date(1896134400000+0000)/",
    }),
  });
  assert.equal(created.status, 201);
  const { id } = await created.json();
  const problems = consoleErrors(page);
  const events = await recordEvents(page);
  await page.goto(`${partner.origin}/event?event-id=${id}`);
  const empty = page.locator("fundraising-event [part=empty]");
  await empty.waitFor();
  assert.equal(await empty.textContent(), "No one is fundraising for this event yet.");
  const [loaded] = (await events()).loaded;
  assert.equal(loaded.totalFundraisingPages, 0);
  assert.deepEqual(loaded.fundraisers, []);
  await page.evaluate(() => { document.documentElement.lang = "cy"; });
  await page.locator("fundraising-event [part=empty]", { hasText: "Does neb" }).waitFor();
  problems.check();
});

it("a 503 is retried within the client's rules, and removing the element aborts its request", async ({ page }) => {
  const helper = process.env.FUNDRAISING_TEST_HELPER_URL;
  assert.ok(helper, "FUNDRAISING_TEST_HELPER_URL is not set: run this inside scripts/with-servers.sh");
  // The first request for the pages answers 503 (Retry-After: 0); the package retries it.
  const key = `event-retry-${Date.now()}`;
  await page.goto(`${partner.origin}/event?base-url=${encodeURIComponent(`${helper}/fault/${key}/1/0`)}&limit=100`);
  const element = page.locator("fundraising-event");
  await element.locator("[part=fundraiser]").first().waitFor();
  const { requests } = await (await fetch(`${helper}/count/${key}`)).json();
  assert.equal(requests, 2, "one 503, then the retry");

  // A request that hangs: the loading state, then the element leaves the page and its request is dropped.
  const hang = `event-hang-${Date.now()}`;
  await page.goto(`${partner.origin}/event?base-url=${encodeURIComponent(`${helper}/hang/${hang}`)}`);
  const loading = element.locator("[part=loading]");
  await loading.waitFor();
  assert.equal(await loading.getAttribute("role"), "status");
  assert.equal(await loading.textContent(), "Loading the fundraisers…");
  assert.equal(await element.getAttribute("aria-busy"), "true");
  const state = async () => (await fetch(`${helper}/hang-state/${hang}`)).json();
  for (let i = 0; i < 100 && !(await state()).arrived; i += 1) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await state()).arrived, true);
  await element.evaluate((node) => node.remove());
  let closed = false;
  for (let i = 0; i < 100 && !closed; i += 1) {
    closed = (await state()).closed;
    if (!closed) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(closed, true, "the request was aborted when the element left the page");
});

it("bad attributes show the error state, say why on the console and throw nothing", async ({ page }) => {
  const problems = consoleErrors(page);
  await page.goto(`${partner.origin}/event?limit=10`);
  await page.locator("fundraising-event [part=fundraiser]").first().waitFor();
  const cases = [
    [{ "event-id": null }, "missing_attribute", "Missing attribute: event-id."],
    [{ "event-id": "abc" }, "invalid_attribute", "The event-id attribute is not valid: “abc”."],
    [{ "event-id": "-5" }, "invalid_attribute", "The event-id attribute is not valid: “-5”."],
    [{ "event-id": "1001.5" }, "invalid_attribute", "The event-id attribute is not valid: “1001.5”."],
    [{ "event-id": "99999999999" }, "invalid_attribute", "The event-id attribute is not valid: “99999999999”."],
    [{ "page-url": "javascript:alert(1)//{pageId}" }, "invalid_attribute", "The page-url attribute is not valid: “javascript:alert(1)//{pageId}”."],
    [{ "page-url": "https://www.example.org/fundraising/" }, "invalid_attribute", "The page-url attribute is not valid: “https://www.example.org/fundraising/”."],
    [{ limit: "0" }, "invalid_attribute", "The limit attribute is not valid: “0”."],
    [{ limit: "1001" }, "invalid_attribute", "The limit attribute is not valid: “1001”."],
    [{ limit: "ten" }, "invalid_attribute", "The limit attribute is not valid: “ten”."],
    [{ "per-page": "101" }, "invalid_attribute", "The per-page attribute is not valid: “101”."],
    [{ "event-id": "424242" }, "not_found", "No event has the id 424242."],
  ];
  const consoleLines = [];
  page.on("console", (m) => { if (m.type() === "error") consoleLines.push(m.text()); });
  const results = await page.evaluate(async ({ cases, appId, baseUrl }) => {
    const out = [];
    for (const [attributes] of cases) {
      const node = document.createElement("fundraising-event");
      node.setAttribute("loading", "eager");
      node.setAttribute("app-id", appId);
      node.setAttribute("base-url", baseUrl);
      node.setAttribute("event-id", "1001");
      for (const [name, value] of Object.entries(attributes)) {
        if (value === null) node.removeAttribute(name); else node.setAttribute(name, value);
      }
      const failed = new Promise((resolve) => node.addEventListener("fundraising-error", (e) => resolve(e.detail.code), { once: true }));
      document.body.append(node);
      const code = await failed;
      const alert = node.shadowRoot.querySelector("[role=alert]");
      out.push({ code, text: alert?.textContent ?? null, part: alert?.getAttribute("part") ?? null });
      node.remove();
    }
    return out;
  }, { cases, appId: env.appId, baseUrl: env.baseUrl });
  assert.deepEqual(results, cases.map(([, code, text]) => ({ code, text, part: "error" })));
  // Each said why on the console (the 404 also as Chromium's own line).
  const ours = consoleLines.filter((line) => line.startsWith("<fundraising-event"));
  assert.equal(ours.length, cases.length, ours.join("\n"));
  assert.match(ours[1], /the event-id attribute must be a whole number from 1 to 2147483647; it is "abc"/);
  // A page-url made wrong after the fundraisers came: the error state, and back when it is right.
  const shown = page.locator("fundraising-event").first();
  await shown.evaluate((node) => node.setAttribute("page-url", "ftp://x.example/{pageId}"));
  assert.equal(await shown.locator("[role=alert]").textContent(), "The page-url attribute is not valid: “ftp://x.example/{pageId}”.");
  await shown.evaluate((node) => node.setAttribute("page-url", "https://x.example/p/{pageId}"));
  assert.match(await shown.locator("a[part=fundraiser-title]").first().getAttribute("href"), /^https:\/\/x\.example\/p\/\d+$/);
  // Nothing was thrown at the page; the only console errors are the elements' and the 404's.
  assert.deepEqual(problems.errors.filter((line) => !line.includes("<fundraising-event") && !line.includes("404")), []);
});

it("an answer with odd members shows the error state and says which member", async ({ page }) => {
  const problems = consoleErrors(page);
  const odd = {
    9001: (a) => { a.totalRaised = -1; },
    9002: (a) => { a.fundraisingPages[3].raisedAmount = -20; },
    9003: (a) => { a.eventId = 77; },
    9004: (a) => { a.totalFundraisingPages = 2.5; },
    9005: (a) => { a.fundraisingPages[0].pageImages = "https://images.example.org/a.jpg"; },
  };
  // Each odd event id answers event 1001's first page, changed; the package decodes it as any answer.
  await page.route(`${env.baseUrl}/**/event/*/pages**`, async (route) => {
    const url = new URL(route.request().url());
    const id = Number(url.pathname.split("/").at(-2));
    if (!odd[id]) return route.continue();
    url.pathname = url.pathname.replace(`/event/${id}/`, "/event/1001/");
    const answer = await (await route.fetch({ url: url.href })).json();
    answer.eventId = id;
    odd[id](answer);
    return route.fulfill({ json: answer });
  });
  await page.goto(`${partner.origin}/event?limit=10`);
  await page.locator("fundraising-event [part=fundraiser]").first().waitFor();
  const results = await page.evaluate(async ({ ids, appId, baseUrl }) => {
    const out = {};
    for (const id of ids) {
      const node = document.createElement("fundraising-event");
      for (const [name, value] of Object.entries({ loading: "eager", "app-id": appId, "base-url": baseUrl, "event-id": id })) {
        node.setAttribute(name, value);
      }
      const failed = new Promise((resolve) => node.addEventListener("fundraising-error", (e) => resolve(e.detail), { once: true }));
      document.body.append(node);
      const error = await failed;
      out[id] = { code: error.code, message: error.message, alert: node.shadowRoot.querySelector("[role=alert]")?.textContent };
    }
    return out;
  }, { ids: Object.keys(odd), appId: env.appId, baseUrl: env.baseUrl });
  assert.match(results[9001].message, /totalRaised is -1/);
  assert.match(results[9002].message, /fundraisingPages\[3\]\.raisedAmount is -20/);
  assert.match(results[9003].message, /eventId is 77, not 9003/);
  // The package's decoder refuses these itself (a count that is not whole, images that are not a list).
  assert.match(results[9004].message, /totalFundraisingPages/);
  assert.match(results[9005].message, /pageImages/);
  for (const result of Object.values(results)) {
    assert.equal(result.code, "decode_error", JSON.stringify(result));
    assert.ok(result.alert.startsWith("The fundraisers could not be loaded: "), result.alert);
  }
  const said = problems.errors.filter((line) => line.includes("<fundraising-event"));
  assert.equal(said.length, Object.keys(odd).length, said.join("\n"));
  assert.deepEqual(problems.errors.filter((line) => !line.includes("<fundraising-event")), []);
});
