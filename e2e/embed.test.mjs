// A partner's page on another origin, not in the companion's allowlist, embeds the widget under
// a strict Content-Security-Policy sent as a header (e2e/partner-site.mjs), in headless Chromium
// against the real companion and sandbox.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import {
  axeSeriousViolations, browserTests, consoleErrors, money, overflowingChildren, rawCampaign, servers,
} from "./harness.mjs";
import { startPartnerSite } from "./partner-site.mjs";
import { builtAssets, HASHED } from "./widget-assets.mjs";

const env = servers();
const it = browserTests({ timeout: 60_000 });

let partner;
before(async () => { partner = await startPartnerSite(env); });
after(async () => { await partner?.close(); });

it("the companion allows the partner's origin nothing on /auth/* but serves it the widget", async () => {
  assert.notEqual(partner.origin, new URL(env.companionUrl).origin);
  const session = await fetch(`${env.companionUrl}/auth/session`, { headers: { Origin: partner.origin } });
  assert.equal(session.headers.get("access-control-allow-origin"), null, "the partner origin must not be allowlisted");
  const widget = await fetch(`${env.companionUrl}/widget.js`, { headers: { Origin: partner.origin } });
  assert.equal(widget.status, 200);
  assert.equal(widget.headers.get("access-control-allow-origin"), "*");
  assert.equal(widget.headers.get("access-control-allow-credentials"), null);
});

it("a partner page on another origin under a strict CSP shows the card with its progress bar", async ({ page }) => {
  const raw = await rawCampaign(env);
  const problems = consoleErrors(page);
  const scripts = [];
  const fetched = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script") scripts.push(r.url());
    else fetched.push(r.url());
  });

  const response = await page.goto(`${partner.origin}/`);
  const csp = response.headers()["content-security-policy"];
  assert.equal(csp, partner.csp);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/, "the policy allows no inline script or style and no eval");
  assert.match(csp, /script-src 'self' http:\/\/127\.0\.0\.1:\d+ 'wasm-unsafe-eval'/);

  const widget = page.locator("fundraising-campaign");
  const bar = widget.locator("[role=progressbar]");
  await bar.waitFor();
  const raised = raw.DonationSummary.TotalAmount;
  assert.equal(Number(await bar.getAttribute("aria-valuenow")), Math.min(raised, raw.TargetAmount));
  assert.equal(Number(await bar.getAttribute("aria-valuemax")), raw.TargetAmount);
  assert.equal(await bar.getAttribute("aria-valuemin"), "0");
  assert.ok((await bar.getAttribute("aria-valuetext")).startsWith(`${money(raised, "GBP")} raised of a ${money(raw.TargetAmount, "GBP")} target`));
  assert.equal(await widget.locator("h2").textContent(), raw.Title);
  assert.equal(await widget.locator("[data-field=raised]").textContent(), money(raised, "GBP"));

  // The card's styles apply although the page's CSP has no 'unsafe-inline': the shadow root's
  // constructed style sheet and the bar's width set through the CSSOM.
  const looks = await page.evaluate(() => {
    const root = document.querySelector("fundraising-campaign").shadowRoot;
    const card = getComputedStyle(root.querySelector(".card"));
    const bar = root.querySelector("[role=progressbar]");
    const fill = root.querySelector(".fill");
    return {
      radius: card.borderTopLeftRadius,
      barWidth: bar.getBoundingClientRect().width,
      fillWidth: fill.getBoundingClientRect().width,
      fillStyleAttribute: fill.getAttribute("style"),
      pageScripts: document.scripts.length,
    };
  });
  assert.equal(looks.radius, "12px");
  const expected = (Math.min(raised, raw.TargetAmount) / raw.TargetAmount) * looks.barWidth;
  assert.ok(Math.abs(looks.fillWidth - expected) < 1.5, `fill ${looks.fillWidth}px, expected ${expected}px`);
  assert.equal(looks.pageScripts, 1, "one script tag on the partner page");

  // The page ran nothing but widget.js (one module, its texts and theme within) and the package,
  // all from the companion: the card's build (a campaign), under its content-hashed names, which
  // widget.js holds.
  const companion = new URL(env.companionUrl).origin;
  const { card: build } = await builtAssets();
  assert.deepEqual(scripts.filter((s) => !s.startsWith(`${companion}/pkg/`)), [`${companion}/widget.js`]);
  const pkgScripts = scripts.filter((s) => s.startsWith(`${companion}/pkg/`));
  // The build is one module: the card's build's hashed copy, and no other script of it.
  assert.deepEqual(pkgScripts, [`${companion}/pkg/${build.js}`]);
  assert.ok(HASHED.test(build.js), `not a hashed copy of the card's build: ${build.js}`);
  assert.deepEqual(fetched.filter((u) => u.endsWith(".wasm")), [`${companion}/pkg/${build.wasm}`]);

  assert.deepEqual(await axeSeriousViolations(page), []);
  problems.check();
  assert.deepEqual(partner.reports, [], "CSP violation reports");
});

it("the partner page at 390 px: nothing overflows the card", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${partner.origin}/`);
  await page.locator("fundraising-campaign [role=progressbar]").waitFor();
  const measured = await overflowingChildren(page, ".card");
  assert.equal(measured.cards, 1);
  assert.deepEqual(measured.problems, []);
  assert.ok(measured.documentOverflow <= 0, `the page scrolls sideways by ${measured.documentOverflow}px`);
});
