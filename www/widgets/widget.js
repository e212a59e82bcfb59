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
// (IntersectionObserver; loading="eager" starts at once), then the card's build of the
// package (pkg/card/: a campaign, nothing else) under its content-hashed names (pkg/assets.js),
// which the companion serves compressed and as immutable, so a returning visitor fetches no wasm
// at all, with the campaign's request sent beside it. A page with <fundraising-donation> loads
// the widgets' build instead (a donation's wait too), one with <fundraising-event> the light
// build (the event's pages too): one build for all its elements.
//
// Analytics: `fundraising-view` when an element is first at least half in view with its content
// on show. The elements set no cookie, store nothing and call no one but the service; a card
// carries the page address's campaign tags (utm_*, click ids) onto its Donate link only with
// `carry-attribution`, and only names of ATTRIBUTION (widget-giving.js).

import { campaign as campaignPath } from "generated:operations";
import { AttributeDrivenElement, early, el, elementsPackage, missingAttributes } from "./widget-element.js";
import { attribution, donateUrl, givingWindow, withAttribution } from "./widget-giving.js";
import { CAMPAIGN_TEXTS, textAttributes, Words } from "./widget-text.js";

// A page that loads a build of the package itself loads it through here, so that its elements
// use it too (docs/widgets.md: one build per page).
export { loadPackage } from "./widget-element.js";

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

/** The longest delay setTimeout keeps (about 24.8 days). */
const MAX_TIMEOUT = 2 ** 31 - 1;

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
    // The campaign's request at once, beside the package's download and compile.
    const handOver = early(baseUrl, () => campaignPath(appId, shortName), signal);
    try {
      const pkg = await elementsPackage("card");
      if (signal.aborted) return;
      handOver(pkg);
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
    const words = new Words(this, CAMPAIGN_TEXTS);
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
    this.#root.replaceChildren(card);
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

if (!customElements.get("fundraising-campaign")) {
  customElements.define("fundraising-campaign", FundraisingCampaignElement);
}
