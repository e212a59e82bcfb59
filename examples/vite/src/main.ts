// A page on the npm package: it shows a campaign, keeps the visitor's session across reloads
// and tabs, and signs them in by pop-up (by redirect when the browser blocks the pop-up)
// through the companion, which holds the secret.
//
// One origin: the page, the companion (through the dev server's proxy with `npm run dev`, or
// serving the build) and the application's registered home page, where the sign-in comes back.
import init, { FundraisingClient, FundraisingError } from "fundraising-client";
import type { Session, SessionState } from "fundraising-client";

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

/** The session as the page shows it: a loading state until the restore has answered. */
function render(state: SessionState, session: Session | null): void {
  $("status").textContent =
    state === "unknown"
      ? "Checking your session…"
      : session
        ? `Signed in as ${session.profile.name ?? session.profile.sub}`
        : "Signed out";
  $("sign-in").hidden = state !== "signedOut";
  $("sign-out").hidden = state !== "signedIn";
}

function problem(e: unknown): string {
  return e instanceof FundraisingError ? `${e.message} (${e.code})` : String(e);
}

async function main(): Promise<void> {
  await init(); // Vite emits the .wasm beside the bundle and init() fetches it from there
  const client = new FundraisingClient({
    appId: __APP_ID__,
    baseUrl: __BASE_URL__,
    authUrl: __AUTH_URL__,
    redirectUri: `${location.origin}/`,
    companionUrl: location.origin,
    scopes: ["fundraise", "offline_access"],
  });
  const show = (): void => render(client.sessionState, client.session);
  client.addEventListener("sessionchange", show); // sign-in, refresh, expiry, sign-out, other tabs
  show();

  // Finishes a sign-in that comes back to this page, or else asks the companion whether it
  // still holds the session (after a reload). A failure leaves the page signed out.
  try {
    await client.restoreSession();
  } catch (e) {
    $("note").textContent = `Could not check whether you are signed in: ${problem(e)}`;
  }
  // Still unknown: this is the sign-in pop-up, which has handed its callback to the page that
  // opened it and is being closed. It calls nothing more.
  if (client.sessionState === "unknown") return;

  $("sign-in").addEventListener("click", async () => {
    try {
      await client.signInWithPopup(); // opened inside the click, so the browser allows it
    } catch (e) {
      if (e instanceof FundraisingError && e.code === "popup_blocked") await client.signInWithRedirect();
      else $("note").textContent = `Signing in failed: ${problem(e)}`;
    }
  });
  $("sign-out").addEventListener("click", () => void client.signOut());

  const campaign = await client.getCampaign("demo-campaign");
  $("campaign").textContent = campaign.title ?? campaign.shortName;
  const { totalAmount } = campaign.donationSummary;
  $("raised").textContent = `${campaign.currency.currencySymbol}${totalAmount} raised of ${campaign.targetAmount}`;
}

main().catch((e: unknown) => {
  $("note").textContent = problem(e);
});
