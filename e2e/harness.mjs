// Shared set-up of the end-to-end tests: the servers' addresses, headless Chromium through
// playwright-core (the system's /usr/bin/chromium, never a downloaded browser), sign-in steps,
// and the artifacts a failing test leaves in test-artifacts/ (a screenshot and the console log).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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
    const page = await context.newPage();
    try {
      await body({ page, context, t });
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
