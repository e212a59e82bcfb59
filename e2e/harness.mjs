// Shared set-up of the end-to-end tests: the servers' addresses, headless Chromium through
// playwright-core (the system's /usr/bin/chromium, never a downloaded browser), sign-in steps,
// and the artifacts a failing test leaves in test-artifacts/ (a screenshot and the console log).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { writeConfig } from "./write-config.mjs";

/** test-artifacts/ at the repository root (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL("../test-artifacts/", import.meta.url));

/** Demo user of the sandbox. */
export const USER = { email: "demo@example.org", password: "demo-password", name: "Demo Fundraiser" };

/** Locale of every browser context; amounts in assertions are formatted with it too. */
export const LOCALE = "en-GB";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Addresses exported by scripts/with-servers.sh; also writes the demo page's configuration file. */
export function servers() {
  return writeConfig();
}

/**
 * The same for the demo served by the companion in BFF mode (FUNDRAISING_BFF_COMPANION_URL, for
 * the application FUNDRAISING_BFF_APP_ID): its page's configuration says `bff: true`.
 */
export function bffServers() {
  const companionUrl = process.env.FUNDRAISING_BFF_COMPANION_URL;
  if (!companionUrl) throw new Error("FUNDRAISING_BFF_COMPANION_URL is not set: run this inside scripts/with-servers.sh");
  return writeConfig({
    ...process.env,
    FUNDRAISING_COMPANION_URL: companionUrl,
    FUNDRAISING_APP_ID: process.env.FUNDRAISING_BFF_APP_ID || "demo-bff",
    FUNDRAISING_BFF: "1",
  });
}

/**
 * Launches Chromium with a fresh profile (playwright makes a new temporary user-data-dir per
 * launch). Pop-up blocking stays ON (playwright would turn it off by default): a real click may
 * open a pop-up, a script without a user gesture may not, exactly as for a person.
 */
export async function launchBrowser(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    ignoreDefaultArgs: ["--disable-popup-blocking"],
  });
}

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 80);
}

function removeArtifacts(prefix) {
  let names = [];
  try {
    names = readdirSync(ARTIFACTS);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(`${prefix}.`)) rmSync(`${ARTIFACTS}${name}`, { force: true });
  }
}

/**
 * Wraps a test body: gives it a fresh browser context and page, records every page's console
 * and errors, and on failure saves test-artifacts/<test>.png and <test>.console.log.
 */
export function inBrowser(getBrowser, body) {
  return async (t) => {
    const base = `${ARTIFACTS}${slug(t.name)}`;
    removeArtifacts(slug(t.name)); // a stale failure of an earlier run must not linger
    const browser = getBrowser();
    const context = await browser.newContext({ locale: LOCALE, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(20_000);
    const log = [];
    const watch = (page) => {
      const name = () => page.url() || "about:blank";
      page.on("console", (m) => {
        const source = m.location()?.url ? ` (${m.location().url})` : "";
        log.push(`[${new Date().toISOString()}] ${m.type()} ${name()}: ${m.text()}${source}`);
      });
      page.on("pageerror", (e) => log.push(`[${new Date().toISOString()}] pageerror ${name()}: ${e.stack ?? e}`));
      page.on("requestfailed", (r) => log.push(`[${new Date().toISOString()}] requestfailed ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
      page.on("framenavigated", (f) => { if (f === page.mainFrame()) log.push(`[${new Date().toISOString()}] navigated ${f.url()}`); });
    };
    context.on("page", watch);
    const violations = await watchCsp(context, log);
    const page = await context.newPage();
    try {
      await body({ page, context, t, log });
      // Whatever a test checks, a page that broke its own Content-Security-Policy fails it.
      assert.deepEqual(violations, [], "Content-Security-Policy violations");
    } catch (error) {
      mkdirSync(ARTIFACTS, { recursive: true });
      const pages = context.pages();
      for (const [index, p] of pages.entries()) {
        const file = `${base}${index === 0 ? "" : `.page${index}`}.png`;
        await p.screenshot({ path: file, fullPage: true }).catch((e) => log.push(`screenshot failed: ${e}`));
      }
      writeFileSync(`${base}.console.log`, `${log.join("\n")}\n`);
      error.message += `\n  (screenshot and console log: ${base}.png, ${base}.console.log)`;
      throw error;
    } finally {
      await context.close();
    }
  };
}

/**
 * Records every Content-Security-Policy violation of every page of the context: the page's own
 * `securitypolicyviolation` event (reported through a binding, which the page's CSP cannot
 * block) and Chromium's console message for it. Returns the list, filled as they happen.
 */
async function watchCsp(context, log) {
  const violations = [];
  await context.exposeBinding("__e2eCspViolation", ({ page }, v) => {
    violations.push(v);
    log.push(`[${new Date().toISOString()}] csp-violation ${page?.url()}: ${JSON.stringify(v)}`);
  });
  await context.addInitScript(() => {
    // Runs in every document before its own scripts; `securitypolicyviolation` bubbles to document.
    document.addEventListener("securitypolicyviolation", (e) => {
      globalThis.__e2eCspViolation?.({
        documentURI: e.documentURI,
        directive: e.effectiveDirective,
        blockedURI: e.blockedURI,
        sourceFile: e.sourceFile,
        line: e.lineNumber,
        sample: e.sample,
      });
    }, true);
  });
  context.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push({ console: m.text(), url: m.location()?.url });
  });
  return violations;
}

/**
 * Collects a page's console errors and uncaught exceptions from now on; `check()` asserts there
 * were none (the new tests hold the demo, the widget and the partner page to a clean console).
 */
export function consoleErrors(page) {
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console.error: ${m.text()} (${m.location()?.url ?? ""})`); });
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.stack ?? e}`));
  return {
    errors,
    check() {
      assert.deepEqual(errors, [], "the page logged errors");
    },
  };
}

/** axe-core's browser bundle (e2e/node_modules/axe-core/axe.min.js). */
let axeSource;

/**
 * Runs axe-core on the page's document (open shadow roots included) and returns its serious and
 * critical violations, each as `{id, impact, help, targets}`. axe is injected with
 * `page.evaluate`, which a page's CSP does not block (no script element, no inline script).
 */
export async function axeSeriousViolations(page) {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate(() => typeof globalThis.axe === "object"))) await page.evaluate(axeSource);
  const result = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" >>> ")) }));
}

/**
 * Measures every card (the elements matching `selector`, looked up in the document and in every
 * open shadow root) against its children: any visible descendant whose box sticks out of the
 * card's content box (inside its border and padding) is returned as `{card, element, overflow}`. Descendants of a scroll container inside
 * the card are clipped by it and are not measured (the container itself is). Also returns the
 * document's horizontal overflow (scrollWidth beyond the viewport).
 */
export async function overflowingChildren(page, selector) {
  return page.evaluate((selector) => {
    const TOLERANCE = 0.5;
    const name = (node) => {
      const parts = [node.localName];
      if (node.id) parts.push(`#${node.id}`);
      if (node.getAttribute("name")) parts.push(`[name=${node.getAttribute("name")}]`);
      else if (node.classList.length > 0) parts.push(`.${[...node.classList].join(".")}`);
      return parts.join("");
    };
    const allRoots = (root, out = [root]) => {
      for (const node of root.querySelectorAll("*")) if (node.shadowRoot) { out.push(node.shadowRoot); allRoots(node.shadowRoot, out); }
      return out;
    };
    const cards = allRoots(document).flatMap((root) => [...root.querySelectorAll(selector)]);
    const problems = [];
    const visit = (card, box, node) => {
      const children = [...node.children, ...(node.shadowRoot ? node.shadowRoot.children : [])];
      for (const child of children) {
        const style = getComputedStyle(child);
        if (style.display === "none" || style.visibility === "hidden") continue;
        const r = child.getBoundingClientRect();
        if (r.width > 0 || r.height > 0) {
          const overflow = {
            left: box.left - r.left, right: r.right - box.right, top: box.top - r.top, bottom: r.bottom - box.bottom,
          };
          const out = Object.fromEntries(Object.entries(overflow).filter(([, v]) => v > TOLERANCE).map(([k, v]) => [k, Math.round(v * 10) / 10]));
          if (Object.keys(out).length > 0) problems.push({ card: name(card), element: name(child), overflow: out });
        }
        const clips = style.overflowX !== "visible" || style.overflowY !== "visible";
        if (!clips) visit(card, box, child);
      }
    };
    // The card's content box: its children must stay inside its border and padding.
    const contentBox = (card) => {
      const r = card.getBoundingClientRect();
      const c = getComputedStyle(card);
      const px = (v) => parseFloat(v) || 0;
      return {
        left: r.left + px(c.borderLeftWidth) + px(c.paddingLeft),
        right: r.right - px(c.borderRightWidth) - px(c.paddingRight),
        top: r.top + px(c.borderTopWidth) + px(c.paddingTop),
        bottom: r.bottom - px(c.borderBottomWidth) - px(c.paddingBottom),
      };
    };
    for (const card of cards) visit(card, contentBox(card), card);
    return {
      cards: cards.length,
      problems,
      documentOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    };
  }, selector);
}

/** Saves a full-page screenshot under test-artifacts/ (for the closing note). */
export async function keepScreenshot(page, name, options = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}${name}`;
  await page.screenshot({ path, ...options });
  return path;
}

/** Opens the demo page and waits until every section is wired to the client. */
export async function openDemo(page, companionUrl) {
  await page.goto(`${companionUrl}/`);
  await page.locator("body[data-ready=true]").waitFor();
}

/** Fills in the sandbox's real login page (unless its session cookie skips it) and answers the consent page. */
export async function loginAndConsent(page, answer = "allow") {
  const username = page.locator("input[name=username]");
  await page.locator("input[name=username], [name=allow]").first().waitFor();
  if (await username.isVisible()) {
    await username.fill(USER.email);
    const password = page.locator("input[name=password]");
    await password.fill(USER.password);
    await password.press("Enter");
  }
  await page.locator(`[name=${answer}]`).click();
}

/** Clicks Sign in on the demo page and goes through the pop-up; resolves when the pop-up is gone. */
export async function signInByPopup(page, answer = "allow") {
  const popupOpened = page.waitForEvent("popup");
  await page.locator("#sign-in").click();
  const popup = await popupOpened;
  await loginAndConsent(popup, answer);
  if (!popup.isClosed()) await popup.waitForEvent("close");
  return popup;
}

/**
 * Clicks an app's #sign-in with no user gesture, so the browser blocks the pop-up and the app
 * signs in by redirect instead: through the login and consent pages in this window and back to
 * `appUrl`, where it finishes the sign-in. Asserts that no pop-up opened and that the app took
 * `code` and `state` out of the address bar.
 */
export async function signInByRedirect(page, { appUrl, authUrl }) {
  const popups = [];
  const onPopup = (p) => popups.push(p);
  page.on("popup", onPopup);
  const leaving = page.waitForURL((url) => url.href.startsWith(authUrl));
  // No user gesture: Chromium's pop-up blocker makes window.open return null (popup_blocked).
  await clickWithoutUserGesture(page, "#sign-in");
  await leaving;
  await loginAndConsent(page);
  await page.waitForURL((url) => url.href.startsWith(appUrl));
  await page.locator("[data-session=signedIn]").waitFor();
  page.off("popup", onPopup);
  assert.equal(popups.length, 0, "no pop-up may open");
  const url = new URL(page.url());
  assert.equal(url.searchParams.has("code"), false, `code left in the address bar: ${url}`);
  assert.equal(url.searchParams.has("state"), false, `state left in the address bar: ${url}`);
}

/** A free loopback port (closed again: whoever needs it binds it right after). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Amount formatted as the page formats it (same locale, Intl.NumberFormat). */
export function money(amount, currency) {
  return new Intl.NumberFormat(LOCALE, { style: "currency", currency }).format(Number(amount));
}

/**
 * Clicks an element from script with no user gesture, as a page's own timer would: Chromium's
 * pop-up blocker then makes window.open return null. Waits first (deadline 15 s) until the
 * transient activation left by earlier automation has expired.
 */
export async function clickWithoutUserGesture(page, selector) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", {
      userGesture: false,
      awaitPromise: true,
      returnByValue: true,
      expression: `new Promise((resolve, reject) => {
        const deadline = Date.now() + 15000;
        const tick = () => {
          if (!navigator.userActivation.isActive) {
            document.querySelector(${JSON.stringify(selector)}).click();
            resolve("clicked");
          } else if (Date.now() > deadline) {
            reject(new Error("the page kept its user activation"));
          } else {
            setTimeout(tick, 100);
          }
        };
        tick();
      })`,
    });
    if (exceptionDetails) throw new Error(`click without gesture failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/**
 * Registers one browser for the test file (launched before, closed after) and returns
 * `it(name, body)`: a test with a time limit whose body runs in a fresh context (see inBrowser).
 */
export function browserTests({ timeout = 90_000 } = {}) {
  let browser;
  before(async () => { browser = await launchBrowser(); });
  after(async () => { await browser?.close(); });
  return (name, body) => test(name, { timeout }, inBrowser(() => browser, body));
}

/** The campaign `demo-campaign` exactly as the sandbox's resource API sends it (PascalCase). */
export async function rawCampaign(env) {
  const response = await fetch(`${env.baseUrl}/${env.appId}/v1/campaign/byshortname/demo-campaign`);
  assert.equal(response.status, 200);
  return response.json();
}

/** The donation the tests stage (the demo's form stages the same amount and message). */
export const DONATION = {
  amount: "12.50",
  currency_code: "GBP",
  donor_display_name: "Kim",
  message: "Well done!",
  share_message: true,
};

/**
 * Runs in the page (Playwright's `page.evaluate` or WebDriver's `inPage`, with the servers'
 * `{baseUrl, appId}`): adds `#unknown`, a card for a campaign the sandbox does not have, and
 * `#partial`, a card without its `app-id`, so both show the widget's error state.
 */
export function addErrorCards({ baseUrl, appId }) {
  const unknown = document.createElement("fundraising-campaign");
  unknown.id = "unknown";
  unknown.setAttribute("short-name", "no-such-campaign");
  unknown.setAttribute("app-id", appId);
  unknown.setAttribute("base-url", baseUrl);
  const partial = document.createElement("fundraising-campaign");
  partial.id = "partial";
  partial.setAttribute("short-name", "demo-campaign");
  document.body.append(unknown, partial);
}

/**
 * Stages a donation through the sandbox's test-only route (`enable_test_routes`, on in
 * scripts/with-servers.sh): 404 for `appears_after_secs`, then `Pending`, then `final_status`
 * from `final_after_secs` on, counted from now. A fresh reference unless `entry` names one;
 * resolves with the reference.
 */
export async function stageDonation(env, entry = {}) {
  const reference = entry.reference ?? `e2e-return-${crypto.randomUUID()}`;
  const response = await fetch(`${env.baseUrl}/_sandbox/staged-donations`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...entry, reference }),
  });
  assert.equal(response.status, 201, `staging ${reference}: ${await response.text()}`);
  return reference;
}
