// widget.html's own script, demo only: the sandbox address ({base_url}) is not fixed (tests use
// free ports), so the page reads it from config/HOST_PORT.json, which the runner writes, and
// adds the element; a partner writes the element with its attributes in the page instead. A
// file rather than an inline script: the companion's Content-Security-Policy has no
// 'unsafe-inline'.
import { configFileName } from "./config.js";

async function main() {
  let baseUrl = `${location.protocol}//${location.hostname}:8081`;
  let appId = "demo-app";
  try {
    const response = await fetch(new URL(`config/${configFileName(location)}`, import.meta.url), { cache: "no-store" });
    const served = response.ok ? await response.json() : null;
    if (served?.baseUrl) baseUrl = served.baseUrl;
    if (served?.appId) appId = served.appId;
  } catch {
    // No file for this server: the default sandbox address.
  }
  document.getElementById("widget-src").textContent = new URL("widget.js", location.href).href;
  document.getElementById("widget-base").textContent = baseUrl;
  const campaign = document.createElement("fundraising-campaign");
  campaign.id = "campaign";
  campaign.setAttribute("short-name", "demo-campaign");
  campaign.setAttribute("app-id", appId);
  campaign.setAttribute("base-url", baseUrl);
  document.getElementById("campaign-slot").replaceWith(campaign);
}

main();
