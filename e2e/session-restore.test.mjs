// The session a page restores through the package, in Chromium, for each app that signs in (the
// demo, the demo in BFF mode, the Leptos example; e2e/apps.mjs): signed in, a reload shows the
// session again with no second sign-in, and a sign-out in another tab of the same browser signs
// this one out without a reload. Then the demo with no companion configured (it asks none) and
// with a companion that is down (signed out, with a readable error carrying the code).
import assert from "node:assert/strict";
import { describe } from "node:test";
import { SESSION, authRequests, documentMark, markDocument, sessionIn, signingApps } from "./apps.mjs";
import { USER, browserTests, freePort, servers, signInByPopup } from "./harness.mjs";

const env = servers();
const apps = signingApps();
const it = browserTests({ timeout: 90_000 });

/** Waits until the page's session state is `state`. */
function sessionState(page, state) {
  return page.locator(sessionIn(state)).waitFor();
}

/** A loopback address nothing listens on: a port the system gave, closed again. */
async function closedAddress() {
  return `http://127.0.0.1:${await freePort()}`;
}

/**
 * Lets the page connect anywhere, as a site's policy lets it reach the companion it configures
 * (the demo's own policy names only its own companion). Chromium's CSP bypass, through CDP: the
 * document is still the companion's answer, in its own address space.
 */
async function allowAnyConnection(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Page.setBypassCSP", { enabled: true });
}

/**
 * Serves the demo page a configuration of its own (what `config/HOST_PORT.json` would say):
 * the servers' addresses with `changes` applied.
 */
async function configureDemo(page, changes) {
  const { path, ...config } = env;
  await page.route(/\/config\/[^/]+\.json$/, (route) => route.fulfill({ json: { ...config, ...changes } }));
}

describe("a session across reloads and tabs", () => {
  for (const app of apps) {
    it(`${app.name}: a reload shows the session again with no second sign-in; a sign-out in another tab signs this one out`, async ({ page, context }) => {
      const exchanges = [];
      context.on("request", (r) => {
        if (r.method() === "POST" && r.url() === `${app.url}/auth/token`) exchanges.push(r.url());
      });
      await page.goto(`${app.url}/`);
      await sessionState(page, "signedOut");
      await signInByPopup(page);
      await sessionState(page, "signedIn");
      assert.equal(await page.locator("#user-name").textContent(), USER.name);
      assert.equal(exchanges.length, 1);

      // A reload: the page starts unknown and the package asks the companion, which still holds
      // the session; no pop-up, no visit to the identity server, no second code exchange.
      const popups = [];
      context.on("page", (p) => popups.push(p));
      const visited = [];
      page.on("framenavigated", (f) => { if (f === page.mainFrame()) visited.push(f.url()); });
      await page.reload();
      await sessionState(page, "signedIn");
      assert.equal(await page.locator("#user-name").textContent(), USER.name);
      assert.deepEqual(popups, []);
      assert.deepEqual(visited, [`${app.url}/`]);
      assert.equal(exchanges.length, 1, "a second sign-in");
      const asked = await page.evaluate(authRequests);
      assert.equal(asked.session, 1, JSON.stringify(asked));
      assert.equal(asked.token, 0, JSON.stringify(asked));

      // Another tab of the same browser restores the session too, and signs out there.
      await page.evaluate(markDocument, "A");
      const other = await context.newPage();
      await other.goto(`${app.url}/`);
      await sessionState(other, "signedIn");
      assert.equal(await other.locator("#user-name").textContent(), USER.name);
      await other.locator("#sign-out").click();
      await sessionState(other, "signedOut");
      // This tab follows, without a reload.
      await sessionState(page, "signedOut");
      assert.equal(await page.locator("#sign-in").isVisible(), true);
      assert.equal(await page.locator("#user-name:visible").count(), 0);
      assert.equal(await page.evaluate(documentMark), "A", "the page was reloaded");
    });
  }
});

describe("the demo without a companion, and with one that is down", () => {
  it("no companion configured: signed out from the start, and no request to a companion", async ({ page, context }) => {
    const asked = [];
    context.on("request", (r) => { if (new URL(r.url()).pathname.startsWith("/auth/")) asked.push(r.url()); });
    await configureDemo(page, { companionUrl: null });
    await page.goto(`${env.companionUrl}/`);
    await page.locator("body[data-ready=true]").waitFor();
    assert.equal(await page.locator(SESSION).getAttribute("data-session"), "signedOut");
    assert.equal(await page.locator("#sign-in").isVisible(), true);
    // The page reads public data all the same.
    await page.locator("#campaign [role=progressbar]").waitFor();
    await page.locator("#pages-position[data-page='1']").waitFor();
    assert.equal(await page.locator("#auth-message").isVisible(), false);
    assert.deepEqual(asked, []);
  });

  it("a companion that is down: signed out, with a readable error and its code, and the page works", async ({ page }) => {
    const down = await closedAddress();
    await configureDemo(page, { companionUrl: down });
    await allowAnyConnection(page);
    const restore = page.waitForRequest((r) => r.url() === `${down}/auth/session`);
    await page.goto(`${env.companionUrl}/`);
    await restore;
    await page.locator("body[data-ready=true]").waitFor();
    assert.equal(await page.locator(SESSION).getAttribute("data-session"), "signedOut");
    assert.equal(await page.locator("#sign-in").isVisible(), true);
    assert.equal(await page.locator("#auth-loading").isVisible(), false);
    const banner = page.locator("#auth-message");
    assert.equal(await banner.isVisible(), true);
    assert.equal(await banner.getAttribute("data-code"), "network_error");
    assert.match(await banner.textContent(), /^Could not check whether you are signed in, so the page goes on signed out: .+ \[network_error\]$/);
    await page.locator("#campaign [role=progressbar]").waitFor();
    await page.locator("#pages-position[data-page='1']").waitFor();
  });
});
