// The session a page restores through the package, in Firefox and WebKit (e2e/webdriver.mjs),
// for each app that signs in (the demo, the demo in BFF mode, the Leptos example; e2e/apps.mjs):
// signed in by pop-up, a reload shows the session again with no second sign-in, and a sign-out
// in another tab of the same browser signs the first tab out without a reload.
import assert from "node:assert/strict";
import { authRequests, documentMark, markDocument, sessionIn, signingApps } from "./apps.mjs";
import { USER } from "./harness.mjs";
import { click, forEachEngine, inPage, loginAndConsent, newWindow, waitForElement, waitUntil } from "./webdriver.mjs";

const apps = signingApps();

/** Waits (up to 30 s: a cold start compiles the wasm) until the page's session state is `state`. */
function sessionState(driver, state) {
  return waitForElement(driver, sessionIn(state), () => true, 30_000);
}

forEachEngine("the session across a reload and tabs", (it) => {
  for (const app of apps) {
    it(`${app.name}: a reload shows the session again with no second sign-in; a sign-out in another tab signs this one out`, async ({ driver }) => {
      await driver.get(`${app.url}/`);
      await sessionState(driver, "signedOut");
      const first = await driver.getWindowHandle();
      const known = await driver.getAllWindowHandles();

      // Sign in by pop-up, from a real click.
      await click(driver, "#sign-in");
      const popup = await newWindow(driver, known);
      await driver.switchTo().window(popup);
      await loginAndConsent(driver);
      await waitUntil(async () => !(await driver.getAllWindowHandles()).includes(popup), { message: "the pop-up to close" });
      await driver.switchTo().window(first);
      await sessionState(driver, "signedIn");
      assert.equal((await waitForElement(driver, "#user-name")).text, USER.name);

      // A reload: the package asks the companion, which still holds the session; no window
      // opens and the code is not exchanged again.
      await driver.navigate().refresh();
      await sessionState(driver, "signedIn");
      assert.equal((await waitForElement(driver, "#user-name")).text, USER.name);
      assert.equal(await driver.getCurrentUrl(), `${app.url}/`);
      assert.deepEqual(await driver.getAllWindowHandles(), known);
      const asked = await inPage(driver, authRequests);
      assert.equal(asked.session, 1, JSON.stringify(asked));
      assert.equal(asked.token, 0, JSON.stringify(asked));

      // Another tab of the same browser restores the session too, and signs out there.
      await inPage(driver, markDocument, "A");
      await driver.switchTo().newWindow("tab");
      await driver.get(`${app.url}/`);
      await sessionState(driver, "signedIn");
      await click(driver, "#sign-out");
      await sessionState(driver, "signedOut");
      // The first tab follows, without a reload.
      await driver.switchTo().window(first);
      await sessionState(driver, "signedOut");
      assert.equal((await waitForElement(driver, "#sign-in")).visible, true);
      assert.equal(await inPage(driver, documentMark), "A", "the page was reloaded");
    });
  }
});
