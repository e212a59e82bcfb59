// The fundraisers of an event for <fundraising-event> (event-widget.js), without any DOM of their
// own: the element's attributes checked, every page of the event fetched (100 a request: the
// first, then the others side by side, a few at a time, up to a limit) with each answer checked
// for odd members, the ranking by amount raised, and the addresses of a fundraiser's page and
// image.

/** `limit`: how many fundraisers are ranked at most (fetched in requests of 100). */
export const LIMIT = { default: 500, min: 1, max: 1000 };

/** `per-page`: how many fundraisers are shown at first, and how many more each "Show more" adds. */
export const PER_PAGE = { default: 10, min: 1, max: 100 };

/** The most fundraising pages the service gives in one request (its `pageSize` limit). */
const REQUEST_SIZE = 100;

/** The size of each request for `limit` fundraisers, the first (page 1) among them. */
export const firstPageSize = (limit) => Math.min(REQUEST_SIZE, limit);

/**
 * The most requests for an event's pages in flight at once, once the first answer has told how
 * many there are. Four: the documented `limit` (500, five requests) then costs two round trips,
 * the first and the other four together; a browser keeps six HTTP/1.1 connections per origin,
 * so two stay free for the page's other requests to the API (a card beside the list); and more
 * would not arrive sooner on a phone, whose downlink four answers of about 64 KB already fill.
 */
export const IN_FLIGHT = 4;

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

/** The figures of the answers so far: the first answer's totals and the pages, each once (by pageId), up to `limit`. */
function fetched(first, answers, limit, complete) {
  const pages = [];
  const ids = new Set();
  for (const answer of answers) {
    for (const summary of answer.fundraisingPages) {
      if (pages.length < limit && !ids.has(summary.pageId)) {
        ids.add(summary.pageId);
        pages.push(summary);
      }
    }
  }
  return {
    totalRaised: first.totalRaised,
    totalFundraisingPages: first.totalFundraisingPages,
    pages,
    // The ranking covers only the first pages whenever the service counts more than it gave.
    limited: first.totalFundraisingPages > pages.length,
    complete,
  };
}

/**
 * Every fundraising page of event `eventId`, up to `limit`, in requests of at most 100 through
 * `client.getEventPages` (each within the client's retries; `signal` aborts them): the first
 * alone, whose totals say how many more there are, then those side by side, at most IN_FLIGHT
 * at once. `onFirst` gets the figures of the first answer while the others load (only when
 * there are others). Resolves with the first answer's totals, the pages in the service's order
 * (each once, by pageId) and whether the event has more than those; the first failure aborts
 * the requests still in flight and rejects.
 */
export async function fetchPages(client, eventId, limit, signal, onFirst = () => {}) {
  const pageSize = firstPageSize(limit);
  const read = async (page, abort) => {
    const answer = await client.getEventPages(eventId, { page, pageSize, signal: abort });
    const odd = oddMember(answer, eventId);
    if (odd) throw failure("decode_error", `the service's answer for page ${page} of event ${eventId} has an odd member: ${odd}`);
    return answer;
  };
  const first = await read(1, signal);
  const requests = first.fundraisingPages.length < pageSize ? 1 : Math.min(Math.ceil(limit / pageSize), first.totalPages);
  if (requests <= 1) return fetched(first, [first], limit, true);
  onFirst(fetched(first, [first], limit, false));

  // The other pages, IN_FLIGHT at a time, each kept at its place in the service's order.
  const answers = [first];
  const inner = new AbortController();
  const stop = () => inner.abort(signal.reason);
  signal.addEventListener("abort", stop, { once: true });
  let next = 2;
  const worker = async () => {
    while (next <= requests) {
      const page = next;
      next += 1;
      answers[page - 1] = await read(page, inner.signal);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, requests - 1) }, worker));
  } catch (error) {
    inner.abort(error);
    throw error;
  } finally {
    signal.removeEventListener("abort", stop);
  }
  return fetched(first, answers, limit, true);
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
