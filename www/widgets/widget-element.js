// What every element of this folder shares: loading a build of the package once per page (the
// smallest that covers the page's elements), the element's life (nothing loaded until it comes
// near the viewport; attribute changes start it again, a new start aborts the one before; a
// change of language or text only re-renders), its `fundraising-view` event, its themed shadow
// root with constructed style sheets (a strict CSP is fine), and its loading and error states.
// The elements themselves: widget.js (<fundraising-campaign>), event-widget.js and
// donation-return.js; scripts/build-widgets.mjs bundles each into one module with this file.

// The builds served beside the element's file, each `{js, wasm}` (their content-hashed addresses
// under pkg/), inlined by scripts/build-widgets.mjs: the hosted folder holds the card's, the
// widgets' and the light build; the demo's companion serves the full build too.
import { BUILDS } from "generated:assets";
import { THEME } from "./widget-theme.js";

/**
 * The package promise of each build loaded on this page, shared by every element's file: each
 * is its own module with its own copy of this one, and two of them must never load (and so
 * initialise) a build twice. Keyed by the build's name: one page, one release of the widgets.
 */
const loaded = (globalThis[Symbol.for("fundraising-widgets.loaded")] ??= {});

/**
 * Loads and initialises a build of the package once per page (`widgets`, the default, `light`,
 * or `full`, with sign-in, where it is served beside the elements); resolves with its exports.
 * The module and the wasm are fetched side by side, the wasm compiled as it arrives.
 */
export function loadPackage(build = "widgets") {
  loaded[build] ??= (async () => {
    if (!BUILDS[build]) throw new Error(`the package's ${build} build is not served beside widget.js`);
    const { js, wasm } = BUILDS[build];
    const bytes = fetch(wasm);
    bytes.catch(() => {}); // a failure is reported by init() below, or by the import
    const pkg = await import(js.href);
    await pkg.default({ module_or_path: bytes });
    return pkg;
  })().catch((error) => {
    delete loaded[build]; // the next element tries again
    throw error;
  });
  return loaded[build];
}

/**
 * Starts an element's first request at once, beside the package's download and compile: a GET
 * of `path()` (a read's path from `generated:operations`, core's table, never spelled here)
 * below `baseUrl`, sent as the package sends it. Returns what hands its answer to the package
 * (`adoptResponse`): the package's call to that address takes it as its first attempt and reads
 * it with its own decoder; a failed answer leaves the call to make its own request. Nothing is
 * sent early for a base-url that is no http(s) address (the package's call says what is wrong)
 * or values that make no path.
 */
export function early(baseUrl, path, signal) {
  let url;
  try {
    if (!/^https?:$/.test(new URL(baseUrl).protocol)) return () => {};
    url = baseUrl.replace(/\/+$/, "") + path();
  } catch {
    return () => {};
  }
  const answer = fetch(url, { headers: { Accept: "application/json" }, signal });
  answer.catch(() => {}); // a failure is the package's own call's to report
  return (pkg) => pkg.adoptResponse?.(url, answer);
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
const BUILD_ORDER = ["card", "widgets", "light", "full"];

/** Elements that need more than the card's build, by tag name, and the build each needs. */
const NEEDS = { "fundraising-donation": "widgets", "fundraising-event": "light" };

const order = (build) => BUILD_ORDER.indexOf(build);

/**
 * The package an element uses, which must hold the operations of build `needs` (`card`, `widgets`
 * or `light`): a build the page loads anyway when it covers them (the full build, which the demo
 * loads for sign-in, or the build of another element), so one page never loads two; else the
 * smallest build served that covers every element the page holds (a card alone loads the card's
 * build, a card beside <fundraising-donation> the widgets' build, beside <fundraising-event> the
 * light build, which they all use).
 */
export function elementsPackage(needs) {
  for (const build of BUILD_ORDER.slice(order(needs))) if (loaded[build]) return loaded[build];
  let build = BUILD_ORDER.slice(order(needs)).find((name) => BUILDS[name]) ?? needs;
  for (const [tag, wanted] of Object.entries(NEEDS)) {
    if (order(wanted) > order(build) && BUILDS[wanted] && document.getElementsByTagName(tag).length > 0) build = wanted;
  }
  return loadPackage(build);
}

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

/** How near the viewport, above or below it, an element starts loading, in CSS pixels. */
const NEAR_PX = 300;

/** The same as IntersectionObserver's rootMargin. */
export const NEAR_VIEWPORT = `${NEAR_PX}px 0px`;

/**
 * Whether `element` is near the viewport now, by its box (a layout read): an element the page
 * shows at once starts loading in the task that connects it, not a frame later when the
 * observer first reports. One without a box (`display: none`) is left to the observer.
 */
function nearViewportNow(element) {
  if (element.getClientRects().length === 0) return false;
  const { top, bottom, left, right } = element.getBoundingClientRect();
  return bottom >= -NEAR_PX && top <= innerHeight + NEAR_PX && right >= 0 && left <= innerWidth;
}

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
 * this folder): nothing is loaded until it comes near the viewport (at once when it is near it
 * on connecting, or with `loading="eager"`); then attribute changes made in one task start it once, a new start
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
    if (this.#revealed || this.getAttribute("loading") === "eager" || nearViewportNow(this)) this.reveal();
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
