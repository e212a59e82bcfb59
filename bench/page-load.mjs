// What a donor's phone waits for (bench section 9), in headless Chromium driven by playwright-core
// under Lighthouse's mobile throttling through CDP (CPU ×4; 150 ms of latency, 1.6 Mbit/s down,
// 750 kbit/s up), each load in a fresh browser context (an empty cache): our page against a
// hand-written page doing the same work (fetch, JSON.parse, DOM), in alternated pairs.
//
//   card      a campaign card, until its title is painted
//   event100  an event's 100 fundraisers (`limit=100 per-page=100`), until the list is painted
//   event500  the event element as documented (`limit=500 per-page=10`), until the whole ranking is
//             painted (and when its first fundraisers were)
//   appOut    an app page's restored session with the full package, signed out
//   appIn     the same, signed in (a session cookie from the sandbox's headless sign-in and the
//             companion's /auth/token, made in the load's own context before it)
//
// Served as a partner's page is: the packed fundraising-widgets from a static server of its own on
// another origin with brotli (its .br copies, or compressed on the fly), as a CDN serves it; the
// resource API from the sandbox; the card and event pages from a third origin. The app pages are
// the companion's site (a site and its companion share an origin) with the package at /pkg.
//
// Env: BENCH_WIDGETS_DIR (the installed package's folder), BENCH_WIDGETS_VERSION,
// FUNDRAISING_BASE_URL, FUNDRAISING_AUTH_URL, BENCH_COMPANION_URL, BENCH_APP_DIR (the folder the
// companion serves, where this script writes the app pages), BENCH_FULL_JS (the full build's
// hashed module under /pkg/), BENCH_PAIRS, BENCH_PLAYWRIGHT (a folder holding
// node_modules/playwright-core), CHROMIUM. Prints one line `PAGELOAD {json}`: every load's
// figures, by page kind and side.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { brotliCompressSync } from "node:zlib";

const require = createRequire(path.join(process.env.BENCH_PLAYWRIGHT, "node_modules", "noop.js"));
const { chromium } = require("playwright-core");

const widgetsDir = process.env.BENCH_WIDGETS_DIR;
const version = process.env.BENCH_WIDGETS_VERSION;
const baseUrl = process.env.FUNDRAISING_BASE_URL;
const authUrl = process.env.FUNDRAISING_AUTH_URL;
const companion = process.env.BENCH_COMPANION_URL;
const appDir = process.env.BENCH_APP_DIR;
const fullJs = process.env.BENCH_FULL_JS;
const pairs = Number(process.env.BENCH_PAIRS || 10);
const appId = "demo-app";
const EVENT = 1001;

/** Lighthouse's mobile throttling (its `mobileSlow4G`): 150 ms, 1.6 Mbit/s down, 750 kbit/s up, CPU ×4. */
export const THROTTLING = { latency: 150, downloadKbps: 1.6 * 1024, uploadKbps: 750, cpu: 4 };

// ---------------------------------------------------------------- servers

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html; charset=utf-8", ".json": "application/json" };
const HASHED = /\.[0-9a-f]{16}\.(js|wasm)$/;

/** A server on a free loopback port; resolves with `{origin, close}`. */
function serve(handler) {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((done) => { server.closeAllConnections?.(); server.close(done); }),
  })));
}

/** The CDN: /npm/fundraising-widgets@VERSION/<file> from the installed package, with brotli. */
async function startCdn() {
  const prefix = `/npm/fundraising-widgets@${version}/`;
  const compressed = new Map();
  return serve((req, res) => {
    const url = new URL(req.url, "http://x");
    const name = url.pathname.startsWith(prefix) ? path.normalize(url.pathname.slice(prefix.length)) : null;
    const file = name && !name.startsWith("..") ? path.join(widgetsDir, name) : null;
    const headers = { "Access-Control-Allow-Origin": "*", "Cross-Origin-Resource-Policy": "cross-origin", Vary: "Accept-Encoding" };
    if (!file || !existsSync(file)) return res.writeHead(404, headers).end();
    headers["Content-Type"] = TYPES[path.extname(file)] ?? "application/octet-stream";
    headers["Cache-Control"] = HASHED.test(file) ? "public, max-age=31536000, immutable" : "no-cache";
    let body = readFileSync(file);
    if (/\bbr\b/.test(req.headers["accept-encoding"] ?? "")) {
      if (existsSync(`${file}.br`)) body = readFileSync(`${file}.br`);
      else {
        if (!compressed.has(file)) compressed.set(file, brotliCompressSync(body));
        body = compressed.get(file);
      }
      headers["Content-Encoding"] = "br";
    }
    headers["Content-Length"] = body.length;
    res.writeHead(200, headers).end(body);
  });
}

// ---------------------------------------------------------------- the pages

/**
 * Runs first in every page (inline, in the head): `__bench.painted(name)` records when the frame
 * after the one that shows `name` begins (two animation frames: the DOM's frame has been
 * painted), and the time WebAssembly's compile and instantiation of the package settles.
 */
const MARKS = `<script>
window.__bench = { marks: {}, wasmReady: null };
__bench.painted = (name) => requestAnimationFrame(() => requestAnimationFrame(() => { __bench.marks[name] ??= performance.now(); }));
for (const method of ["instantiateStreaming", "instantiate"]) {
  const original = WebAssembly[method];
  WebAssembly[method] = function (...args) {
    const made = original.apply(this, args);
    made.then(() => { __bench.wasmReady ??= performance.now(); }, () => {});
    return made;
  };
}
</script>`;

/** Our side: an element's painted content, seen in its shadow root (`first`) and on fundraising-loaded (`done`). */
const watchElement = (tag, part) => `<script>
customElements.whenDefined(${JSON.stringify(tag)}).then(() => {
  const element = document.querySelector(${JSON.stringify(tag)});
  const seen = () => { if (element.shadowRoot.querySelector(${JSON.stringify(`[part=${part}]`)})) { __bench.painted("first"); return true; } };
  if (!seen()) new MutationObserver((_, observer) => { if (seen()) observer.disconnect(); }).observe(element.shadowRoot, { childList: true, subtree: true });
  element.addEventListener("fundraising-loaded", () => __bench.painted("done"));
});
</script>`;

const page = (head, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>A partner's page</title>${MARKS}${head}</head><body><h1>A partner's page</h1>${body}</body></html>`;

/** What both cards draw: title, summary, progress bar, figures (the hand-written one by hand). */
const HAND_STYLE = `<style>
.card { border: 1px solid #d7dce3; border-radius: 12px; padding: 1rem; max-width: 32rem; font-family: system-ui, sans-serif; }
.bar { height: .75rem; border-radius: 999px; background: #e8ecf1; overflow: hidden; } .fill { height: 100%; background: #0f8a5f; }
ol { padding-left: 2rem; } li { padding: .5rem 0; border-top: 1px solid #d7dce3; }
</style>`;

/** The hand-written helpers: money, an element with text. */
const HAND_HELPERS = `
const formats = {};
const money = (amount, code) => (formats[code] ??= new Intl.NumberFormat(document.documentElement.lang, { style: "currency", currency: code || "GBP" })).format(amount);
const el = (tag, attributes, text) => { const node = document.createElement(tag); for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v); if (text != null) node.textContent = text; return node; };
const bar = (share) => { const b = el("div", { class: "bar", role: "progressbar" }); const f = el("div", { class: "fill" }); f.style.width = (Math.min(1, share) * 100).toFixed(2) + "%"; b.append(f); return b; };`;

function pages(cdn) {
  const widgets = `${cdn}/npm/fundraising-widgets@${version}`;
  const api = `${baseUrl}/${appId}/v1`;
  const eventAttributes = (limit, perPage) => `event-id="${EVENT}" app-id="${appId}" base-url="${baseUrl}" limit="${limit}" per-page="${perPage}"`;
  const handEvent = (limit, perPage) => page(HAND_STYLE, `<div id="list"></div>
<script type="module">${HAND_HELPERS}
const get = async (page, size) => JSON.parse(await (await fetch("${api}/event/${EVENT}/pages?page=" + page + "&pagesize=" + size)).text());
const size = Math.min(100, ${limit});
const first = await get(1, size);
const rest = Math.min(Math.ceil(${limit} / size), first.totalPages);
const answers = [first, ...await Promise.all(Array.from({ length: rest - 1 }, (_, i) => get(i + 2, size)))];
const ranked = answers.flatMap((a) => a.fundraisingPages).slice(0, ${limit}).sort((a, b) => b.raisedAmount - a.raisedAmount);
const card = el("section", { class: "card" });
card.append(el("h2", {}, ranked[0]?.eventName ?? "Fundraisers"), el("p", {}, money(first.totalRaised, ranked[0]?.currencyCode) + " raised in all"));
const list = el("ol", {});
for (const p of ranked.slice(0, ${perPage})) {
  const li = el("li", {});
  li.append(el("span", {}, p.pageTitle), bar(p.targetAmount > 0 ? p.raisedAmount / p.targetAmount : 1), el("p", {}, money(p.raisedAmount, p.currencyCode) + " raised of " + money(p.targetAmount, p.currencyCode)));
  list.append(li);
}
card.append(list);
document.getElementById("list").replaceWith(card);
__bench.painted("first"); __bench.painted("done");
</script>`);
  return {
    card: {
      ours: page(`<script type="module" src="${widgets}/widget.js"></script>${watchElement("fundraising-campaign", "title")}`,
        `<fundraising-campaign short-name="demo-campaign" app-id="${appId}" base-url="${baseUrl}"></fundraising-campaign>`),
      hand: page(HAND_STYLE, `<div id="card"></div>
<script type="module">${HAND_HELPERS}
const c = JSON.parse(await (await fetch("${api}/campaign/byshortname/demo-campaign")).text());
const raised = c.DonationSummary?.TotalAmount ?? 0;
const card = el("article", { class: "card" });
card.append(el("h2", {}, c.Title), el("p", {}, c.Summary), bar(c.TargetAmount > 0 ? raised / c.TargetAmount : 1),
  el("p", {}, money(raised, c.Currency?.CurrencyCode) + " raised of " + money(c.TargetAmount, c.Currency?.CurrencyCode) + " · " + c.DonationSummary?.TotalNumberOfDonations + " donations"));
document.getElementById("card").replaceWith(card);
__bench.painted("first"); __bench.painted("done");
</script>`),
    },
    event100: {
      ours: page(`<script type="module" src="${widgets}/event-widget.js"></script>${watchElement("fundraising-event", "fundraiser")}`,
        `<fundraising-event ${eventAttributes(100, 100)}></fundraising-event>`),
      hand: handEvent(100, 100),
    },
    event500: {
      ours: page(`<script type="module" src="${widgets}/event-widget.js"></script>${watchElement("fundraising-event", "fundraiser")}`,
        `<fundraising-event ${eventAttributes(500, 10)}></fundraising-event>`),
      hand: handEvent(500, 10),
    },
  };
}

/**
 * The app pages, written into the companion's site: the full package's restoreSession() (ours),
 * and /auth/session then /auth/refresh fetched by hand, each showing who is signed in. Module
 * files (the companion's pages allow no inline script), each setting up the marks first.
 */
function writeAppPages() {
  const marks = `window.__bench = { marks: {}, wasmReady: null };
__bench.painted = (name) => requestAnimationFrame(() => requestAnimationFrame(() => { __bench.marks[name] ??= performance.now(); }));`;
  const show = `const show = (text) => { const p = document.getElementById("who"); p.textContent = text; __bench.painted("first"); __bench.painted("done"); };`;
  const html = (script) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>An app</title><script type="module" src="${script}"></script></head>
<body><h1>An app</h1><p id="who">…</p></body></html>`;
  writeFileSync(path.join(appDir, "app.html"), html("app.js"));
  writeFileSync(path.join(appDir, "app.js"), `import init, { FundraisingClient } from ${JSON.stringify(`/pkg/${fullJs}`)};
${marks}
for (const method of ["instantiateStreaming", "instantiate"]) {
  const original = WebAssembly[method];
  WebAssembly[method] = function (...args) { const made = original.apply(this, args); made.then(() => { __bench.wasmReady ??= performance.now(); }, () => {}); return made; };
}
${show}
await init();
const client = new FundraisingClient({ appId: ${JSON.stringify(appId)}, baseUrl: ${JSON.stringify(baseUrl)}, authUrl: ${JSON.stringify(authUrl)},
  redirectUri: ${JSON.stringify(`${companion}/`)}, companionUrl: ${JSON.stringify(companion)} });
const session = await client.restoreSession();
show(session ? "Signed in as " + session.profile.name : "Signed out");
`);
  writeFileSync(path.join(appDir, "app-hand.html"), html("app-hand.js"));
  writeFileSync(path.join(appDir, "app-hand.js"), `${marks}
${show}
const known = JSON.parse(await (await fetch("/auth/session", { credentials: "include" })).text());
if (!known.active) show("Signed out");
else {
  const refreshed = JSON.parse(await (await fetch("/auth/refresh", { method: "POST", credentials: "include", headers: { "X-Fundraising-Client": "1" } })).text());
  show("Signed in as " + refreshed.profile.name);
}
`);
}

// ---------------------------------------------------------------- one load

/** The session cookie of a fresh sign-in, in `context`: the sandbox's headless sign-in, then the companion's /auth/token. */
async function signIn(context) {
  const verifier = randomBytes(32).toString("base64url");
  const nonce = randomUUID();
  const authorize = new URL("/connect/authorize", authUrl);
  authorize.search = new URLSearchParams({
    client_id: appId, response_type: "code", scope: "openid profile offline_access fundraise",
    redirect_uri: `${companion}/`, state: randomUUID(), nonce,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256",
  });
  const signed = await fetch(`${authUrl}/_sandbox/sign-in`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ authorize_url: authorize.href, user: "demo@example.org" }),
  });
  if (!signed.ok) throw new Error(`headless sign-in: ${signed.status} ${await signed.text()}`);
  const code = new URL((await signed.json()).callback_url).searchParams.get("code");
  // The context's own request client: the companion's Set-Cookie lands in the context's jar.
  const exchange = await context.request.post(`${companion}/auth/token`, {
    headers: { "Content-Type": "application/json", "X-Fundraising-Client": "1", Origin: companion },
    data: { code, codeVerifier: verifier, nonce, redirectUri: `${companion}/` },
  });
  if (exchange.status() !== 200) throw new Error(`/auth/token: ${exchange.status()} ${await exchange.text()}`);
}

/**
 * One load of `url` in a fresh context under the throttling: the page's marks and WebAssembly's
 * settling time (ms from navigation start), its requests from CDP (each with the bytes that crossed
 * the network for it: encodedDataLength) and the page's Resource Timing (start and end per URL).
 */
async function load(browser, { url, signedIn }) {
  const context = await browser.newContext();
  try {
    if (signedIn) await signIn(context);
    const tab = await context.newPage();
    const cdp = await context.newCDPSession(tab);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: false });
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: THROTTLING.latency,
      downloadThroughput: (THROTTLING.downloadKbps * 1024) / 8,
      uploadThroughput: (THROTTLING.uploadKbps * 1024) / 8,
    });
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLING.cpu });
    const requests = new Map();
    cdp.on("Network.requestWillBeSent", ({ requestId, request }) => requests.set(requestId, { url: request.url, priority: request.initialPriority, bytes: 0, done: false }));
    cdp.on("Network.loadingFinished", ({ requestId, encodedDataLength }) => {
      const entry = requests.get(requestId);
      if (entry) Object.assign(entry, { bytes: encodedDataLength, done: true });
    });
    await tab.goto(url);
    await tab.waitForFunction(() => globalThis.__bench?.marks.done !== undefined, null, { timeout: 60_000, polling: 50 });
    const seen = await tab.evaluate(() => ({
      marks: __bench.marks,
      wasmReady: __bench.wasmReady,
      timing: performance.getEntriesByType("resource").map((r) => ({ url: r.name, start: r.startTime, end: r.responseEnd })),
      navigation: (({ responseEnd, domContentLoadedEventEnd }) => ({ responseEnd, domContentLoadedEventEnd }))(performance.getEntriesByType("navigation")[0]),
    }));
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    const list = [...requests.values()].filter((r) => !r.url.startsWith("data:"));
    return { ...seen, requests: list.length, bytes: list.reduce((n, r) => n + r.bytes, 0), files: list.map((r) => ({ url: r.url, priority: r.priority, bytes: r.bytes })) };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------- the run

const cdn = await startCdn();
const made = pages(cdn.origin);
const served = {
  "/card.html": made.card.ours, "/card-hand.html": made.card.hand,
  "/event-100.html": made.event100.ours, "/event-100-hand.html": made.event100.hand,
  "/event-500.html": made.event500.ours, "/event-500-hand.html": made.event500.hand,
};
const partner = await serve((req, res) => {
  const body = served[new URL(req.url, "http://x").pathname];
  if (!body) return res.writeHead(404).end();
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" }).end(body);
});
writeAppPages();
const kinds = {
  card: { ours: { url: `${partner.origin}/card.html` }, hand: { url: `${partner.origin}/card-hand.html` } },
  event100: { ours: { url: `${partner.origin}/event-100.html` }, hand: { url: `${partner.origin}/event-100-hand.html` } },
  event500: { ours: { url: `${partner.origin}/event-500.html` }, hand: { url: `${partner.origin}/event-500-hand.html` } },
  appOut: { ours: { url: `${companion}/app.html` }, hand: { url: `${companion}/app-hand.html` } },
  appIn: { ours: { url: `${companion}/app.html`, signedIn: true }, hand: { url: `${companion}/app-hand.html`, signedIn: true } },
};
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
const out = { pairs, throttling: THROTTLING, cdn: cdn.origin, partner: partner.origin, companion, baseUrl, kinds: {} };
try {
  // One warm-up load of each side (the servers' first answers), not counted.
  for (const kind of Object.values(kinds)) for (const side of ["ours", "hand"]) await load(browser, kind[side]);
  for (const [name, kind] of Object.entries(kinds)) {
    const samples = { ours: [], hand: [] };
    for (let i = 0; i < pairs; i++) {
      // Alternated: ours first in even pairs, the hand-written page first in odd ones.
      for (const side of i % 2 === 0 ? ["ours", "hand"] : ["hand", "ours"]) samples[side].push(await load(browser, kind[side]));
    }
    out.kinds[name] = samples;
    console.error(`page-load: ${name}: ${pairs} pairs`);
  }
} finally {
  await browser.close();
  await cdn.close();
  await partner.close();
}
console.log(`PAGELOAD ${JSON.stringify(out)}`);
