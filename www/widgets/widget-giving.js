// The campaign card's rules for giving: where a campaign's giving window stands (open, not
// started, ended, closed by its status), the Donate link's address from the partner's
// `donate-url` template, and the campaign tags and click ids of the page's address it may carry
// (only with `carry-attribution`, and only names of ATTRIBUTION). No DOM of its own: widget.js
// draws the card.

/**
 * Fills `{reference}` (also written `%7Breference%7D`) of a donate-url template, and
 * `{campaign}` (`%7Bcampaign%7D`) with the campaign's short name.
 */
export function donateUrl(template, reference, campaign = "") {
  return template.replace(/\{reference\}|%7Breference%7D/gi, encodeURIComponent(reference))
    .replace(/\{campaign\}|%7Bcampaign%7D/gi, encodeURIComponent(campaign));
}

/**
 * The parameters of the page's address a card may carry onto its Donate link: the campaign
 * tags (`utm_*`, GA4's list) and the common ad click ids (Google, Microsoft, Meta, TikTok, X,
 * LinkedIn). Nothing else is ever carried.
 */
export const ATTRIBUTION = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id",
  "utm_source_platform", "utm_creative_format", "utm_marketing_tactic",
  "gclid", "gbraid", "wbraid", "dclid", "msclkid", "fbclid", "ttclid", "twclid", "li_fat_id"];

/** The longest value carried (a longer one is left behind). */
const ATTRIBUTION_MAX = 256;

/**
 * The parameters of the page's address that `element` carries onto its Donate link, by name:
 * none without its `carry-attribution` attribute; with it, those of ATTRIBUTION that the page's
 * address holds (or of the attribute's own list of names, within ATTRIBUTION).
 */
export function attribution(element) {
  const wanted = element.getAttribute("carry-attribution");
  if (wanted === null) return {};
  let names = ATTRIBUTION;
  if (wanted.trim() !== "") {
    names = wanted.trim().split(/[\s,]+/);
    const unknown = names.filter((name) => !ATTRIBUTION.includes(name));
    if (unknown.length > 0) console.warn(`<${element.localName}>: carry-attribution: not carried (not on the list of campaign tags and click ids): ${unknown.join(", ")}`);
    names = names.filter((name) => ATTRIBUTION.includes(name));
  }
  const params = new URLSearchParams(location.search);
  const carried = {};
  for (const name of names) {
    const value = params.get(name);
    if (value && value.length <= ATTRIBUTION_MAX) carried[name] = value;
  }
  return carried;
}

/** `url` with the parameters of `carried` appended, but for those its query has already. */
export function withAttribution(url, carried) {
  const added = Object.entries(carried).filter(([name]) => !url.searchParams.has(name))
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  if (added.length > 0) url.search = url.search ? `${url.search}&${added.join("&")}` : `?${added.join("&")}`;
  return url;
}

/** The .NET minimum date the service uses for "no date" (0001-01-01), in milliseconds. */
const NO_DATE_MILLIS = -62135596800000;

/** A date of the service, or null for none (absent, invalid, or .NET's minimum date). */
function serviceDate(date) {
  return date instanceof Date && !Number.isNaN(date.getTime()) && date.getTime() > NO_DATE_MILLIS ? date : null;
}

/**
 * Where giving to `campaign` stands at `now`: `open`, `not-started` (its start date is ahead),
 * `ended` (its end date has passed) or `closed` (its status says it is not open: a status other
 * than `Active`; an absent status leaves it to the dates). With its start and end dates.
 */
export function givingWindow(campaign, now = Date.now()) {
  const start = serviceDate(campaign.startDate);
  const end = serviceDate(campaign.endDate);
  const status = typeof campaign.status === "string" ? campaign.status.trim() : "";
  let state = "open";
  if (end && end.getTime() <= now) state = "ended";
  else if (start && start.getTime() > now) state = "not-started";
  else if (status !== "" && status.toLowerCase() !== "active") state = "closed";
  return { state, start, end };
}
