// How the widgets look and read on a partner's page (e2e/partner-site.mjs: another origin, a
// strict CSP): the partner's custom properties and ::part() rules reach inside the shadow
// root, the dark colour scheme, and the language (English, Welsh: texts, amounts, numbers,
// dates), with texts replaced by text-* attributes.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { browserTests, consoleErrors, rawCampaign, servers, stageDonation } from "./harness.mjs";
import { BRAND, startPartnerSite } from "./partner-site.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

/** Computed styles inside the card's shadow root. */
function cardStyles(page) {
  return page.evaluate(() => {
    const root = document.querySelector("fundraising-campaign").shadowRoot;
    const style = (selector) => getComputedStyle(root.querySelector(selector));
    return {
      raisedColor: style("[part=raised]").color,
      cardRadius: style("[part=card]").borderTopLeftRadius,
      cardBackground: style("[part=card]").backgroundColor,
      cardColor: style("[part=card]").color,
      font: style("[part=card]").fontFamily,
      titleTransform: style("[part=title]").textTransform,
      donateRadius: style("[part=donate]").borderTopLeftRadius,
      donateBackground: style("[part=donate]").backgroundColor,
      fill: style("[part=progress-fill]").backgroundImage + style("[part=progress-fill]").backgroundColor,
    };
  });
}

/** The campaign's end date from the service's own answer (`/Date(ms+0000)/`). */
async function endDate() {
  const raw = await rawCampaign(env);
  return new Date(Number(/\/Date\((-?\d+)/.exec(raw.EndDate)[1]));
}

it("the partner's custom properties and ::part() rules style the card inside its shadow root", async ({ page }) => {
  await page.goto(`${partner.origin}/`);
  await page.locator("fundraising-campaign [part=donate]").waitFor();
  const plain = await cardStyles(page);
  assert.equal(plain.raisedColor, "rgb(11, 107, 74)");
  assert.equal(plain.cardRadius, "12px");
  assert.equal(plain.titleTransform, "none");

  const problems = consoleErrors(page);
  await page.goto(`${partner.origin}/brand`);
  await page.locator("fundraising-campaign [part=donate]").waitFor();
  const branded = await cardStyles(page);
  assert.equal(branded.raisedColor, BRAND.accent);
  assert.equal(branded.donateBackground, BRAND.buttonBackground);
  assert.equal(branded.cardRadius, BRAND.radius);
  assert.equal(branded.font, BRAND.font);
  assert.equal(branded.titleTransform, BRAND.titleTransform);
  assert.equal(branded.donateRadius, BRAND.donateRadius);
  assert.match(branded.fill, /rgb\(122, 31, 92\)/);

  // A property set from the page's script takes effect at once too.
  await page.evaluate(() => document.querySelector("fundraising-campaign").style.setProperty("--fundraising-radius", "20px"));
  assert.equal((await cardStyles(page)).cardRadius, "20px");
  problems.check();
  assert.deepEqual(partner.reports, []);
});

it("the dark colour scheme: dark defaults, the partner's dark colours, theme=light pins light", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`${partner.origin}/`);
  await page.locator("fundraising-campaign [part=donate]").waitFor();
  const dark = await cardStyles(page);
  assert.equal(dark.cardBackground, "rgb(22, 27, 34)");
  assert.equal(dark.cardColor, "rgb(230, 233, 239)");
  assert.equal(dark.raisedColor, "rgb(95, 211, 160)");

  await page.locator("fundraising-campaign").evaluate((node) => node.setAttribute("theme", "light"));
  const pinned = await cardStyles(page);
  assert.equal(pinned.cardBackground, "rgb(255, 255, 255)");
  assert.equal(pinned.raisedColor, "rgb(11, 107, 74)");

  await page.goto(`${partner.origin}/brand`);
  await page.locator("fundraising-campaign [part=donate]").waitFor();
  const brandDark = await cardStyles(page);
  assert.equal(brandDark.raisedColor, "rgb(240, 182, 221)");
  assert.equal(brandDark.cardBackground, "rgb(22, 27, 34)");

  await page.emulateMedia({ colorScheme: "light" });
  await page.locator("fundraising-campaign").evaluate((node) => node.setAttribute("theme", "dark"));
  assert.equal((await cardStyles(page)).cardBackground, "rgb(22, 27, 34)", "theme=dark on a light page");
});

it("the card speaks the page's language: English and Welsh texts, amounts, numbers and dates", async ({ page }) => {
  const raw = await rawCampaign(env);
  const end = await endDate();
  const count = raw.DonationSummary.TotalNumberOfDonations;
  const read = () => page.evaluate(() => {
    const root = document.querySelector("fundraising-campaign").shadowRoot;
    const text = (selector) => root.querySelector(selector)?.textContent ?? null;
    return {
      label: root.querySelector("[role=progressbar]").getAttribute("aria-label"),
      valueText: root.querySelector("[role=progressbar]").getAttribute("aria-valuetext"),
      raised: text("[part=raised]"),
      figures: text("[part=figures]"),
      donations: text("[part=donations]"),
      dates: text("[part=dates]"),
      donate: text("[part=donate]"),
    };
  });
  const money = (locale, amount) => new Intl.NumberFormat(locale, { style: "currency", currency: "GBP" }).format(amount);
  const date = (locale) => new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(end);
  const past = end.getTime() < Date.now();
  const raised = raw.DonationSummary.TotalAmount;
  const percent = (locale) => new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 })
    .format(Math.floor(Math.min(1, raised / raw.TargetAmount) * 100) / 100);

  await page.goto(`${partner.origin}/`);
  await page.locator("fundraising-campaign [part=donate]").waitFor();
  const english = await read();
  assert.equal(english.label, "Amount raised");
  assert.equal(english.valueText, `${money("en", raised)} raised of a ${money("en", raw.TargetAmount)} target (${percent("en")})`);
  assert.equal(english.figures.startsWith(`${money("en", raised)} raised of ${money("en", raw.TargetAmount)} (${percent("en")})`), true, english.figures);
  assert.equal(english.donations, `${new Intl.NumberFormat("en").format(count)} donations`);
  assert.equal(english.dates, `${past ? "Ended on" : "Ends on"} ${date("en")}`);
  assert.equal(english.donate, "Donate");

  const problems = consoleErrors(page);
  await page.goto(`${partner.origin}/cy`);
  await page.locator("fundraising-campaign [part=donate]").waitFor();
  const welsh = await read();
  assert.equal(welsh.label, "Swm a godwyd");
  assert.equal(welsh.valueText, `${money("cy", raised)} wedi’i godi o darged o ${money("cy", raw.TargetAmount)} (${percent("cy")})`);
  assert.equal(welsh.raised, money("cy", raised));
  assert.equal(welsh.donations, `${new Intl.NumberFormat("cy").format(count)} o roddion`);
  assert.equal(welsh.dates, `${past ? "Daeth i ben ar" : "Yn dod i ben ar"} ${date("cy")}`);
  assert.match(welsh.dates, /Ionawr|Chwefror|Mawrth|Ebrill|Mai|Mehefin|Gorffennaf|Awst|Medi|Hydref|Tachwedd|Rhagfyr/);
  assert.equal(welsh.donate, "Cyfrannu");

  // The page's language changes: the card follows without loading anything again.
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.evaluate(() => { document.documentElement.lang = "en-GB"; });
  await page.waitForFunction(() => document.querySelector("fundraising-campaign").shadowRoot.querySelector("[part=donate]").textContent === "Donate");
  assert.equal((await read()).dates, `${past ? "Ended on" : "Ends on"} ${date("en-GB")}`);
  // The element's own lang wins over the page's.
  await page.locator("fundraising-campaign").evaluate((node) => node.setAttribute("lang", "cy"));
  assert.equal((await read()).donate, "Cyfrannu");
  assert.deepEqual(requests, []);
  problems.check();
});

it("every text can be replaced by the partner with a text-* attribute, plural forms included", async ({ page }) => {
  const raw = await rawCampaign(env);
  const count = raw.DonationSummary.TotalNumberOfDonations;
  await page.goto(`${partner.origin}/`);
  const card = page.locator("fundraising-campaign");
  await card.locator("[part=donate]").waitFor();
  await card.evaluate((node) => {
    node.setAttribute("text-donate", "Give now");
    node.setAttribute("text-raised", "{raised} so far, aiming for {target}");
    node.setAttribute("text-donations-one", "{count} gift");
    node.setAttribute("text-donations-other", "{count} gifts");
    node.setAttribute("text-amount-raised", "Money in");
  });
  await card.locator("[part=donate]", { hasText: "Give now" }).waitFor();
  assert.equal(await card.locator("[part=donations]").textContent(), `${new Intl.NumberFormat("en").format(count)} gifts`);
  assert.match(await card.locator("[part=figures]").textContent(), /so far, aiming for £/);
  assert.equal(await card.locator("[role=progressbar]").getAttribute("aria-label"), "Money in");
  // The amounts stay elements of their own (styled, found by part) inside the partner's text.
  assert.equal(await card.locator("[part=figures] [part=raised]").count(), 1);

  // The loading and error texts too, on an element that cannot load.
  const alert = await page.evaluate(() => new Promise((resolve) => {
    const node = document.createElement("fundraising-campaign");
    node.setAttribute("loading", "eager");
    node.setAttribute("short-name", "x");
    node.setAttribute("text-missing-attributes-other", "Nid yw {names} yma.");
    document.body.append(node);
    const check = () => {
      const text = node.shadowRoot.querySelector("[role=alert]")?.textContent;
      if (text) resolve(text); else requestAnimationFrame(check);
    };
    check();
  }));
  assert.equal(alert, "Nid yw app-id, base-url yma.");
});

it("the thank-you element speaks Welsh too", async ({ page }) => {
  const reference = await stageDonation(env, {
    amount: "12.50", currency_code: "GBP", donor_display_name: "Kim", message: "Da iawn!", share_message: true,
    appears_after_secs: 0, final_after_secs: 0, final_status: "Accepted",
  });
  await page.goto(`${partner.origin}/thanks?donation=${reference}`);
  await page.evaluate(() => { document.documentElement.lang = "cy"; });
  const element = page.locator("fundraising-donation");
  await element.locator("[part=status][data-state=confirmed]").waitFor({ timeout: 30_000 });
  assert.equal(await element.locator("[part=title]").textContent(), "Diolch, Kim!");
  assert.equal(await element.locator("[part=confirmed] p:nth-of-type(2)").textContent(),
    `Mae eich rhodd o ${new Intl.NumberFormat("cy", { style: "currency", currency: "GBP" }).format(12.5)} wedi’i chadarnhau.`);
});
