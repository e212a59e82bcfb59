// End-to-end test of BFF mode: the demo site served by the second companion that
// scripts/with-servers.sh starts with --bff (FUNDRAISING_BFF_COMPANION_URL, application
// FUNDRAISING_BFF_APP_ID). The page signs in through the sandbox's real login and consent pages,
// reads demo-ref-1 with the donor's real name through the companion's /api proxy, and no answer
// the page receives holds a token.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { USER, bffServers, browserTests, openDemo, signInByPopup } from "./harness.mjs";

const env = bffServers();
const { companionUrl } = env;
const it = browserTests({ timeout: 90_000 });

/** Member names that carry tokens in OAuth and in the companion's token-mediating answers. */
const TOKEN_MEMBERS = /"(access_?token|refresh_?token|id_?token)"\s*:/i;
/** The sandbox's tokens: 32 random bytes in base64url (43 characters); JWTs start with eyJ. */
const TOKEN_SHAPES = [/(^|[^A-Za-z0-9_-])[A-Za-z0-9_-]{43}([^A-Za-z0-9_-]|$)/, /eyJ[A-Za-z0-9_-]+\.eyJ/];

/**
 * Records every answer the page (and its pop-up) gets from the companion, with its body, and
 * every request header the page sends to it.
 */
function recordCompanionTraffic(context) {
  const answers = [];
  const requests = [];
  context.on("request", (request) => {
    if (request.url().startsWith(companionUrl)) requests.push({ url: request.url(), headers: request.headers() });
  });
  context.on("response", (response) => {
    const url = response.url();
    if (!url.startsWith(companionUrl)) return;
    const type = response.headers()["content-type"] ?? "";
    if (!type.includes("json")) return;
    answers.push(response.text().then((body) => ({ url, status: response.status(), headers: response.headers(), body }), () => null));
  });
  return { answers, requests };
}

describe("BFF mode", () => {
  it("signs in, shows demo-ref-1's donor name through the /api proxy, and no answer holds a token", async ({ page, context }) => {
    const traffic = recordCompanionTraffic(context);
    await openDemo(page, env.companionUrl);
    assert.equal(await page.evaluate(() => location.origin), companionUrl);

    // Signed out: the lookup goes through the proxy anonymously, without the donor's name.
    await page.locator("#donation-ref").fill("demo-ref-1");
    const anonymous = page.waitForResponse((r) => r.url() === `${companionUrl}/api/donation/ref/demo-ref-1`);
    await page.locator("#donation-form button[type=submit]").click();
    assert.equal((await anonymous).status(), 200);
    await page.locator("#donation-facts").waitFor();
    assert.equal(await page.locator("#donation-result [data-field=donorRealName]").count(), 0);

    const exchanged = page.waitForResponse((r) => r.url() === `${companionUrl}/auth/token`);
    await signInByPopup(page);
    const exchange = await exchanged;
    assert.equal(exchange.status(), 200);
    const answer = await exchange.json();
    assert.equal("accessToken" in answer, false, JSON.stringify(answer));
    assert.equal(answer.profile.name, USER.name);
    await page.locator("#signed-in").waitFor();
    assert.equal(await page.locator("#user-name").textContent(), USER.name);

    // Signing in repeats the lookup, through the proxy, which attaches the bearer token.
    const name = page.locator("#donation-result [data-field=donorRealName]");
    await name.waitFor();
    assert.ok((await name.textContent()).length > 0);

    // The package holds no token: the session has none and getAccessToken refuses.
    const held = await page.evaluate(async () => {
      const pkg = await import("/pkg/fundraising_client.js");
      await pkg.default();
      const config = await (await import("/config.js")).loadConfig();
      const client = new pkg.FundraisingClient({ ...config });
      const code = await client.getAccessToken().then(() => "resolved", (e) => e.code);
      return { code };
    });
    assert.equal(held.code, "token_not_available");

    // Nothing the page sent to the companion carried a bearer token; every resource call went
    // to /api with the CSRF header.
    const apiCalls = traffic.requests.filter((r) => new URL(r.url).pathname.startsWith("/api/"));
    assert.ok(apiCalls.length >= 2, `proxied calls: ${apiCalls.map((r) => r.url)}`);
    for (const request of traffic.requests) assert.equal(request.headers.authorization, undefined, request.url);
    for (const request of apiCalls) assert.equal(request.headers["x-fundraising-client"], "1", request.url);

    // No JSON answer from the companion holds a token (by member name or by the tokens' shape).
    const bodies = (await Promise.all(traffic.answers)).filter(Boolean);
    assert.ok(bodies.some((a) => a.url.endsWith("/auth/token")), "the exchange was seen");
    assert.ok(bodies.some((a) => a.url.endsWith("/api/donation/ref/demo-ref-1") && a.body.includes("donorRealName")));
    for (const { url, body, headers } of bodies) {
      assert.doesNotMatch(body, TOKEN_MEMBERS, `${url}: ${body}`);
      for (const shape of TOKEN_SHAPES) assert.doesNotMatch(body, shape, `${url}: ${body}`);
      for (const [header, value] of Object.entries(headers)) {
        if (header === "set-cookie") continue; // sealed and HttpOnly
        for (const shape of TOKEN_SHAPES) assert.doesNotMatch(value, shape, `${url} ${header}`);
      }
    }
    // The session cookie is HttpOnly: the page's script cannot read it.
    assert.equal(await page.evaluate(() => document.cookie.includes("fundraising_session")), false);
  });
});
