// What the end-to-end tests of the widgets know about the built package (pkg/, from
// scripts/build-pkg.sh) and how they count what crosses the network (Chromium's CDP Network
// events).
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

/** pkg/ at the repository root. */
export const PKG = fileURLToPath(new URL("../pkg/", import.meta.url));

/** The content-hashed copies of each build, as pkg/assets.js names them: {full, light, widgets, card}, each {js, wasm}. */
export async function builtAssets() {
  return import(pathToFileURL(`${PKG}assets.js`).href);
}

/** Size in bytes of a file of pkg/ (`widgets/…`). */
export function pkgSize(path) {
  return statSync(`${PKG}${path}`).size;
}

/** The bytes of a file of pkg/. */
export function pkgBytes(path) {
  return readFileSync(`${PKG}${path}`);
}

/** The package's wasm as the widgets load it: the card's or the widgets' build, under its content-hashed name. */
export const isWasm = (path) => /^\/pkg\/((card|widgets)\/)?fundraising_client_bg(\.[0-9a-f]{16})?\.wasm$/.test(path);

/** The engine check init() imports when it fails, next to the build's glue. */
export const isCheck = (path) => /^\/pkg\/((card|widgets)\/)?engine-check\.js$/.test(path);

/** How the card's error state begins in an engine the package cannot run in. */
export const UNSUPPORTED_PREFIX = "This browser cannot show the campaign: ";

/** A file name of the build's hashed copies: `stem.<16 hex digits>.ext`. */
export const HASHED = /\.[0-9a-f]{16}\.(js|wasm)$/;

/**
 * Records every request of `page` through CDP's Network domain: for each, its URL, whether it
 * came from the browser's cache, the Content-Encoding it came with, and the bytes that crossed
 * the network for its body (`Network.loadingFinished`'s encodedDataLength minus the response
 * head's). Resolves with `{requests, detach()}`; `requests` fills as they finish.
 */
export async function recordNetwork(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  // The browser's own cache stays on (a second visit is what some tests are about).
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: false });
  const byId = new Map();
  const requests = [];
  cdp.on("Network.requestWillBeSent", ({ requestId, request }) => {
    byId.set(requestId, { url: request.url, fromCache: false, encoding: null, headBytes: 0, status: null });
  });
  cdp.on("Network.requestServedFromCache", ({ requestId }) => {
    const entry = byId.get(requestId);
    if (entry) entry.fromCache = true;
  });
  cdp.on("Network.responseReceived", ({ requestId, response }) => {
    const entry = byId.get(requestId);
    if (!entry) return;
    entry.status = response.status;
    entry.fromCache ||= Boolean(response.fromDiskCache || response.fromPrefetchCache || response.fromServiceWorker);
    const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    entry.encoding = headers["content-encoding"] ?? null;
    entry.cacheControl = headers["cache-control"] ?? null;
    entry.headBytes = response.encodedDataLength ?? 0;
  });
  cdp.on("Network.loadingFinished", ({ requestId, encodedDataLength }) => {
    const entry = byId.get(requestId);
    if (!entry) return;
    entry.networkBytes = entry.fromCache ? 0 : encodedDataLength;
    entry.bodyBytes = entry.fromCache ? 0 : Math.max(0, encodedDataLength - entry.headBytes);
    requests.push(entry);
  });
  return { requests, detach: () => cdp.detach().catch(() => {}) };
}
