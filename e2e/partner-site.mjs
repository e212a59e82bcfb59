// A partner's web site for the end-to-end tests: a tiny static server on 127.0.0.1 (port 0, so
// its own origin, which is not in the companion's --allowed-origin list) that serves pages
// embedding <fundraising-campaign> and a thank-you page with <fundraising-donation>, exactly as
// docs/widgets.md tells a partner to, under a strict Content-Security-Policy sent as a header.
// Violation reports (report-uri) are kept.
//
//   /            the campaign card, with a Donate link to the sandbox's donation page (on the
//                companion), which sends the donor back to /thanks?donation={reference}
//   /thanks      the thank-you page (<fundraising-donation reference-param="donation">)
//   /far         the card far below the fold (a 4000 px tall introduction above it)
//   /far-eager   the same with loading="eager"
//   /cy          the card on a Welsh page (<html lang="cy">)
//   /brand       the card branded from the partner's style sheet (custom properties, ::part())
//   /old-browser?hide=…, /old-browser-thanks?hide=…   the card (or the thank-you page) in an
//                engine missing a feature (a classic script takes it away before widget.js)
//   /no-wasm-csp the card under a policy without 'wasm-unsafe-eval'
//   /card?campaign=…&lang=…&carry=…&analytics   a card for another campaign, in a language, with
//                carry-attribution (`carry`'s value) and the docs' analytics recipe (/analytics.js);
//                other parameters (utm_*, click ids) stay in the address for the card to read
//   /event?event-id=…&lang=…&limit=…&per-page=…&page-url=…&images&base-url=…&page-lang=…&card&far
//                <fundraising-event> (event 1001 by default) with those attributes, on a page in
//                `page-lang`, a card beside it with `card`, 4000 px below with `far`; `images` also lets the page load
//                images from IMAGE_ORIGIN (img-src), and `base-url` is the CSP's resource API
//   /thanks?…&analytics   the thank-you page with the analytics recipe
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

/** The colours /brand gives the card, as the browser computes them. */
export const BRAND = {
  accent: "rgb(122, 31, 92)",
  buttonBackground: "rgb(122, 31, 92)",
  font: "Georgia, serif",
  radius: "3px",
  titleTransform: "uppercase",
  donateRadius: "999px",
};

/** The partner's own stylesheet (style-src 'self'); the brand rules apply to /brand only. */
const PARTNER_CSS = `body { font: 16px/1.5 Georgia, serif; margin: 2rem auto; max-width: 40rem; padding: 0 1rem; color: #222; background: #fff; }
h1, p { color: #7a1f5c; }
.intro { min-height: 4000px; }
body.brand fundraising-campaign {
  --fundraising-accent: #7a1f5c;
  --fundraising-button-background: #7a1f5c;
  --fundraising-bar-fill: #7a1f5c;
  --fundraising-font: Georgia, serif;
  --fundraising-radius: 3px;
}
body.brand fundraising-campaign::part(title) { text-transform: uppercase; }
body.brand fundraising-campaign::part(donate) { border-radius: 999px; }
@media (prefers-color-scheme: dark) {
  body { color: #eee; background: #111; }
  h1, p { color: #f0b6dd; }
  body.brand fundraising-campaign { --fundraising-accent: #f0b6dd; --fundraising-button-background: #f0b6dd; --fundraising-button-text: #2a0b22; }
}
`;

/** Where the sandbox's fundraising pages keep their images (pageImages). */
export const IMAGE_ORIGIN = "https://images.example.org";

/**
 * The Content-Security-Policy a partner page needs for the widget, besides its own sources:
 * the module script and the package from the companion, WebAssembly compilation, the package's
 * .wasm file (fetched, so connect-src) from the companion and the resource API; with `images`,
 * the fundraisers' images of <fundraising-event images> from that origin.
 */
export function partnerCsp({ companionUrl, baseUrl }, { images = null } = {}) {
  const companion = new URL(companionUrl).origin;
  const api = new URL(baseUrl).origin;
  return [
    "default-src 'none'",
    `script-src 'self' ${companion} 'wasm-unsafe-eval'`,
    `connect-src ${companion} ${api}`,
    "style-src 'self'",
    images ? `img-src 'self' ${images}` : "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "report-uri /csp-report",
  ].join("; ");
}

const attr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/**
 * The donate-url of the partner's card: the sandbox's donation page on the companion (standing
 * in for the donation site), which sends the donor back to the partner's /thanks.
 */
export function partnerDonateUrl({ companionUrl }, partnerOrigin) {
  const back = encodeURIComponent(`${partnerOrigin}/thanks?donation=`);
  return `${new URL(companionUrl).origin}/donate.html?reference={reference}&return=${back}{reference}`;
}

/**
 * A partner's HTML page: its language, title, the tags of `head` after its style sheet, a class
 * on <body>, and the content of <main>.
 */
function htmlPage({ lang = "en", title, head, bodyClass = "", main }) {
  return `<!doctype html>
<html lang="${attr(lang)}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title}</title>
  <link rel="stylesheet" href="/partner.css">${head}
</head>
<body${bodyClass ? ` class="${attr(bodyClass)}"` : ""}>
  <main>
${main}
  </main>
</body>
</html>
`;
}

/** A module script tag of the companion's. */
const moduleTag = (companion, file) => `\n  <script type="module" src="${attr(companion)}/${file}"></script>`;

/**
 * A page: one module script tag and the element, nothing else of the widget's. `lang` is the
 * page's language, `far` puts a 4000 px tall introduction above the card, `eager` gives it
 * loading="eager", `bodyClass` a class on <body>.
 */
export function partnerPage({ companionUrl, baseUrl, appId }, { partnerOrigin, lang = "en", far = false, eager = false, bodyClass = "" } = {}) {
  const companion = new URL(companionUrl).origin;
  const donate = partnerOrigin ? ` donate-url="${attr(partnerDonateUrl({ companionUrl }, partnerOrigin))}"` : "";
  const intro = far
    ? `<p class="intro">Our story, at length: the card is far below, out of sight until you scroll.</p>\n    `
    : "";
  return htmlPage({
    lang,
    title: "Riverside Runners: our appeal",
    head: moduleTag(companion, "widget.js"),
    bodyClass,
    main: `    <h1>Riverside Runners</h1>
    ${intro}<p>Our club runs for the river trust this year. See how far we have come:</p>
    <fundraising-campaign short-name="demo-campaign" app-id="${attr(appId)}"
                          base-url="${attr(baseUrl)}"${donate}${eager ? ' loading="eager"' : ""}></fundraising-campaign>`,
  });
}

/** The partner's own script for its analytics (the docs' recipe, /analytics.js), when asked. */
const analyticsTag = (analytics) => (analytics ? '\n  <script src="/analytics.js"></script>' : "");

/**
 * A card for `campaign` (`/card?campaign=…`): in `lang`, with `carry-attribution="<carry>"` when
 * `carry` is not null, and the analytics recipe with `analytics`.
 */
export function cardPage({ companionUrl, baseUrl, appId }, { partnerOrigin, campaign = "demo-campaign", lang = "en", carry = null, analytics = false }) {
  const companion = new URL(companionUrl).origin;
  const donate = attr(partnerDonateUrl({ companionUrl }, partnerOrigin));
  const carried = carry === null ? "" : ` carry-attribution="${attr(carry)}"`;
  return htmlPage({
    lang,
    title: "Riverside Runners: our appeals",
    head: analyticsTag(analytics) + moduleTag(companion, "widget.js"),
    main: `    <h1>Riverside Runners</h1>
    <p>Our appeal:</p>
    <fundraising-campaign short-name="${attr(campaign)}" app-id="${attr(appId)}" base-url="${attr(baseUrl)}"
                          donate-url="${donate}"${carried}></fundraising-campaign>`,
  });
}

/**
 * <fundraising-event> on a partner page (`/event?…`): `attributes` are the element's own
 * (event-id, limit, per-page, page-url, images, lang...), `lang` the page's, and with `card` a
 * campaign card beside it (its script tag too).
 */
export function eventPage({ companionUrl, baseUrl, appId }, { attributes = {}, lang = "en", card = false, far = false }) {
  baseUrl = attributes["base-url"] ?? baseUrl;
  delete attributes["base-url"];
  const companion = new URL(companionUrl).origin;
  const own = Object.entries({ "event-id": "1001", ...attributes })
    .map(([name, value]) => (value === "" ? ` ${name}` : ` ${name}="${attr(value)}"`)).join("");
  const cardElement = card
    ? `\n    <fundraising-campaign short-name="demo-campaign" app-id="${attr(appId)}" base-url="${attr(baseUrl)}"></fundraising-campaign>`
    : "";
  return htmlPage({
    lang,
    title: "Riverside Runners: the Demo City Marathon",
    head: moduleTag(companion, "event-widget.js") + (card ? moduleTag(companion, "widget.js") : ""),
    main: `    <h1>Riverside Runners at the marathon</h1>${far ? '\n    <p class="intro">Our story, at length: the runners are far below.</p>' : ""}
    <p>Our runners, and what they raised:</p>${cardElement}
    <fundraising-event app-id="${attr(appId)}" base-url="${attr(baseUrl)}"${own}></fundraising-event>`,
  });
}

/**
 * The partner's thank-you page, where the donation site sends the donor back with
 * `?donation=<reference>`: one module script tag and <fundraising-donation>, nothing else (and
 * the analytics recipe with `analytics`).
 */
export function thanksPage({ companionUrl, baseUrl, appId }, { analytics = false } = {}) {
  const companion = new URL(companionUrl).origin;
  return htmlPage({
    title: "Riverside Runners: thank you",
    head: analyticsTag(analytics) + moduleTag(companion, "donation-return.js"),
    main: `    <h1>Thank you for supporting Riverside Runners</h1>
    <fundraising-donation reference-param="donation" app-id="${attr(appId)}"
                          base-url="${attr(baseUrl)}"></fundraising-donation>`,
  });
}

/**
 * An engine whose WebAssembly has no reference types (Chrome before 96, Firefox before 79,
 * Safari before 15.1), in full: its validator refuses every module with an externref in a
 * function type (the engine check's probe, and the package's module, whose JS values all go
 * through externref), so WebAssembly.validate says no and every way to compile one (Module,
 * compile, instantiate, their streaming forms) throws a CompileError. Other modules (the
 * check's other probes, the empty module) compile as before. Run in the page, as its source.
 */
function withoutReferenceTypes() {
  const wasm = WebAssembly;
  const { validate, compile, instantiate, Module } = wasm;
  const bytesOf = (source) => (ArrayBuffer.isView(source)
    ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
    : new Uint8Array(source));
  // Whether a function type of the module's type section (id 1) takes or returns an externref.
  const usesExternref = (bytes) => {
    let at = 8;
    const u32 = () => {
      let value = 0;
      let shift = 0;
      let byte;
      do {
        byte = bytes[at++];
        value += (byte & 127) * 2 ** shift;
        shift += 7;
      } while (byte & 128);
      return value;
    };
    while (at < bytes.length) {
      const id = bytes[at++];
      const end = u32() + at;
      if (id === 1) {
        for (let types = u32(); types > 0; types -= 1) {
          at += 1; // 0x60, a function type
          for (let list = 0; list < 2; list += 1) {
            for (let count = u32(); count > 0; count -= 1) if (bytes[at++] === 0x6f) return true;
          }
        }
      }
      at = end;
    }
    return false;
  };
  const check = (source) => {
    if (usesExternref(bytesOf(source))) {
      throw new wasm.CompileError("WebAssembly.Module(): invalid value type 0x6f (this engine has no reference types)");
    }
  };
  const streamed = async (source) => new Uint8Array(await (await source).arrayBuffer());
  wasm.validate = (source) => validate.call(wasm, source) && !usesExternref(bytesOf(source));
  wasm.Module = class extends Module {
    constructor(source) {
      check(source);
      super(source);
    }
  };
  wasm.compile = async (source) => {
    check(source);
    return compile.call(wasm, source);
  };
  wasm.instantiate = async (source, imports) => {
    if (!(source instanceof Module)) check(source);
    return instantiate.call(wasm, source, imports);
  };
  wasm.compileStreaming = async (source) => wasm.compile(await streamed(source));
  wasm.instantiateStreaming = async (source, imports) => wasm.instantiate(await streamed(source), imports);
}

/**
 * What /old-browser.js takes away from the page before the widget loads, to act as an engine
 * older than the package or the widgets support (the package's init() failing, the engine
 * check it then fetches, the widgets' error state), or one the package runs in without an API
 * it can do without.
 */
const OLD_BROWSER = {
  // Safari before 15.4: the package runs; the tabs of an origin are not kept in step.
  BroadcastChannel: "delete window.BroadcastChannel;",
  "reference-types": `(${withoutReferenceTypes})();`,
  // Safari before 16.4, Firefox before 101: no constructed style sheets.
  CSSStyleSheet: "window.CSSStyleSheet = function CSSStyleSheet() { throw new TypeError('Illegal constructor'); };",
};

/**
 * A page of `oldBrowserPages`: the campaign page or the thank-you page with one classic script
 * of the partner's own origin first, /old-browser.js?hide=<what>, run before widget.js.
 */
function withOldBrowserScript(html, hide) {
  return html.replace("<link rel=\"stylesheet\" href=\"/partner.css\">",
    `<link rel="stylesheet" href="/partner.css">\n  <script src="/old-browser.js?hide=${encodeURIComponent(hide)}"></script>`);
}

/**
 * The partner's Content-Security-Policy without 'wasm-unsafe-eval': what a partner who
 * forgot it sends (the package must say so, not fail obscurely).
 */
export function cspWithoutWasm(env) {
  return partnerCsp(env).replace(" 'wasm-unsafe-eval'", "");
}

/**
 * The analytics recipe of docs/widgets.md, as written there: the JavaScript block that begins
 * with `// analytics.js`.
 */
export function analyticsRecipe() {
  const docs = readFileSync(new URL("../docs/widgets.md", import.meta.url), "utf8");
  const block = /```js\n(\/\/ analytics\.js[\s\S]*?)```/.exec(docs);
  if (!block) throw new Error("docs/widgets.md has no ```js block beginning with // analytics.js");
  return block[1];
}

/**
 * Starts the partner site (the pages above); resolves with `{origin, csp, reports, close()}`.
 * `reports` fills with the bodies Chromium posts to /csp-report.
 */
export async function startPartnerSite(env) {
  const csp = partnerCsp(env);
  let origin;
  const pages = new Map();
  const reports = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://partner.invalid").pathname;
    if (request.method === "POST" && path === "/csp-report") {
      const chunks = [];
      let size = 0;
      request.on("data", (chunk) => {
        size += chunk.length;
        if (size <= 64 * 1024) chunks.push(chunk);
      });
      request.on("end", () => {
        reports.push(Buffer.concat(chunks).toString("utf8"));
        response.writeHead(204).end();
      });
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    const common = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };
    const query = new URL(request.url, "http://partner.invalid").searchParams;
    const html = (body, policy = csp) => {
      response.writeHead(200, { ...common, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": policy });
      response.end(request.method === "HEAD" ? undefined : body);
    };
    if (path === "/card") {
      html(cardPage(env, {
        partnerOrigin: origin,
        campaign: query.get("campaign") ?? undefined,
        lang: query.get("lang") ?? undefined,
        carry: query.get("carry"),
        analytics: query.has("analytics"),
      }));
    } else if (path === "/event") {
      const attributes = {};
      for (const name of ["event-id", "limit", "per-page", "page-url", "images", "lang", "theme", "loading", "base-url"]) {
        if (query.has(name)) attributes[name] = query.get(name);
      }
      // Another base-url (the test helper's fault proxy) is the resource API of this page's CSP.
      const policyEnv = { ...env, baseUrl: attributes["base-url"] ?? env.baseUrl };
      html(eventPage(env, { attributes, lang: query.get("page-lang") ?? undefined, card: query.has("card"), far: query.has("far") }),
        partnerCsp(policyEnv, { images: query.has("images") ? IMAGE_ORIGIN : null }));
    } else if (path === "/thanks" && query.has("analytics")) {
      html(thanksPage(env, { analytics: true }));
    } else if (path === "/analytics.js") {
      response.writeHead(200, { ...common, "Content-Type": "text/javascript; charset=utf-8" });
      response.end(request.method === "HEAD" ? undefined : analyticsRecipe());
    } else if (pages.has(path)) {
      response.writeHead(200, { ...common, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": csp });
      response.end(request.method === "HEAD" ? undefined : pages.get(path));
    } else if (path === "/old-browser" || path === "/old-browser-thanks") {
      // The campaign (or thank-you) page in an engine missing `hide` (a key of OLD_BROWSER).
      const hide = new URL(request.url, "http://partner.invalid").searchParams.get("hide");
      if (!Object.hasOwn(OLD_BROWSER, hide ?? "")) {
        response.writeHead(400, { ...common, "Content-Type": "text/plain; charset=utf-8" }).end("unknown hide\n");
        return;
      }
      response.writeHead(200, { ...common, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": csp });
      response.end(request.method === "HEAD" ? undefined : withOldBrowserScript(pages.get(path === "/old-browser" ? "/" : "/thanks"), hide));
    } else if (path === "/old-browser.js") {
      const hide = new URL(request.url, "http://partner.invalid").searchParams.get("hide");
      response.writeHead(200, { ...common, "Content-Type": "text/javascript; charset=utf-8" });
      response.end(request.method === "HEAD" ? undefined : OLD_BROWSER[hide] ?? "");
    } else if (path === "/no-wasm-csp") {
      // The campaign page under a policy without 'wasm-unsafe-eval'.
      response.writeHead(200, { ...common, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": cspWithoutWasm(env) });
      response.end(request.method === "HEAD" ? undefined : pages.get("/"));
    } else if (path === "/partner.css") {
      response.writeHead(200, { ...common, "Content-Type": "text/css; charset=utf-8" });
      response.end(request.method === "HEAD" ? undefined : PARTNER_CSS);
    } else if (path === "/favicon.ico") {
      response.writeHead(204, common).end();
    } else {
      response.writeHead(404, { ...common, "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  origin = `http://127.0.0.1:${port}`;
  pages.set("/", partnerPage(env, { partnerOrigin: origin }));
  pages.set("/thanks", thanksPage(env));
  pages.set("/far", partnerPage(env, { far: true }));
  pages.set("/far-eager", partnerPage(env, { far: true, eager: true }));
  pages.set("/cy", partnerPage(env, { partnerOrigin: origin, lang: "cy" }));
  pages.set("/brand", partnerPage(env, { partnerOrigin: origin, bodyClass: "brand" }));
  return {
    origin,
    csp,
    reports,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
