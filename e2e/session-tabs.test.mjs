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
