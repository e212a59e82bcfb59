// The three apps that sign in, as the end-to-end tests of the session take them: the demo with
// the companion in token-mediating mode, the same demo served by the companion in BFF mode, and
// the Leptos example (a Rust app on the typed API). Each marks where it stands with the session
// on an element's `data-session` (the client's state: "unknown", "signedOut" or "signedIn") and
// has the buttons #sign-in and #sign-out and the signed-in name in #user-name, so one journey
// drives them all, in Playwright (Chromium) and over WebDriver (Firefox, WebKit).
import { bffServers, servers } from "./harness.mjs";

/** The element that carries the session state. */
export const SESSION = "[data-session]";

/** The selector of the session element in `state`. */
export function sessionIn(state) {
  return `[data-session=${state}]`;
}

/** The apps, each as `{name, url}` (its "/" is the app's registered home page). */
export function signingApps() {
  const leptosUrl = process.env.FUNDRAISING_LEPTOS_COMPANION_URL;
  if (!leptosUrl) throw new Error("FUNDRAISING_LEPTOS_COMPANION_URL is not set: run this inside scripts/with-servers.sh");
  return [
    { name: "the demo", url: servers().companionUrl },
    { name: "the demo in BFF mode", url: bffServers().companionUrl },
    { name: "the Leptos example", url: leptosUrl },
  ];
}

/**
 * Run in the page (Playwright's `page.evaluate` or WebDriver's `inPage`): the addresses of the
 * companion's sign-in endpoints this document has fetched (its resource timing entries), by
 * path: `{session, refresh, token}` counts.
 */
export function authRequests() {
  const counts = { session: 0, refresh: 0, token: 0 };
  for (const entry of performance.getEntriesByType("resource")) {
    const path = new URL(entry.name).pathname;
    if (path === "/auth/session") counts.session += 1;
    if (path === "/auth/refresh") counts.refresh += 1;
    if (path === "/auth/token") counts.token += 1;
  }
  return counts;
}

/**
 * Run in the page: marks the document (on its root element, which WebDriver's scripts in
 * Firefox share, unlike globals); a reload or a navigation loses the mark.
 */
export function markDocument(name) {
  document.documentElement.dataset.e2eMark = name;
}

/** Run in the page: the document's mark, or null. */
export function documentMark() {
  return document.documentElement.dataset.e2eMark ?? null;
}
