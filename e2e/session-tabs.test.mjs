// End-to-end test of the session across tabs: two pages of the demo in one browser context (one
// origin, one companion cookie). The demo's header follows the client's `sessionchange` event:
// a sign-in in one tab is picked up by the other through the companion's session, and a
// sign-out in one tab signs the other out (BroadcastChannel), neither reloaded.
import assert from "node:assert/strict";
import { USER, browserTests, openDemo, servers, signInByPopup } from "./harness.mjs";

const env = servers();
const it = browserTests({ timeout: 90_000 });

/** Marks the document; a reload or navigation loses the mark. */
async function mark(page, name) {
  await page.evaluate((name) => { globalThis.__e2eMark = name; }, name);
}

async function marked(page) {
  return page.evaluate(() => globalThis.__e2eMark ?? null);
}

it("two tabs: a sign-in in A shows the name in B, a sign-out in B signs A out, without reloads", async ({ page, context }) => {
  const pageA = page;
  const pageB = await context.newPage();
  await openDemo(pageA, env.companionUrl);
  await openDemo(pageB, env.companionUrl);
  for (const p of [pageA, pageB]) {
    await p.locator("#sign-in").waitFor();
    assert.equal(await p.locator("body").getAttribute("data-signed-in"), "false");
  }
  await mark(pageA, "A");
  await mark(pageB, "B");
  const reasons = { A: [], B: [] };
  for (const [name, p] of [["A", pageA], ["B", pageB]]) {
    await p.exposeBinding(`__e2eSessionChange${name}`, (_source, detail) => reasons[name].push(detail));
    await p.evaluate((name) => document.addEventListener("session-change", (e) => {
      globalThis[`__e2eSessionChange${name}`](e.detail ? e.detail.profile?.name ?? "?" : null);
    }), name);
  }

  // Sign in on A by pop-up; B was open all along and picks the session up.
  await signInByPopup(pageA);
  await pageA.locator("#signed-in").waitFor();
  assert.equal(await pageA.locator("#user-name").textContent(), USER.name);
  await pageB.locator("#signed-in").waitFor();
  assert.equal(await pageB.locator("#user-name").textContent(), USER.name);
  assert.equal(await pageB.locator("#sign-in").isVisible(), false);
  assert.equal(await pageB.locator("body").getAttribute("data-signed-in"), "true");
  assert.equal(await marked(pageB), "B", "B was reloaded");

  // Sign out on B; A follows.
  await pageB.locator("#sign-out").click();
  await pageB.locator("#sign-in").waitFor();
  await pageA.locator("#sign-in").waitFor();
  assert.equal(await pageA.locator("#signed-in").isVisible(), false);
  assert.equal(await pageA.locator("#user-name").textContent(), "");
  assert.equal(await pageA.locator("body").getAttribute("data-signed-in"), "false");
  assert.equal(await marked(pageA), "A", "A was reloaded");
  assert.equal(await marked(pageB), "B", "B was reloaded");

  // The sign-out reached the companion: it holds no session for this browser any more.
  const session = await pageA.evaluate(async () => (await fetch("/auth/session", { credentials: "include" })).json());
  assert.equal(session.active, false);

  // The page's own `session-change` told the other sections of each tab, once per change.
  assert.deepEqual(reasons.A, [USER.name, null]);
  assert.deepEqual(reasons.B, [USER.name, null]);
});

it("a session the companion no longer holds: the next call signs the page out and says so", async ({ page, context }) => {
  await openDemo(page, env.companionUrl);
  await signInByPopup(page);
  await page.locator("#signed-in").waitFor();
  await mark(page, "A");
  // The companion's cookie is gone (as when its session ended), and the page's access token is
  // due for renewal: the page's clock jumps two hours ahead (Date.now is what the client reads).
  await context.clearCookies();
  await page.evaluate(() => {
    const now = Date.now.bind(Date);
    Date.now = () => now() + 2 * 60 * 60 * 1000;
  });
  // A call that needs the token: the renewal fails, the client fires `sessionchange` "expired".
  await page.locator("#donation-ref").fill("demo-ref-2");
  await page.locator("#donation-form button[type=submit]").click();
  await page.locator("#sign-in").waitFor();
  assert.equal(await page.locator("#signed-in").isVisible(), false);
  assert.equal(await page.locator("body").getAttribute("data-signed-in"), "false");
  const banner = page.locator("#auth-message");
  await banner.waitFor();
  assert.match(await banner.textContent(), /session has ended/);
  assert.equal(await banner.getAttribute("data-kind"), "info");
  assert.equal(await marked(page), "A", "the page was reloaded");
});
