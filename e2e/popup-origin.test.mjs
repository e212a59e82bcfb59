// End-to-end test of the sign-in pop-up's hand-back, on the sending side: the callback page (the
// demo's home page, the redirect URI) opened as a pop-up posts the callback only to an opener of
// its own origin. A page of another origin (a tiny server on its own port) that opens our callback
// URL in a pop-up, with a code and a state no sign-in of its own is waiting for, hears nothing,
// while an opener of our origin doing exactly the same receives the callback. (The receiving side,
// the opener taking messages only from its own origin and for its own state, is tests/signin.rs.)
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before } from "node:test";
import { browserTests, servers } from "./harness.mjs";

const env = servers();
const it = browserTests({ timeout: 60_000 });

/** The `type` of the pop-up's message (src/auth/popup.rs). */
const MESSAGE_TYPE = "fundraising-client:callback";

/** How long an opener keeps listening after the pop-up closed itself. */
const LISTEN_AFTER_CLOSE_MS = 1_500;

/** Another origin: a blank page on 127.0.0.1 on a port of its own. */
let otherSite;
let otherOrigin;
before(async () => {
  otherSite = createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>another site</title><p>another site</p>");
  });
  await new Promise((resolve) => otherSite.listen(0, "127.0.0.1", resolve));
  otherOrigin = `http://127.0.0.1:${otherSite.address().port}`;
});
after(() => otherSite?.close());

/** A callback URL of our origin: a code and a state, as the identity server would send them. */
function callbackUrl(label) {
  const state = `${label}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  return `${env.companionUrl}/?code=e2e-code-${label}&state=${state}`;
}

/**
 * From `page` (already on the opener's origin): listens for every message, opens `url` in a
 * pop-up, waits until the pop-up closes itself (the callback page hands over, then closes), and
 * keeps listening a moment longer. Returns the messages received, each as `{origin, data}`.
 */
async function openAndListen(page, url) {
  await page.evaluate(() => {
    globalThis.__e2eMessages = [];
    addEventListener("message", (e) => globalThis.__e2eMessages.push({ origin: e.origin, data: e.data }));
  });
  const popupOpened = page.waitForEvent("popup");
  // Playwright's evaluate carries a user gesture, so the pop-up blocker lets this window open.
  await page.evaluate((url) => { globalThis.__e2ePopup = window.open(url, "e2e-opened", "popup,width=500,height=680"); }, url);
  const popup = await popupOpened;
  if (!popup.isClosed()) await popup.waitForEvent("close", { timeout: 30_000 });
  await page.waitForTimeout(LISTEN_AFTER_CLOSE_MS);
  return page.evaluate(() => globalThis.__e2eMessages);
}

it("a pop-up opened by another origin on our callback URL posts nothing to that opener", async ({ page }) => {
  await page.goto(`${otherOrigin}/`);
  assert.notEqual(new URL(page.url()).origin, env.companionUrl);
  const url = callbackUrl("other-origin");
  const messages = await openAndListen(page, url);
  assert.deepEqual(messages, [], `another origin heard the callback: ${JSON.stringify(messages)}`);
});

it("a pop-up opened by our own origin on our callback URL hands the callback to that opener", async ({ page }) => {
  await page.goto(`${env.companionUrl}/healthz`);
  const url = callbackUrl("own-origin");
  const messages = await openAndListen(page, url);
  assert.deepEqual(messages, [{ origin: env.companionUrl, data: { type: MESSAGE_TYPE, url } }]);
});
