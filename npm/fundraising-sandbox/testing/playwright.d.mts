import type { Page, TestType, PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions } from "@playwright/test";
import type { SignedIn, SignInOptions } from "./index.mjs";

export { expect } from "@playwright/test";

/** Where the app is and how it signs in. */
export interface FundraisingApp extends SignInOptions {
  /** The app's page to open (default: the companion's `/`). */
  url?: string;
}

/** The fixtures this `test` adds. */
export interface FundraisingFixtures {
  /** The sandbox user the page signs in as (an option: `test.use({ fundraisingUser })`). */
  fundraisingUser: string;
  /** The app's address and sign-in options (an option). */
  fundraisingApp: FundraisingApp;
  /** The user's session; the test's browser context holds its cookies. */
  fundraisingSession: SignedIn;
  /** A page of the app, open, whose own client has restored the user's session. */
  signedInPage: Page;
}

export const test: TestType<
  PlaywrightTestArgs & PlaywrightTestOptions & FundraisingFixtures,
  PlaywrightWorkerArgs & PlaywrightWorkerOptions
>;
