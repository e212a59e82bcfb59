// fundraising-sandbox/testing/playwright: Playwright Test's `test`, extended with a page that
// starts signed in as a named sandbox user, through the app's own client. Needs
// @playwright/test (a peer dependency).
import { test as base, expect } from "@playwright/test";
import { signInContext } from "./index.mjs";

export { expect };

export const test = base.extend({
  /** The sandbox user the page signs in as. */
  fundraisingUser: ["demo@example.org", { option: true }],
  /** Where the app is and how it signs in (defaults: what exec exported; the app at the companion's "/"). */
  fundraisingApp: [{}, { option: true }],
  /** The user's session, signed in through the companion; the context holds its cookies. */
  fundraisingSession: async ({ context, fundraisingUser, fundraisingApp }, use) => {
    await use(await signInContext(context, fundraisingUser, fundraisingApp));
  },
  /**
   * A page of the app, open and signed in: its own client has restored the session from the
   * companion (the page's `/auth/refresh` or, in BFF mode, `/auth/session` answered).
   */
  signedInPage: async ({ page, fundraisingSession, fundraisingApp }, use) => {
    void fundraisingSession;
    const companion = (fundraisingApp.companionUrl ?? process.env.FUNDRAISING_COMPANION_URL).replace(/\/+$/, "");
    const restored = page.waitForResponse((response) => {
      const url = new URL(response.url());
      return url.origin === new URL(companion).origin && ["/auth/refresh", "/auth/session"].includes(url.pathname);
    });
    await page.goto(fundraisingApp.url ?? `${companion}/`);
    const answer = await restored;
    if (!answer.ok()) throw new Error(`the app's client did not restore the session: ${answer.status()} ${await answer.text()}`);
    await use(page);
  },
});
