// Uses every export of fundraising-sandbox/testing and its Playwright fixture, as a strict
// TypeScript project would (testing-kit.test.mjs compiles it against the packed declarations).
import { faults, requests, sandbox, signIn, signInContext, type Cookie, type SignedIn } from "fundraising-sandbox/testing";
import { expect, test } from "fundraising-sandbox/testing/playwright";

export async function kit(context: { addCookies(cookies: Cookie[]): Promise<void> }): Promise<string> {
  const session: SignedIn = await signIn("demo@example.org", { scopes: ["offline_access"] });
  const token: string | undefined = session.accessToken;
  await signInContext(context, "demo@example.org", { appId: "my-app", companionUrl: "http://127.0.0.1:8080" });
  const id: number = await faults.add({ endpoint: "campaign", status: 503, times: 1 });
  await faults.remove(id);
  const removed: number = await faults.clear();
  const since: number = await requests.lastId();
  const logged = await requests.since(since, { endpoint: "campaign" });
  const status: number | null = logged[0]?.status ?? null;
  await sandbox("POST", "/_sandbox/clock", { advance_secs: 60 });
  return `${token ?? ""}${removed}${status}${(await faults.list()).length}`;
}

test.use({ fundraisingUser: "demo@example.org", fundraisingApp: { url: "http://127.0.0.1:8080/" } });
test("typed", async ({ signedInPage, fundraisingSession }) => {
  expect(fundraisingSession.profile.name).toBe("Demo Fundraiser");
  await expect(signedInPage.locator("#name")).toHaveText("Demo Fundraiser");
});
