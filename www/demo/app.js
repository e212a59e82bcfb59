// The demo page: wires the fundraising-client package to the sections of index.html.
import { loadPackage } from "./widget.js";
import { loadConfig } from "./config.js";
import { setupAuth } from "./auth.js";
import { setupDonationLookup } from "./donation.js";
import { REFERENCE_PARAM, setupDonationReturn } from "./return-demo.js";
import { setupEventForm } from "./event-form.js";
import { setupEventPages } from "./event-pages.js";

async function main() {
  // The full build (sign-in); the page's elements use it too rather than load the widgets' one.
  const [config, pkg] = await Promise.all([loadConfig(), loadPackage("full")]);
  const client = new pkg.FundraisingClient({
    appId: config.appId,
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    redirectUri: config.redirectUri,
    companionUrl: config.companionUrl,
    bff: config.bff,
    scopes: ["fundraise", "offline_access"],
  });

  // The header shows the session from now on; the client restores it meanwhile (the home page
  // is the registered redirect URI: in the sign-in pop-up this hands the result to the opener,
  // which closes the window).
  const auth = setupAuth(client);

  const campaign = document.createElement("fundraising-campaign");
  campaign.id = "campaign";
  campaign.setAttribute("short-name", "demo-campaign");
  campaign.setAttribute("app-id", config.appId);
  campaign.setAttribute("base-url", config.baseUrl);
  campaign.setAttribute("donate-url", donateUrl());
  document.getElementById("campaign-slot").replaceChildren(campaign);

  setupDonationReturn(config);
  setupDonationLookup(client);
  setupEventForm(client);
  setupEventPages(client);
  // Ready once every section is wired and the page knows whether the user is signed in.
  await auth;
  document.body.dataset.ready = "true";
}

/**
 * The campaign card's donate-url: the sandbox's donation page (donate.html, standing in for the
 * donation site), told to send the donor back here with `?donation={reference}`.
 */
function donateUrl() {
  const back = new URL(location.pathname, location.origin).href;
  return `${new URL("donate.html", location.href).href}?reference={reference}` +
    `&return=${encodeURIComponent(`${back}?${REFERENCE_PARAM}=`)}{reference}`;
}

main().catch((error) => {
  console.error(error);
  const banner = document.getElementById("auth-message");
  banner.textContent = `The demo could not start: ${error?.message ?? error}`;
  banner.className = "banner error";
  banner.hidden = false;
  document.getElementById("auth-loading").textContent = "Not available";
});
