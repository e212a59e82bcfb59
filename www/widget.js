// <fundraising-campaign>: a campaign card a partner site drops in with one script tag.
//
//   <script type="module" src="https://partner-companion.example/widget.js"></script>
//   <fundraising-campaign short-name="demo-campaign" app-id="demo-app"
//                         base-url="https://api.example"
//                         donate-url="https://donate.example/?ref={reference}"></fundraising-campaign>
//
// The card lives in a shadow root and needs no inline style or script, so it works under a
// strict Content-Security-Policy. A partner brands it with CSS custom properties
// (--fundraising-accent, --fundraising-font, ...) and ::part(); it speaks the page's language
// (English and Welsh built in; every text replaceable with a `text-*` attribute); with
// `donate-url` it shows a Donate link that sends the donor to the donation site with a fresh
// third-party reference. docs/widgets.md has the whole list.
//
// What a visitor pays: the element loads nothing until it comes near the viewport
// (IntersectionObserver; loading="eager" starts at once), then the widgets' build of the
// package (pkg/widgets/: a campaign and a donation's wait, nothing else) under its
// content-hashed names (pkg/assets.js), which the companion serves compressed and as immutable,
// so a returning visitor fetches no wasm at all. A page with <fundraising-event> loads the
// light build instead (it has the event's pages too), one build for all its elements.
//
// Analytics: `fundraising-view` when an element is first at least half in view with its content
// on show. The elements set no cookie, store nothing and call no one but the service; a card
// carries the page address's campaign tags (utm_*, click ids) onto its Donate link only with
// `carry-attribution`, and only names of ATTRIBUTION.

import * as BUILDS from "./pkg/assets.js";
import { formatMoney, textAttributes, Words } from "./widget-text.js";
import { THEME } from "./widget-theme.js";

export { formatMoney, THEME };

/** The folder of the package, next to this file. */
const PACKAGE_DIR = new URL("pkg/", import.meta.url);

/** The package promise of each build loaded on this page. */
const loaded = {};

/**
 * Loads and initialises a build of the package once per page (`widgets`, the default, or
 * `full`, with sign-in); resolves with its exports. The glue and the wasm are fetched side by
 * side.
 */
export function loadPackage(build = "widgets") {
  loaded[build] ??= (async () => {
    // pkg/assets.js names each build's content-hashed copies; the widgets' hostable folder
    // (scripts/build-widgets.mjs) holds the widgets' build only.
    if (!BUILDS[build]) throw new Error(`the package's ${build} build is not served beside widget.js`);
    const { js, wasm } = BUILDS[build];
    const bytes = fetch(new URL(wasm, PACKAGE_DIR));
    bytes.catch(() => {}); // a failure is reported by init() below, or by the import
    const pkg = await import(new URL(js, PACKAGE_DIR).href);
    await pkg.default({ module_or_path: bytes });
    return pkg;
  })().catch((error) => {
    delete loaded[build]; // the next element tries again
    throw error;
  });
  return loaded[build];
}

/**
 * The error of a browser that cannot run the widgets: the package's FundraisingError
 * "unsupported" from init(), or the constructed style sheet the shadow root needs (a strict CSP
 * blocks a `<style>` element). Its message says what is missing.
 */
export function unsupportedError(cause) {
  if (cause?.code === "unsupported") return cause;
  const error = new Error(`this browser lacks constructed style sheets (${cause?.message ?? cause})`);
  error.code = "unsupported";
  return error;
}

/** The builds, smallest first: each holds every operation of the one before it. */
const BUILD_ORDER = ["widgets", "light", "full"];

/** Elements that need more than the widgets' build, by tag name, and the build each needs. */
const NEEDS = { "fundraising-event": "light" };

const order = (build) => BUILD_ORDER.indexOf(build);

/**
 * The package an element uses, which must hold the operations of build `needs` (`widgets`, the
 * default, or `light`): a build the page loads anyway when it covers them (the full build, which
 * the demo loads for sign-in, or the light build of another element), so one page never loads
 * two; else the smallest build that covers every element the page holds (a card on a page with
 * <fundraising-event> loads the light build, which both use).
 */
export function elementsPackage(needs = "widgets") {
  for (const build of BUILD_ORDER.slice(order(needs))) if (loaded[build]) return loaded[build];
  let build = needs;
  for (const [tag, wanted] of Object.entries(NEEDS)) {
    if (order(wanted) > order(build) && BUILDS[wanted] && document.getElementsByTagName(tag).length > 0) build = wanted;
  }
  return loadPackage(build);
}

const STYLE = `
  .card { border: 1px solid var(--_border); border-radius: var(--_radius); padding: calc(var(--_spacing) * .9) var(--_spacing);
          background: var(--_background); box-shadow: 0 1px 3px rgba(16, 24, 40, .08); overflow-wrap: anywhere; }
  h2 { font-size: 1.2rem; margin: 0 0 .35rem; line-height: 1.3; }
  .summary { margin: 0 0 calc(var(--_spacing) * .8); color: var(--_muted); line-height: 1.45; }
  .bar { height: var(--_bar-height); border-radius: 999px; background: var(--_bar-track); overflow: hidden; }
  .fill { height: 100%; background: var(--_bar-fill); border-radius: inherit; transition: width .4s ease; }
  .figures { display: flex; flex-wrap: wrap; gap: .25rem 1rem; justify-content: space-between;
             margin: .6rem 0 0; font-size: .95rem; }
  .raised { font-size: 1.15rem; font-weight: 700; color: var(--_accent); }
  .muted { color: var(--_muted); }
  .dates { margin: .35rem 0 0; font-size: .9rem; color: var(--_muted); }
  .donate { display: inline-block; margin-top: calc(var(--_spacing) * .8); padding: .6rem 1.4rem;
            border-radius: var(--_button-radius); background: var(--_button-background); color: var(--_button-text);
            font-weight: 700; text-decoration: none; line-height: 1.2; }
  .donate:hover { filter: brightness(1.08); }
  .donate:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
  .state { padding: calc(var(--_spacing) * .8) var(--_spacing); border-radius: var(--_radius);
           border: 1px dashed var(--_border); color: var(--_muted); background: var(--_background); }
  .error { border: 1px solid var(--_error-border); background: var(--_error-background); color: var(--_error-text); }
  @media (prefers-reduced-motion: reduce) { .fill { transition: none; } }
`;

const sheets = new Map();

/**
 * A constructed style sheet shared by every element of the page (adopted by each shadow
 * root): a page whose Content-Security-Policy has no 'unsafe-inline' blocks a `<style>`
 * element, not a constructed sheet.
 */
export function styleSheet(text) {
  if (!sheets.has(text)) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    sheets.set(text, sheet);
  }
  return sheets.get(text);
}

/** How near the viewport an element starts loading (IntersectionObserver's rootMargin). */
export const NEAR_VIEWPORT = "300px 0px";

let nearObserver;
const connected = new Set();
let languageObserver;

/** Elements waiting to come near the viewport: one observer for the page. */
function watchNearViewport(element) {
  nearObserver ??= new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) entry.target.reveal();
  }, { rootMargin: NEAR_VIEWPORT });
  nearObserver.observe(element);
}

/** Whether at least half of an observed element is in view (or, for one taller than twice the
 * viewport, whether it fills at least half of it). */
function halfInView(entry) {
  if (!entry.isIntersecting) return false;
  const viewport = entry.rootBounds?.height ?? innerHeight;
  return entry.intersectionRatio >= 0.5 || entry.intersectionRect.height >= viewport / 2;
}

let viewObserver;

/** Elements not yet seen: one observer for the page, reporting every 5% of visibility. */
function watchView(element) {
  viewObserver ??= new IntersectionObserver((entries) => {
    for (const entry of entries) entry.target.inView(halfInView(entry));
  }, { threshold: Array.from({ length: 21 }, (_, i) => i / 20) });
  viewObserver.observe(element);
}

/** A change of any `lang` attribute on the page (its <html lang>, usually) re-renders the elements. */
function watchLanguage() {
  if (languageObserver) return;
  languageObserver = new MutationObserver(() => {
    for (const element of connected) element.render();
  });
  languageObserver.observe(document.documentElement, { attributes: true, attributeFilter: ["lang"], subtree: true });
}

/**
 * The life of an element that does one piece of work from its attributes (every element of
 * this folder): nothing is loaded until it comes near the viewport (or at once with
 * `loading="eager"`); then attribute changes made in one task start it once, a new start
 * aborts the one before, and leaving the page aborts it. A change of language or of a
 * `text-*` attribute (or of one of `renderAttributes`) only re-renders. Subclasses implement
 * `run(signal)`, `refresh()` and `viewDetail()`; neither throws past the element (an error is
 * said on the console).
 *
 * `fundraising-view` (detail: `viewDetail()`) fires once in the element's life, when it is at
 * least half in view with its content on show (`viewDetail()` not null); a subclass calls
 * `shown()` when its content comes on show.
 */
export class AttributeDrivenElement extends HTMLElement {
  #controller = null;
  #scheduled = false;
  #revealed = false;
  #inView = false;
  #viewed = false;

  /** The attributes every element observes besides its own. */
  static commonAttributes = ["loading", "lang", "theme"];

  /** Attributes of the subclass that only change how it renders. */
  static renderAttributes = [];

  connectedCallback() {
    connected.add(this);
    watchLanguage();
    this.render();
    if (!this.#viewed) watchView(this);
    if (this.#revealed || this.getAttribute("loading") === "eager") this.reveal();
    else watchNearViewport(this);
  }

  disconnectedCallback() {
    connected.delete(this);
    nearObserver?.unobserve(this);
    viewObserver?.unobserve(this);
    this.#inView = false;
    this.#controller?.abort();
    this.#controller = null;
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this.isConnected) return;
    if (name === "loading") {
      if (newValue === "eager") this.reveal();
    } else if (name === "lang" || name === "theme" || name.startsWith("text-") || this.rendersOnly(name)) {
      this.render();
    } else if (this.#revealed) {
      this.#schedule();
    }
  }

  /**
   * Attaches the element's open shadow root with the theme and `style` adopted. Resolves the
   * `unsupported` error too when the browser cannot adopt them (no constructed style sheets): the
   * element then shows its error state, unstyled, rather than never render.
   */
  attachStyledShadow(style) {
    const root = this.attachShadow({ mode: "open" });
    try {
      root.adoptedStyleSheets = [styleSheet(THEME), styleSheet(style)];
      return { root, unsupported: null };
    } catch (error) {
      return { root, unsupported: unsupportedError(error) };
    }
  }

  /** Whether a change of attribute `name` only re-renders the element (one of `renderAttributes`). */
  rendersOnly(name) {
    return this.constructor.renderAttributes.includes(name);
  }

  /** `refresh()`, whose failure is said on the console rather than thrown at the page. */
  render() {
    try {
      this.refresh();
    } catch (error) {
      console.error(`<${this.localName}>: could not render:`, error);
    }
  }

  /** The view observer's news: whether at least half of the element is in view. */
  inView(half) {
    this.#inView = half;
    this.shown();
  }

  /** Fires `fundraising-view` if the element is in view with its content on show, once. */
  shown() {
    if (this.#viewed || !this.#inView) return;
    const detail = this.viewDetail();
    if (!detail) return;
    this.#viewed = true;
    viewObserver?.unobserve(this);
    this.dispatchEvent(new CustomEvent("fundraising-view", { detail, bubbles: true, composed: true }));
  }

  /** Shows the loading state (`loadingState(text)`) in the shadow root, the element busy. */
  renderLoading(text) {
    this.setAttribute("aria-busy", "true");
    this.shadowRoot.replaceChildren(loadingState(text));
  }

  /** Shows the error state (`errorState(text)`) in the shadow root. */
  renderError(text) {
    this.removeAttribute("aria-busy");
    this.shadowRoot.replaceChildren(errorState(text));
  }

  /** What `fundraising-view` says about the content on show, or null while none is. */
  viewDetail() {
    return null;
  }

  /** Whether the element has come near the viewport (or was told to load eagerly). */
  get revealed() {
    return this.#revealed;
  }

  /** Starts the work: the element is near the viewport. */
  reveal() {
    nearObserver?.unobserve(this);
    if (this.#revealed && this.#controller) return;
    this.#revealed = true;
    this.#schedule();
  }

  /** Coalesces several attribute changes made in one task into one start. */
  #schedule() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (!this.isConnected) return;
      this.#controller?.abort();
      this.#controller = new AbortController();
      const { signal } = this.#controller;
      Promise.resolve().then(() => this.run(signal)).catch((error) => {
        console.error(`<${this.localName}>:`, error);
      });
    });
  }
}

/** The names of the attributes the element lacks among `names`. */
export function missingAttributes(element, names) {
  return names.filter((name) => !element.getAttribute(name));
}

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
function withAttribution(url, carried) {
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

/** The longest delay setTimeout keeps (about 24.8 days). */
const MAX_TIMEOUT = 2 ** 31 - 1;

const CAMPAIGN_TEXTS = ["loading", "not-found", "load-failed", "unsupported", "missing-attributes", "amount-raised", "progress", "raised",
  "donations", "ends", "ended", "opens", "closed", "donate"];

/**
 * The custom element. Attributes: short-name, app-id, base-url (required), donate-url,
 * carry-attribution, loading, lang, theme, text-*. Events: fundraising-loaded,
 * fundraising-error, fundraising-view, fundraising-donate (cancelable), and one per giving
 * window: fundraising-giving-open, -not-started, -ended, -closed.
 */
export class FundraisingCampaignElement extends AttributeDrivenElement {
  static observedAttributes = ["short-name", "app-id", "base-url", "donate-url", "carry-attribution",
    ...AttributeDrivenElement.commonAttributes, ...textAttributes(CAMPAIGN_TEXTS)];

  static renderAttributes = ["donate-url", "carry-attribution"];

  #root;
  /** What is on show: {kind: "loading"} | {kind: "missing", names} | {kind: "error", ...} | {kind: "campaign", campaign}. */
  #state = { kind: "loading" };
  /** The package, once loaded (it makes the donation references). */
  #package = null;
  #unsupported = null;
  /** The giving window last announced (its event fired), and the timer of the next one. */
  #announced = null;
  #windowTimer = null;

  constructor() {
    super();
    ({ root: this.#root, unsupported: this.#unsupported } = this.attachStyledShadow(STYLE));
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.#windowTimer);
    this.#windowTimer = null;
  }

  /** The campaign on show, or null. */
  get campaign() {
    return this.#state.kind === "campaign" ? this.#state.campaign : null;
  }

  /** Where giving stands for the campaign on show (`open`, `not-started`, `ended`, `closed`), or null. */
  get giving() {
    return this.campaign ? givingWindow(this.campaign).state : null;
  }

  /** Loads the campaign of the attributes (aborted by `signal`). */
  async run(signal) {
    if (this.#unsupported) {
      this.#show({ kind: "error", key: "unsupported", values: { message: this.#unsupported.message } });
      return;
    }
    const shortName = this.getAttribute("short-name");
    const appId = this.getAttribute("app-id");
    const baseUrl = this.getAttribute("base-url");
    const missing = missingAttributes(this, ["short-name", "app-id", "base-url"]);
    if (missing.length > 0) {
      this.#show({ kind: "missing", names: missing });
      return;
    }

    this.#show({ kind: "loading" });
    try {
      const pkg = await elementsPackage();
      if (signal.aborted) return;
      const client = new pkg.FundraisingClient({ appId, baseUrl });
      const campaign = await client.getCampaign(shortName, { signal });
      if (signal.aborted) return;
      this.#package = pkg;
      this.#announced = null;
      this.#show({ kind: "campaign", campaign });
      this.dispatchEvent(new CustomEvent("fundraising-loaded", { detail: campaign, bubbles: true, composed: true }));
      this.#announceGiving();
      this.shown();
    } catch (error) {
      if (signal.aborted || error?.code === "aborted") return;
      console.error(`<fundraising-campaign short-name="${shortName}">:`, error);
      const message = error?.message ?? String(error);
      this.#show(error?.code === "not_found"
        ? { kind: "error", key: "not-found", values: { name: shortName } }
        : { kind: "error", key: error?.code === "unsupported" ? "unsupported" : "load-failed", values: { message } });
      this.dispatchEvent(new CustomEvent("fundraising-error", { detail: error, bubbles: true, composed: true }));
    }
  }

  /** What `fundraising-view` says: the campaign on show and where giving stands. */
  viewDetail() {
    const campaign = this.campaign;
    return campaign ? { campaign, giving: givingWindow(campaign).state } : null;
  }

  /**
   * Fires the event of the giving window the card shows, when it is not the one announced
   * last, and sets a timer for the next change (a start or an end within setTimeout's reach),
   * when the card renders again and says so.
   */
  #announceGiving() {
    const campaign = this.campaign;
    clearTimeout(this.#windowTimer);
    this.#windowTimer = null;
    if (!campaign) return;
    const now = Date.now();
    const giving = givingWindow(campaign, now);
    if (giving.state !== this.#announced) {
      this.#announced = giving.state;
      this.dispatchEvent(new CustomEvent(`fundraising-giving-${giving.state}`, {
        detail: { campaign, state: giving.state, start: giving.start, end: giving.end }, bubbles: true, composed: true,
      }));
    }
    const next = [giving.start, giving.end].map((date) => date?.getTime()).filter((at) => at > now).sort((a, b) => a - b)[0];
    if (next !== undefined && next - now <= MAX_TIMEOUT) {
      this.#windowTimer = setTimeout(() => {
        this.render();
        this.#announceGiving();
      }, next - now + 1);
    }
  }

  /** Renders what is on show again, in the current language and texts. */
  refresh() {
    const words = new Words(this);
    const state = this.#state;
    if (state.kind === "campaign") this.#renderCampaign(words, state.campaign);
    else if (state.kind === "missing") {
      this.renderError(words.text("missing-attributes", { names: state.names.join(", ") }, state.names.length));
    } else if (state.kind === "error") this.renderError(words.text(state.key, state.values));
    else this.renderLoading(words.text("loading"));
  }

  #show(state) {
    this.#state = state;
    this.render();
  }

  #frame(content) {
    this.#root.replaceChildren(content);
  }

  #renderCampaign(words, campaign) {
    const summary = campaign.donationSummary ?? {};
    const code = campaign.currency?.currencyCode ?? null;
    const symbol = campaign.currency?.currencySymbol ?? null;
    const raised = Number(summary.totalAmount ?? 0);
    const target = Number(campaign.targetAmount ?? 0);
    const count = Number(summary.totalNumberOfDonations ?? 0);
    const share = target > 0 ? Math.min(1, raised / target) : 1;
    const raisedText = words.money(raised, code, symbol);
    const targetText = words.money(target, code, symbol);
    const percentText = words.percent(share);
    const title = campaign.title ?? campaign.shortName ?? "";
    const giving = givingWindow(campaign);

    const card = el("article", { class: "card", part: "card", "aria-label": title, "data-giving": giving.state });
    const heading = el("h2", { part: "title" }, title);
    const summaryText = el("p", { class: "summary", part: "summary" }, campaign.summary ?? "");
    const bar = el("div", {
      class: "bar",
      role: "progressbar",
      "aria-label": words.text("amount-raised"),
      "aria-valuemin": "0",
      "aria-valuemax": String(target > 0 ? target : raised),
      "aria-valuenow": String(target > 0 ? Math.min(raised, target) : raised),
      "aria-valuetext": words.text("progress", { raised: raisedText, target: targetText, percent: percentText }),
      part: "progress",
    });
    const fill = el("div", { class: "fill", part: "progress-fill" });
    // Through the CSSOM: a strict CSP blocks a `style` attribute, not a style property set by script.
    fill.style.width = `${(share * 100).toFixed(2)}%`;
    bar.append(fill);
    const figures = el("p", { class: "figures", part: "figures" });
    const raisedLine = el("span", {});
    raisedLine.append(...words.nodes("raised", {
      raised: el("span", { class: "raised", part: "raised", "data-field": "raised" }, raisedText),
      target: el("span", { part: "target", "data-field": "target" }, targetText),
      percent: percentText,
    }));
    figures.append(raisedLine, el("span", { class: "muted", part: "donations", "data-field": "donations" },
      words.text("donations", { count: words.number(count) }, count)));
    card.append(heading, summaryText, bar, figures);

    // The giving window: when it ends (open), ended, opens, or that the campaign is closed.
    const line = {
      open: giving.end && ["ends", giving.end],
      ended: giving.end && ["ended", giving.end],
      "not-started": giving.start && ["opens", giving.start],
      closed: ["closed"],
    }[giving.state];
    if (line) {
      const [key, date] = line;
      card.append(el("p", { class: "dates", part: "dates", "data-field": key }, words.text(key, date ? { date: words.date(date) } : {})));
    }
    // A Donate link only while the campaign takes donations.
    const link = giving.state === "open" ? this.#donateLink(words, campaign) : null;
    if (link) card.append(link);

    this.removeAttribute("aria-busy");
    this.#frame(card);
  }

  /**
   * The Donate link of `donate-url`, or null without one (or with a template that is not a
   * web address holding `{reference}`: said on the console). Its address always holds a fresh
   * reference from the package (newDonationReference: getrandom, the browser's
   * crypto.getRandomValues); a used one is replaced right after the click, so no two donors'
   * journeys (nor two of one donor's) share a reference. With `carry-attribution`, the page
   * address's campaign tags and click ids follow (see `attribution`).
   */
  #donateLink(words, campaign) {
    const template = this.getAttribute("donate-url");
    if (!template || !this.#package) return null;
    const pkg = this.#package;
    if (typeof pkg.newDonationReference !== "function") {
      console.error("<fundraising-campaign>: this build of the package cannot make donation references (no newDonationReference): no Donate link");
      return null;
    }
    const carried = attribution(this);
    const shortName = campaign.shortName ?? this.getAttribute("short-name") ?? "";
    /** A fresh reference and the address holding it, or null for a template that cannot be one. */
    const fresh = () => {
      if (!/\{reference\}|%7Breference%7D/i.test(template)) return null;
      const reference = pkg.newDonationReference();
      try {
        const url = new URL(donateUrl(template, reference, shortName), document.baseURI);
        if (url.protocol !== "https:" && url.protocol !== "http:") return null;
        return { reference, href: withAttribution(url, carried).href };
      } catch {
        return null;
      }
    };
    let current = fresh();
    if (!current) {
      console.error(`<fundraising-campaign>: donate-url must be an http(s) address holding {reference}: ${template}`);
      return null;
    }
    const link = el("a", { class: "donate", part: "donate", href: current.href }, words.text("donate"));
    const activate = (event) => {
      const proceed = this.dispatchEvent(new CustomEvent("fundraising-donate", {
        detail: { reference: current.reference, url: current.href, campaign, attribution: { ...carried } },
        bubbles: true, composed: true, cancelable: true,
      }));
      if (!proceed) event.preventDefault();
      // A new reference for the next activation (this one's navigation has its address already).
      setTimeout(() => {
        current = fresh();
        link.href = current.href;
      });
    };
    link.addEventListener("click", activate);
    link.addEventListener("auxclick", (event) => { if (event.button === 1) activate(event); });
    return link;
  }
}

/** The loading state of an element: `part="loading"`, a status with a spinner and `text`. */
function loadingState(text) {
  const box = el("div", { class: "state", role: "status", part: "loading" });
  box.append(el("span", { class: "spinner", "aria-hidden": "true" }), text);
  return box;
}

/** The error state of an element: `part="error"`, an alert saying `text`. */
function errorState(text) {
  return el("div", { class: "state error", role: "alert", part: "error" }, text);
}

/** Creates an element with attributes and optional text content (never parsed as HTML). */
export function el(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

if (!customElements.get("fundraising-campaign")) {
  customElements.define("fundraising-campaign", FundraisingCampaignElement);
}
