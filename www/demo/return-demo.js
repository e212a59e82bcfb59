// The demo's donation return panel: a <fundraising-donation> element that reads the reference
// from `?donation=…`. The donor gets there through the campaign card's Donate link and the
// sandbox's donation page (donate.html), which sends them back with `?donation=<reference>`.
import "./donation-return.js";

/** The query-string parameter the donor comes back with. */
export const REFERENCE_PARAM = "donation";

/** Adds the element to the panel. */
export function setupDonationReturn(config) {
  const element = document.createElement("fundraising-donation");
  element.id = "donation-return";
  element.setAttribute("app-id", config.appId);
  element.setAttribute("base-url", config.baseUrl);
  element.setAttribute("reference-param", REFERENCE_PARAM);
  document.getElementById("return-slot").replaceChildren(element);
}
