// A page on the npm package: it shows a campaign, and signs the visitor in by pop-up (by
// redirect when the browser blocks the pop-up) through the companion, which holds the secret.
import init, { FundraisingClient, FundraisingError } from "fundraising-client";
import type { Session } from "fundraising-client";

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

function showSession(session: Session | null): void {
  $("status").textContent = session ? `Signed in as ${session.profile.name ?? session.profile.sub}` : "Signed out";
  $("sign-in").hidden = session !== null;
  $("sign-out").hidden = session === null;
}

async function main(): Promise<void> {
  await init(); // Vite emits the .wasm beside the bundle and init() fetches it from there
  const client = new FundraisingClient({
    appId: __APP_ID__,
    baseUrl: __BASE_URL__,
    authUrl: __AUTH_URL__,
    redirectUri: `${__COMPANION_URL__}/`,
    companionUrl: __COMPANION_URL__,
    scopes: ["fundraise", "offline_access"],
  });
  client.addEventListener("sessionchange", (event) => showSession(event.detail.session));
  showSession(await client.handleCallback());

  $("sign-in").addEventListener("click", async () => {
    try {
      await client.signInWithPopup(); // opened inside the click, so the browser allows it
    } catch (e) {
      if (e instanceof FundraisingError && e.code === "popup_blocked") await client.signInWithRedirect();
      else $("status").textContent = e instanceof FundraisingError ? `${e.code}: ${e.message}` : String(e);
    }
  });
  $("sign-out").addEventListener("click", () => void client.signOut());

  const campaign = await client.getCampaign("demo-campaign");
  $("campaign").textContent = campaign.title ?? campaign.shortName;
  const { totalAmount } = campaign.donationSummary;
  $("raised").textContent = `${campaign.currency.currencySymbol}${totalAmount} raised of ${campaign.targetAmount}`;
}

main().catch((e: unknown) => {
  $("status").textContent = e instanceof Error ? e.message : String(e);
});
