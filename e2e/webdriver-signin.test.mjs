// The demo's sign-in in Firefox and WebKit (e2e/webdriver.mjs), against the real sandbox and
// companion: by pop-up from a real click, as a donor reaches it, and by the redirect flow the
// demo falls back to when the browser blocks the pop-up (a click without a user gesture).
import assert from "node:assert/strict";
import { servers, USER } from "./harness.mjs";
import {
  click, clickWithoutUserGesture, cspViolations, forEachEngine, inPage, loginAndConsent, newWindow, openDemo,
  waitForElement, waitUntil, watchCsp,
} from "./webdriver.mjs";

const env = servers();

/** The companion's view of the session (its HttpOnly cookie), asked from the page. */
function companionSession(driver) {
  return inPage(driver, () => fetch("/auth/session", { credentials: "include" }).then((r) => r.json()));
}

forEachEngine("sign-in", (it) => {
  it("a click on Sign in opens the pop-up; login and consent there sign the page in; a reload keeps it; Sign out ends it", async ({ driver }) => {
    await openDemo(driver, env.companionUrl);
    await watchCsp(driver);
    assert.equal((await waitForElement(driver, "body")).attributes["data-signed-in"], "false");
    const main = await driver.getWindowHandle();
    const known = await driver.getAllWindowHandles();

    await click(driver, "#sign-in");
    // The pop-up opened from the click: the engine let it through.
    const popup = await newWindow(driver, known);
    assert.equal(await driver.getCurrentUrl(), `${env.companionUrl}/`, "the page itself stays where it is");
    await driver.switchTo().window(popup);
    await waitUntil(async () => (await driver.getCurrentUrl()).startsWith(env.authUrl), { message: "the pop-up at the identity server" });
    await loginAndConsent(driver);
    // The pop-up hands the callback to the page and closes itself.
    await waitUntil(async () => !(await driver.getAllWindowHandles()).includes(popup), { message: "the pop-up to close" });
    await driver.switchTo().window(main);
    const name = await waitForElement(driver, "#user-name", (r) => r.visible && r.text !== "");
    assert.equal(name.text, USER.name);
    assert.equal((await waitForElement(driver, "#sign-in")).visible, false);
    assert.equal((await waitForElement(driver, "#auth-message")).visible, false);
    assert.equal((await companionSession(driver)).active, true);
    assert.deepEqual(await cspViolations(driver), [], "Content-Security-Policy violations");
    // The watch does see violations in this engine: an inline script is one.
    await inPage(driver, () => {
      const script = document.createElement("script");
      script.textContent = "void 0";
      document.head.append(script);
    });
    const seen = await waitUntil(async () => (await cspViolations(driver)).length > 0 && cspViolations(driver), { message: "the inline script's violation" });
    assert.equal(seen.length, 1, JSON.stringify(seen));
    assert.match(seen[0].directive, /^script-src/);

    // A reload keeps the user signed in (a new access token through the companion's cookie).
    await openDemo(driver, env.companionUrl);
    assert.equal((await waitForElement(driver, "#user-name", (r) => r.text !== "")).text, USER.name);

    await click(driver, "#sign-out");
    await waitForElement(driver, "#sign-in", (r) => r.visible);
    assert.equal((await waitForElement(driver, "body")).attributes["data-signed-in"], "false");
    // The page shows the sign-out at once, then signOut() tells the companion: its session ends
    // when that call is answered.
    await waitUntil(async () => (await companionSession(driver)).active === false, { message: "the companion's session to end" });
    await openDemo(driver, env.companionUrl);
    assert.equal((await waitForElement(driver, "#sign-in", (r) => r.visible)).visible, true);
  });

  it("a pop-up closed before finishing shows a clear message", async ({ driver }) => {
    await openDemo(driver, env.companionUrl);
    const main = await driver.getWindowHandle();
    const known = await driver.getAllWindowHandles();
    await click(driver, "#sign-in");
    const popup = await newWindow(driver, known);
    await driver.switchTo().window(popup);
    await waitForElement(driver, "input[name=username]");
    await driver.close();
    await driver.switchTo().window(main);
    const banner = await waitForElement(driver, "#auth-message", (r) => r.visible);
    assert.match(banner.text, /window was closed/);
    assert.equal((await waitForElement(driver, "#signed-in")).visible, false);
  });

  it("a pop-up the browser blocks (no user gesture) gives popup_blocked, and the redirect flow signs in", async ({ driver }) => {
    await openDemo(driver, env.companionUrl);
    const known = await driver.getAllWindowHandles();
    // What the package answers: window.open returned null, so popup_blocked, at once.
    const answer = await inPage(driver, () => {
      const opened = window.open("about:blank", "_blank", "popup");
      if (opened) opened.close();
      return { opened: opened !== null };
    });
    assert.equal(answer.opened, false, "the engine opened a window for a script without a user gesture");

    // The demo's button clicked from script: the package answers popup_blocked and the demo
    // continues in this window.
    await clickWithoutUserGesture(driver, "#sign-in");
    await waitUntil(async () => (await driver.getCurrentUrl()).startsWith(env.authUrl), { message: "the redirect to the identity server" });
    assert.deepEqual(await driver.getAllWindowHandles(), known, "no pop-up may open");
    await loginAndConsent(driver);
    await waitUntil(async () => (await driver.getCurrentUrl()).startsWith(env.companionUrl), { message: "the way back to the demo" });
    const name = await waitForElement(driver, "#user-name", (r) => r.visible && r.text !== "", 30_000);
    assert.equal(name.text, USER.name);
    const url = new URL(await driver.getCurrentUrl());
    assert.equal(url.searchParams.has("code"), false, `code left in the address bar: ${url}`);
    assert.equal(url.searchParams.has("state"), false, `state left in the address bar: ${url}`);
  });

  it("signInWithPopup called from script answers popup_blocked with a FundraisingError", async ({ driver }) => {
    await openDemo(driver, env.companionUrl);
    const known = await driver.getAllWindowHandles();
    const error = await inPage(driver, async (config) => {
      const pkg = await import("/pkg/fundraising_client.js");
      await pkg.default();
      const client = new pkg.FundraisingClient(config);
      // popup_blocked comes at once; an answer still pending after 20 s is reported, not waited on.
      const pending = new Promise((resolve) => setTimeout(() => resolve({ pending: true }), 20_000));
      const answered = client.signInWithPopup().then(
        () => ({ resolved: true }),
        (e) => ({ isFundraisingError: e instanceof pkg.FundraisingError, code: e.code, message: e.message }),
      );
      return Promise.race([answered, pending]);
    }, {
      appId: env.appId, baseUrl: env.baseUrl, authUrl: env.authUrl, companionUrl: env.companionUrl,
      redirectUri: `${env.companionUrl}/`,
    });
    const windows = await driver.getAllWindowHandles();
    assert.deepEqual({ isFundraisingError: error.isFundraisingError, code: error.code }, { isFundraisingError: true, code: "popup_blocked" },
      `${JSON.stringify(error)}; windows before ${known.length}, after ${windows.length}`);
  });
});
