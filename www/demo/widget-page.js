// The own script of widget.html and event.html, demo only: the sandbox address ({base_url}) is
// not fixed (tests use free ports), so the page reads it from config/HOST_PORT.json, which the
// runner writes, and adds the element (a card in #campaign-slot, the event's fundraisers in
// #event-slot); a partner writes the element with its attributes in the page instead. A file
// rather than an inline script: the companion's Content-Security-Policy has no 'unsafe-inline'.
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
  const slot = document.getElementById("campaign-slot") ?? document.getElementById("event-slot");
  const script = slot.id === "campaign-slot" ? "widget.js" : "event-widget.js";
  document.getElementById("widget-src").textContent = new URL(script, location.href).href;
  document.getElementById("widget-base").textContent = baseUrl;
  const element = slot.id === "campaign-slot"
    ? Object.assign(document.createElement("fundraising-campaign"), { id: "campaign" })
    : Object.assign(document.createElement("fundraising-event"), { id: "event" });
  if (slot.id === "campaign-slot") element.setAttribute("short-name", "demo-campaign");
  else element.setAttribute("event-id", "1001");
  element.setAttribute("app-id", appId);
  element.setAttribute("base-url", baseUrl);
  slot.replaceWith(element);
}

main();
