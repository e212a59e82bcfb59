// brands.html's own script, demo only: the sandbox address ({base_url}) is not fixed (tests use
// free ports), so the page reads it from config/HOST_PORT.json, fills in the elements'
// base-url and app-id, points their Donate links at the sandbox's donation page (which sends
// the donor back here), and only then loads the elements' two modules. A partner writes the
// attributes in the page and adds the two script tags instead.
import { loadConfig } from "./config.js";

async function main() {
  const config = await loadConfig();
  const back = `${new URL(location.pathname, location.origin).href}?donation=`;
  const donateUrl = `${new URL("donate.html", location.href).href}?reference={reference}&return=${encodeURIComponent(back)}{reference}`;
  for (const element of document.querySelectorAll("fundraising-campaign, fundraising-donation")) {
    element.setAttribute("app-id", config.appId);
    element.setAttribute("base-url", config.baseUrl);
    if (element.localName === "fundraising-campaign") element.setAttribute("donate-url", donateUrl);
  }
  await Promise.all([import("./widget.js"), import("./donation-return.js")]);
  document.body.dataset.ready = "true";
}

main();
