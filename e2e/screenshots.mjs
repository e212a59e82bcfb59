// Takes the screenshots of docs/widgets.md again, in Chromium, from a partner's pages
// (e2e/partner-site.mjs) against the sandbox: <fundraising-event> in English (light) and in Welsh
// (dark, ranking only the first 100), its loading, empty and error states (light and dark), and the campaign card
// in the giving windows that offer no Donate link, light and dark. Not a test (node --test does
// not pick it up); run it inside the servers after `make pkg`:
//
//   scripts/with-servers.sh -- node e2e/screenshots.mjs      (writes docs/img/widgets-*.png)
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { launchBrowser, servers } from "./harness.mjs";
import { IMAGE_ORIGIN, startPartnerSite } from "./partner-site.mjs";

const OUT = fileURLToPath(new URL("../docs/img/", import.meta.url));
const PAGE_URL = "https://www.example.org/fundraising/{pageShortName}";
const env = servers();

/**
 * The sandbox's page images live on a host this machine cannot reach: each is drawn here instead,
 * a runner's number on a colour of its own.
 */
async function drawImages(page) {
  await page.route(`${IMAGE_ORIGIN}/**`, (route) => {
    const n = Number(/(\d+)\.jpg$/.exec(route.request().url())?.[1] ?? 0);
    const hue = (n * 47) % 360;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">
<rect width="96" height="96" fill="hsl(${hue} 55% 42%)"/><circle cx="48" cy="38" r="16" fill="hsl(${hue} 60% 80%)"/>
<rect x="22" y="58" width="52" height="30" rx="14" fill="hsl(${hue} 60% 80%)"/>
<text x="48" y="44" font-family="sans-serif" font-size="13" font-weight="700" text-anchor="middle" fill="hsl(${hue} 55% 25%)">${n}</text></svg>`;
    return route.fulfill({ contentType: "image/svg+xml", body: svg });
  });
}

/** A fresh page of `browser` in `scheme`, 620 px wide. */
async function newPage(browser, scheme) {
  const context = await browser.newContext({ locale: "en-GB", viewport: { width: 620, height: 900 }, colorScheme: scheme });
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error(`pageerror: ${e}`));
  return page;
}

/** Waits until every image of the element's shadow root has loaded (or gone). */
async function imagesLoaded(page) {
  await page.waitForFunction(() => [...document.querySelector("fundraising-event").shadowRoot.querySelectorAll("img")]
    .every((img) => img.complete && img.naturalWidth > 0));
}

const partner = await startPartnerSite(env);
const browser = await launchBrowser();
mkdirSync(OUT, { recursive: true });
const written = [];
try {
  // The event, English, light: five fundraisers with images and links.
  {
    const page = await newPage(browser, "light");
    await drawImages(page);
    await page.goto(`${partner.origin}/event?images&per-page=5&page-url=${encodeURIComponent(PAGE_URL)}`);
    await page.locator("fundraising-event [part=more]").waitFor();
    await imagesLoaded(page);
    await page.locator("fundraising-event").screenshot({ path: `${OUT}widgets-event-light.png` });
    written.push("widgets-event-light.png");
    await page.context().close();
  }
  // Welsh, dark, ranking only the first 100, after one Show more.
  {
    const page = await newPage(browser, "dark");
    await drawImages(page);
    await page.goto(`${partner.origin}/event?images&per-page=3&limit=100&page-lang=cy&page-url=${encodeURIComponent(PAGE_URL)}`);
    await page.locator("fundraising-event [part=note]").waitFor();
    await page.locator("fundraising-event [part=more]").click();
    await imagesLoaded(page);
    await page.locator("fundraising-event [part=more]").blur();
    await page.locator("fundraising-event").screenshot({ path: `${OUT}widgets-event-dark-cy.png` });
    written.push("widgets-event-dark-cy.png");
    await page.context().close();
  }
  // The states: loading (an answer that does not come), empty (a new event), error (a bad id).
  for (const scheme of ["light", "dark"]) {
    const created = await fetch(`${env.baseUrl}/${env.appId}/v1/event/`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "A walk no one has joined yet", description: "Empty.", eventType: "Walks", location: "Cardiff",
        startDate: "/Date(1893456000000+0000)/", completionDate: "/Date(1893542400000+0000)/", expiryDate: "/Date(1896134400000+0000)/",
      }),
    });
    const { id } = await created.json();
    const page = await newPage(browser, scheme);
    await page.route(`${env.baseUrl}/**/event/2147483647/pages**`, () => {}); // never answered
    await page.goto(`${partner.origin}/event?event-id=2147483647`);
    await page.locator("fundraising-event [part=loading]").waitFor();
    await page.evaluate(({ id }) => {
      const first = document.querySelector("fundraising-event");
      for (const eventId of [String(id), "abc"]) {
        const node = first.cloneNode();
        node.setAttribute("event-id", eventId);
        node.setAttribute("loading", "eager");
        first.after(node);
      }
      for (const node of document.querySelectorAll("fundraising-event")) node.style.marginBottom = "1rem";
    }, { id });
    await page.locator("fundraising-event [part=empty]").waitFor();
    await page.locator("fundraising-event [part=error]").waitFor();
    await page.locator("main").screenshot({ path: `${OUT}widgets-event-states-${scheme}.png`, animations: "disabled" });
    written.push(`widgets-event-states-${scheme}.png`);
    await page.context().close();
  }
  // The card in each window without a Donate link, light and dark.
  for (const scheme of ["light", "dark"]) {
    const page = await newPage(browser, scheme);
    await page.goto(`${partner.origin}/card?campaign=demo-campaign-ended`);
    await page.evaluate(() => {
      const first = document.querySelector("fundraising-campaign");
      for (const name of ["demo-campaign-closed", "demo-campaign-upcoming"]) {
        const node = first.cloneNode();
        node.setAttribute("short-name", name);
        first.after(node);
      }
      for (const node of document.querySelectorAll("fundraising-campaign")) node.style.marginBottom = "1rem";
    });
    await page.waitForFunction(() => [...document.querySelectorAll("fundraising-campaign")]
      .every((node) => node.shadowRoot.querySelector("[part=dates]")));
    await page.locator("main").screenshot({ path: `${OUT}widgets-card-windows-${scheme}.png` });
    written.push(`widgets-card-windows-${scheme}.png`);
    await page.context().close();
  }
} finally {
  await browser.close();
  await partner.close();
}
console.log(`screenshots: ${written.map((name) => `docs/img/${name}`).join(", ")}`);
