// <fundraising-campaign>: a campaign card a partner site drops in with one script tag.
//
//   <script type="module" src="https://partner-companion.example/widget.js"></script>
//   <fundraising-campaign short-name="demo-campaign" app-id="demo-app"
//                         base-url="https://api.example"></fundraising-campaign>
//
// The card lives in a shadow root (no CSS leaks in or out) and needs no inline style or script,
// so it works under a strict Content-Security-Policy (see the README's "The widget"). It loads
// the fundraising-client package served next to this file (pkg/fundraising_client.js) and shows
// loading and error states, an accessible progress bar and amounts formatted with
// Intl.NumberFormat.

const PACKAGE_URL = new URL("pkg/fundraising_client.js", import.meta.url);

let packagePromise;

/** Loads and initialises the fundraising-client package once per page; resolves with its exports. */
export function loadPackage() {
  packagePromise ??= import(PACKAGE_URL.href).then(async (pkg) => {
    await pkg.default();
    return pkg;
  });
  return packagePromise;
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

/** Formats an amount in a currency with the page's locale; falls back to symbol + number. */
export function formatMoney(amount, currencyCode, currencySymbol) {
  if (amount === null || amount === undefined || Number.isNaN(Number(amount))) return "—";
  const value = Number(amount);
  if (currencyCode) {
    try {
      return new Intl.NumberFormat(undefined, { style: "currency", currency: currencyCode }).format(value);
    } catch {
      // An unknown currency code: fall through to the symbol.
    }
  }
  const number = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
  return `${currencySymbol ?? ""}${number}`;
}

const STYLE = `
  :host { display: block; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: #1d2430; max-width: 32rem; }
  :host([hidden]) { display: none; }
  .card { border: 1px solid #d7dce3; border-radius: 12px; padding: 1.1rem 1.25rem; background: #fff;
          box-shadow: 0 1px 3px rgba(16, 24, 40, .08); }
  h2 { font-size: 1.2rem; margin: 0 0 .35rem; line-height: 1.3; }
  .summary { margin: 0 0 1rem; color: #4a5565; line-height: 1.45; }
  .bar { height: .75rem; border-radius: 999px; background: #e8ecf1; overflow: hidden; }
  .fill { height: 100%; background: linear-gradient(90deg, #0f8a5f, #2bb673); border-radius: inherit;
          transition: width .4s ease; }
  .figures { display: flex; flex-wrap: wrap; gap: .25rem 1rem; justify-content: space-between;
             margin: .6rem 0 0; font-size: .95rem; }
  .raised { font-size: 1.15rem; font-weight: 700; color: #0b6b4a; }
  .muted { color: #5f6b7a; }
  .state { padding: 1rem 1.25rem; border-radius: 12px; border: 1px dashed #c5ccd6; color: #4a5565; }
  .error { border: 1px solid #e3a3a3; background: #fff5f5; color: #8a1c1c; }
  .spinner { display: inline-block; width: .9em; height: .9em; margin-right: .5em; vertical-align: -.1em;
             border: 2px solid #c5ccd6; border-top-color: #0f8a5f; border-radius: 50%;
             animation: spin .8s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
  @media (prefers-reduced-motion: reduce) { .spinner { animation: none; } .fill { transition: none; } }
`;

let sheet;

/**
 * The card's styles as one constructed style sheet shared by every element of the page (adopted
 * by each shadow root): a page whose Content-Security-Policy has no 'unsafe-inline' blocks a
 * `<style>` element, not a constructed sheet.
 */
function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
  }
  return sheet;
}

/**
 * The life of an element that does one piece of work from its attributes (both elements of
 * this folder): attribute changes made in one task start it once, a new start aborts the one
 * before, and leaving the page aborts it. Subclasses implement `run(signal)`.
 */
export class AttributeDrivenElement extends HTMLElement {
  #controller = null;
  #scheduled = false;

  connectedCallback() {
    this.#schedule();
  }

  disconnectedCallback() {
    this.#controller?.abort();
    this.#controller = null;
  }

  attributeChangedCallback(_name, oldValue, newValue) {
    if (oldValue !== newValue && this.isConnected) this.#schedule();
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
      this.run(this.#controller.signal);
    });
  }
}

/** The custom element; observed attributes: short-name, app-id, base-url. */
export class FundraisingCampaignElement extends AttributeDrivenElement {
  static observedAttributes = ["short-name", "app-id", "base-url"];

  #root;
  #unsupported = null;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    try {
      this.#root.adoptedStyleSheets = [styleSheet()];
    } catch (error) {
      // An old browser: the error state (unstyled) rather than an element that never renders.
      this.#unsupported = unsupportedError(error);
    }
  }

  /** Loads the campaign of the attributes (aborted by `signal`). */
  async run(signal) {
    if (this.#unsupported) {
      this.#renderError(`This browser cannot show the campaign: ${this.#unsupported.message}.`);
      return;
    }
    const shortName = this.getAttribute("short-name");
    const appId = this.getAttribute("app-id");
    const baseUrl = this.getAttribute("base-url");
    const missing = [["short-name", shortName], ["app-id", appId], ["base-url", baseUrl]]
      .filter(([, value]) => !value).map(([name]) => name);
    if (missing.length > 0) {
      this.#renderError(`Missing attribute${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}.`);
      return;
    }

    this.#renderLoading();
    try {
      const { FundraisingClient } = await loadPackage();
      const client = new FundraisingClient({ appId, baseUrl });
      const campaign = await client.getCampaign(shortName, { signal });
      if (signal.aborted) return;
      this.#renderCampaign(campaign);
    } catch (error) {
      if (signal.aborted || error?.code === "aborted") return;
      console.error(`<fundraising-campaign short-name="${shortName}">:`, error);
      const text = error?.code === "not_found"
        ? `No campaign is called “${shortName}”.`
        : error?.code === "unsupported"
          ? `This browser cannot show the campaign: ${error.message}.`
          : `The campaign could not be loaded: ${error?.message ?? error}`;
      this.#renderError(text);
      this.dispatchEvent(new CustomEvent("fundraising-error", { detail: error, bubbles: true, composed: true }));
    }
  }

  #frame(content) {
    this.#root.replaceChildren(content);
  }

  #renderLoading() {
    const box = el("div", { class: "state", role: "status", part: "loading" });
    box.append(el("span", { class: "spinner", "aria-hidden": "true" }), "Loading campaign…");
    this.setAttribute("aria-busy", "true");
    this.#frame(box);
  }

  #renderError(text) {
    this.removeAttribute("aria-busy");
    this.#frame(el("div", { class: "state error", role: "alert", part: "error" }, text));
  }

  #renderCampaign(campaign) {
    const summary = campaign.donationSummary ?? {};
    const code = campaign.currency?.currencyCode ?? null;
    const symbol = campaign.currency?.currencySymbol ?? null;
    const raised = Number(summary.totalAmount ?? 0);
    const target = Number(campaign.targetAmount ?? 0);
    const count = Number(summary.totalNumberOfDonations ?? 0);
    const percent = target > 0 ? Math.min(100, (raised / target) * 100) : 100;
    const raisedText = formatMoney(raised, code, symbol);
    const targetText = formatMoney(target, code, symbol);
    const percentText = `${Math.floor(percent)}%`;
    const donationsText = `${new Intl.NumberFormat().format(count)} donation${count === 1 ? "" : "s"}`;
    const title = campaign.title ?? campaign.shortName ?? "Campaign";

    const card = el("article", { class: "card", part: "card", "aria-label": title });
    const heading = el("h2", { part: "title" }, title);
    const summaryText = el("p", { class: "summary", part: "summary" }, campaign.summary ?? "");
    const bar = el("div", {
      class: "bar",
      role: "progressbar",
      "aria-label": "Amount raised",
      "aria-valuemin": "0",
      "aria-valuemax": String(target > 0 ? target : raised),
      "aria-valuenow": String(target > 0 ? Math.min(raised, target) : raised),
      "aria-valuetext": `${raisedText} raised of a ${targetText} target (${percentText})`,
      part: "progress",
    });
    const fill = el("div", { class: "fill" });
    // Through the CSSOM: a strict CSP blocks a `style` attribute, not a style property set by script.
    fill.style.width = `${percent.toFixed(2)}%`;
    bar.append(fill);
    const figures = el("p", { class: "figures", part: "figures" });
    const raisedLine = el("span", {});
    raisedLine.append(el("span", { class: "raised", "data-field": "raised" }, raisedText), " raised of ",
      el("span", { "data-field": "target" }, targetText), ` (${percentText})`);
    figures.append(raisedLine, el("span", { class: "muted", "data-field": "donations" }, donationsText));

    card.append(heading, summaryText, bar, figures);
    this.removeAttribute("aria-busy");
    this.#frame(card);
    this.dispatchEvent(new CustomEvent("fundraising-loaded", { detail: campaign, bubbles: true, composed: true }));
  }
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
