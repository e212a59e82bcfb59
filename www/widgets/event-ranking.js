// The fundraisers of an event for <fundraising-event> (event-widget.js), without any DOM of their
// own: the element's attributes checked, every page of the event fetched (100 a request, one
// after the other, up to a limit) with each answer checked for odd members, the ranking by
// amount raised, and the addresses of a fundraiser's page and image.

/** `limit`: how many fundraisers are ranked at most (fetched in requests of 100). */
export const LIMIT = { default: 500, min: 1, max: 1000 };

/** `per-page`: how many fundraisers are shown at first, and how many more each "Show more" adds. */
export const PER_PAGE = { default: 10, min: 1, max: 100 };

/** The most fundraising pages the service gives in one request (its `pageSize` limit). */
const REQUEST_SIZE = 100;

/** The members of a fundraising page that a `page-url` template may hold, as `{name}`. */
const PAGE_URL_FIELDS = ["pageShortName", "pageId", "pageGuid"];

const PLACEHOLDER = new RegExp(`\\{(${PAGE_URL_FIELDS.join("|")})\\}|%7B(${PAGE_URL_FIELDS.join("|")})%7D`, "gi");

/** An Error with a stable `code`, for a `fundraising-error` event and the console. */
export function failure(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}

/** A whole number of `text` within `range`, or null when it is not one (empty, signs, decimals). */
function whole(text, { min, max }) {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

/** The address of `page` through a `page-url` template (each member encoded as a path segment). */
export function pageUrl(template, page) {
  const filled = template.replace(PLACEHOLDER, (_, braced, encoded) => {
    const name = PAGE_URL_FIELDS.find((field) => field.toLowerCase() === (braced ?? encoded).toLowerCase());
    return encodeURIComponent(String(page[name] ?? ""));
  });
  return new URL(filled, document.baseURI);
}

/**
 * The element's attributes, checked: `{eventId, appId, baseUrl, limit, perPage, pageUrl,
 * images}`, or `{missing: [names]}`, or `{invalid: {name, value, reason}}`.
 */
export function readAttributes(element) {
  const missing = ["event-id", "app-id", "base-url"].filter((name) => !element.getAttribute(name));
  if (missing.length > 0) return { missing };
  const invalid = (name, reason) => ({ invalid: { name, value: element.getAttribute(name), reason } });
  const eventId = whole(element.getAttribute("event-id"), { min: 1, max: 2 ** 31 - 1 });
  if (eventId === null) return invalid("event-id", "a whole number from 1 to 2147483647");
  let limit = LIMIT.default;
  if (element.hasAttribute("limit")) {
    limit = whole(element.getAttribute("limit"), LIMIT);
    if (limit === null) return invalid("limit", `a whole number from ${LIMIT.min} to ${LIMIT.max}`);
  }
  let perPage = PER_PAGE.default;
  if (element.hasAttribute("per-page")) {
    perPage = whole(element.getAttribute("per-page"), PER_PAGE);
    if (perPage === null) return invalid("per-page", `a whole number from ${PER_PAGE.min} to ${PER_PAGE.max}`);
  }
  const template = element.getAttribute("page-url");
  if (template !== null) {
    const reason = `an http(s) address holding {${PAGE_URL_FIELDS.join("}, {")}}`;
    if (!new RegExp(PLACEHOLDER.source, "i").test(template)) return invalid("page-url", reason);
    try {
      const sample = pageUrl(template, { pageShortName: "x", pageId: 1, pageGuid: "x" });
      if (sample.protocol !== "https:" && sample.protocol !== "http:") return invalid("page-url", reason);
    } catch {
      return invalid("page-url", reason);
    }
  }
  return {
    eventId,
    appId: element.getAttribute("app-id"),
    baseUrl: element.getAttribute("base-url"),
    limit,
    perPage,
    pageUrl: template,
    images: element.hasAttribute("images"),
  };
}

const isCount = (value) => Number.isSafeInteger(value) && value >= 0;
const isAmount = (value) => typeof value === "number" && Number.isFinite(value) && value >= 0;
const isText = (value) => value === null || value === undefined || typeof value === "string";

/**
 * Why one answer of the service cannot be shown (a member of an odd type or value), or null:
 * every member the element reads is checked before anything is drawn.
 */
function oddMember(answer, eventId) {
  if (answer === null || typeof answer !== "object") return "the answer is not an object";
  if (answer.eventId !== eventId) return `eventId is ${JSON.stringify(answer.eventId)}, not ${eventId}`;
  if (!isAmount(answer.totalRaised)) return `totalRaised is ${JSON.stringify(answer.totalRaised)}`;
  if (!isCount(answer.totalFundraisingPages)) return `totalFundraisingPages is ${JSON.stringify(answer.totalFundraisingPages)}`;
  if (!isCount(answer.totalPages)) return `totalPages is ${JSON.stringify(answer.totalPages)}`;
  if (!Array.isArray(answer.fundraisingPages)) return "fundraisingPages is not a list";
  for (const [index, page] of answer.fundraisingPages.entries()) {
    const at = `fundraisingPages[${index}]`;
    if (page === null || typeof page !== "object") return `${at} is not an object`;
    if (!Number.isSafeInteger(page.pageId)) return `${at}.pageId is ${JSON.stringify(page.pageId)}`;
    for (const name of ["raisedAmount", "targetAmount"]) {
      if (!isAmount(page[name])) return `${at}.${name} is ${JSON.stringify(page[name])}`;
    }
    for (const name of ["pageTitle", "pageShortName", "eventName", "currencyCode", "currencySymbol", "pageGuid"]) {
      if (!isText(page[name])) return `${at}.${name} is not text`;
    }
    if (page.pageImages !== undefined && page.pageImages !== null && !Array.isArray(page.pageImages)) return `${at}.pageImages is not a list`;
  }
  return null;
}

/**
 * Every fundraising page of event `eventId`, up to `limit`, in requests of at most 100, one
 * after the other (each within the client's retries; `signal` aborts them). Resolves with the
 * first answer's totals, the pages (each once, by pageId) and whether the event has more than
 * those.
 */
export async function fetchPages(client, eventId, limit, signal) {
  const pageSize = Math.min(REQUEST_SIZE, limit);
  const pages = [];
  const ids = new Set();
  let first = null;
  const requests = Math.ceil(limit / pageSize);
  for (let page = 1; page <= requests && pages.length < limit; page += 1) {
    const answer = await client.getEventPages(eventId, { page, pageSize, signal });
    const odd = oddMember(answer, eventId);
    if (odd) throw failure("decode_error", `the service's answer for page ${page} of event ${eventId} has an odd member: ${odd}`);
    first ??= answer;
    for (const summary of answer.fundraisingPages) {
      if (!ids.has(summary.pageId)) {
        ids.add(summary.pageId);
        pages.push(summary);
      }
    }
    if (answer.fundraisingPages.length < pageSize || page >= answer.totalPages) break;
  }
  const ranked = pages.slice(0, limit);
  return {
    totalRaised: first.totalRaised,
    totalFundraisingPages: first.totalFundraisingPages,
    pages: ranked,
    // The ranking covers only the first pages whenever the service counts more than it gave.
    limited: first.totalFundraisingPages > ranked.length,
  };
}

/** `pages` ranked by amount raised, highest first (the service's order among equals): each with its rank (equal amounts share one). */
export function rank(pages) {
  const sorted = pages.map((page, index) => ({ page, index }))
    .sort((a, b) => b.page.raisedAmount - a.page.raisedAmount || a.index - b.index)
    .map(({ page }) => page);
  let rankOf = 0;
  return sorted.map((page, index) => {
    if (index === 0 || page.raisedAmount !== sorted[index - 1].raisedAmount) rankOf = index + 1;
    return { rank: rankOf, page };
  });
}

/** The first image address of `page` that is an absolute http(s) address, or null. */
export function imageOf(page) {
  for (const path of page.pageImages ?? []) {
    if (typeof path !== "string") continue;
    try {
      const url = new URL(path);
      if (url.protocol === "https:" || url.protocol === "http:") return url.href;
    } catch {
      // a relative path: not shown (the service's image host is not known here)
    }
  }
  return null;
}
