// <fundraising-event>: an event's fundraisers, ranked by amount raised, on a partner's page.
//
//   <script type="module" src="https://partner-companion.example/event-widget.js"></script>
//   <fundraising-event event-id="1001" app-id="demo-app" base-url="https://api.example"
//                      page-url="https://www.example.org/fundraising/{pageShortName}"></fundraising-event>
//
// It shows the event's total raised and its number of fundraising pages, then the fundraisers
// as an ordered list ranked by amount raised (ties share a rank): each with its title (a link
// through the `page-url` template when given), its owner where the service gives one, what it
// raised against its target (a progress bar and the figures), and its image with `images`. A
// "Show more" button shows `per-page` more at a time.
//
// The service ignores `orderBy`, so ranking needs every page of the event: the element fetches
// them 100 at a time (the service's most), the first alone and then the others side by side (at
// most four in flight), each within the client's retry and abort rules, up to `limit`
// fundraisers (500 by default, at most 1,000), shows the first answer's fundraisers while the
// others load, and says on the element when the ranking covers only the first `limit` of them
// (event-ranking.js).
//
// Same conventions as <fundraising-campaign> (widget.js): a shadow root with constructed style
// sheets (a strict Content-Security-Policy is fine), the same theme (--fundraising-* custom
// properties, ::part(), dark scheme), English and Welsh texts (event-text.js) replaceable with
// `text-*`, numbers and amounts through Intl, every string of the service set as text, never as
// HTML; loaded only near the viewport. It needs the event's pages, which the widgets' build
// lacks: it loads the light build (one build for every element of the page, widget-element.js).
//
// Bad input (a missing or non-numeric event-id, a page-url that is not an http(s) template, a
// limit or per-page out of range, an answer with odd members) shows the error state and says
// why on the console; nothing is thrown at the page.

import { pages as pagesPath } from "generated:operations";
import { AttributeDrivenElement, early, el, elementsPackage } from "./widget-element.js";
import { failure, fetchPages, firstPageSize, imageOf, pageUrl, rank, readAttributes } from "./event-ranking.js";
import { EVENT_TEXTS } from "./event-text.js";
import { textAttributes, Words } from "./widget-text.js";

const STYLE = `
  .card { border: 1px solid var(--_border); border-radius: var(--_radius); padding: calc(var(--_spacing) * .9) var(--_spacing);
          background: var(--_background); box-shadow: 0 1px 3px rgba(16, 24, 40, .08); overflow-wrap: anywhere; }
  h2 { font-size: 1.2rem; margin: 0 0 .35rem; line-height: 1.3; }
  .figures { display: flex; flex-wrap: wrap; gap: .25rem 1rem; justify-content: space-between; margin: 0; font-size: .95rem; }
  .raised { font-size: 1.15rem; font-weight: 700; color: var(--_accent); }
  .muted { color: var(--_muted); }
  .note { margin: .5rem 0 0; font-size: .9rem; color: var(--_muted); }
  ol { margin: calc(var(--_spacing) * .8) 0 0; padding: 0 0 0 2.2rem; }
  li { padding: .6rem 0; border-top: 1px solid var(--_border); }
  li::marker { font-weight: 700; color: var(--_muted); }
  .row { display: flex; gap: .75rem; align-items: flex-start; }
  /* The text aligns by its baseline, so the rank (the list's marker) stands beside the title. */
  .row > div { flex: 1; min-width: 0; align-self: baseline; }
  img { width: 3rem; height: 3rem; object-fit: cover; border-radius: calc(var(--_radius) / 2); flex: none; background: var(--_bar-track); }
  .name { font-weight: 700; line-height: 1.3; }
  a.name { color: var(--_text); text-decoration: underline; text-decoration-color: var(--_accent); text-underline-offset: .15em; }
  a.name:focus-visible, button:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
  .owner { margin: .1rem 0 0; font-size: .9rem; color: var(--_muted); }
  .bar { height: calc(var(--_bar-height) * .67); margin: .4rem 0 0; border-radius: 999px; background: var(--_bar-track); overflow: hidden; }
  .fill { height: 100%; background: var(--_bar-fill); border-radius: inherit; }
  .amounts { margin: .3rem 0 0; font-size: .9rem; }
  .amounts .raised { font-size: inherit; }
  .more { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between;
          margin-top: .4rem; padding-top: .6rem; border-top: 1px solid var(--_border); font-size: .9rem; color: var(--_muted); }
  .more p { margin: 0; }
  button { font: inherit; font-weight: 700; padding: .5rem 1.2rem; border: 0; border-radius: var(--_button-radius);
           background: var(--_button-background); color: var(--_button-text); cursor: pointer; line-height: 1.2; }
  button:hover { filter: brightness(1.08); }
  .state { padding: calc(var(--_spacing) * .8) var(--_spacing); border-radius: var(--_radius);
           border: 1px dashed var(--_border); color: var(--_muted); background: var(--_background); }
  .error { border: 1px solid var(--_error-border); background: var(--_error-background); color: var(--_error-text); }
`;

/** What the element shows of the fetched pages: `{eventId, eventName, totalRaised, totalFundraisingPages, fundraisers, limited, currencyCode, currencySymbol}`. */
function eventOf(options, fetched) {
  return {
    eventId: options.eventId,
    eventName: fetched.pages.find((page) => page.eventName)?.eventName ?? null,
    totalRaised: fetched.totalRaised,
    totalFundraisingPages: fetched.totalFundraisingPages,
    fundraisers: rank(fetched.pages),
    limited: fetched.limited,
    currencyCode: fetched.pages.find((page) => page.currencyCode)?.currencyCode ?? null,
    currencySymbol: fetched.pages.find((page) => page.currencySymbol)?.currencySymbol ?? null,
  };
}

/** How many fundraisers the whole ranking will hold: the event's, up to `limit`. */
function limitOf(options, fetched) {
  return Math.min(options.limit, fetched.totalFundraisingPages);
}

/**
 * The custom element. Attributes: event-id, app-id, base-url (required), page-url, limit,
 * per-page, images, loading, lang, theme, text-*. Events: fundraising-loaded (detail: the
 * event's figures and its ranked fundraisers), fundraising-error, fundraising-view.
 */
export class FundraisingEventElement extends AttributeDrivenElement {
  static observedAttributes = ["event-id", "app-id", "base-url", "limit", "page-url", "per-page", "images",
    ...AttributeDrivenElement.commonAttributes, ...textAttributes(EVENT_TEXTS)];

  static renderAttributes = ["page-url", "per-page", "images"];

  #root;
  /** What is on show: loading, missing, invalid, error, or the event ({kind: "event", event}). */
  #state = { kind: "loading" };
  /** How many fundraisers are on show (grows with "Show more"). */
  #shown = 0;
  #unsupported = null;
  /** The last bad attribute said on the console (said once, not on every render). */
  #said = null;

  constructor() {
    super();
    ({ root: this.#root, unsupported: this.#unsupported } = this.attachStyledShadow(STYLE));
  }

  /** The event on show, its ranking complete: `{eventId, eventName, totalRaised, totalFundraisingPages, fundraisers, limited}`, or null. */
  get event() {
    return this.#state.kind === "event" && !this.#state.pending ? this.#state.event : null;
  }

  /** Loads the event's fundraising pages (aborted by `signal`). */
  async run(signal) {
    if (this.#unsupported) {
      this.#show({ kind: "error", key: "unsupported", values: { message: this.#unsupported.message } });
      return;
    }
    const options = readAttributes(this);
    if (options.missing) {
      const error = failure("missing_attribute", `Missing attribute${options.missing.length > 1 ? "s" : ""}: ${options.missing.join(", ")}.`);
      console.error(`<fundraising-event>: ${error.message}`);
      this.#fail(error, { kind: "missing", names: options.missing });
      return;
    }
    if (options.invalid) {
      this.#fail(this.#sayInvalid(options.invalid), { kind: "invalid" });
      return;
    }

    this.#show({ kind: "loading" });
    // The first page's request at once, beside the package's download and compile.
    const handOver = early(options.baseUrl, () => pagesPath(options.appId, options.eventId, 1, firstPageSize(options.limit)), signal);
    try {
      const pkg = await elementsPackage("light");
      if (signal.aborted) return;
      handOver(pkg);
      const client = new pkg.FundraisingClient({ appId: options.appId, baseUrl: options.baseUrl });
      this.#shown = 0;
      // The first answer on show while the others load: its fundraisers ranked, the element busy.
      const first = (fetched) => {
        if (!signal.aborted) this.#show({ kind: "event", event: eventOf(options, fetched), pending: limitOf(options, fetched) });
      };
      const event = eventOf(options, await fetchPages(client, options.eventId, options.limit, signal, first));
      if (signal.aborted) return;
      this.#show({ kind: "event", event });
      this.dispatchEvent(new CustomEvent("fundraising-loaded", { detail: event, bubbles: true, composed: true }));
      this.shown();
    } catch (error) {
      if (signal.aborted || error?.code === "aborted") return;
      console.error(`<fundraising-event event-id="${options.eventId}">:`, error);
      const message = error?.message ?? String(error);
      this.#fail(error, error?.code === "not_found"
        ? { kind: "error", key: "not-found", values: { id: String(options.eventId) } }
        : { kind: "error", key: error?.code === "unsupported" ? "unsupported" : "load-failed", values: { message } });
    }
  }

  /**
   * A page-url or per-page change only re-renders the fundraisers on show; while the element
   * shows why its attributes are wrong, any change starts it again.
   */
  rendersOnly(name) {
    return super.rendersOnly(name) && this.#state.kind !== "invalid" && this.#state.kind !== "missing";
  }

  /** What `fundraising-view` says: the event's figures (nothing while loading or failed). */
  viewDetail() {
    const event = this.event;
    if (!event) return null;
    const { eventId, eventName, totalRaised, totalFundraisingPages, currencyCode } = event;
    return { eventId, eventName, totalRaised, totalFundraisingPages, currencyCode, ranked: event.fundraisers.length };
  }

  /** Renders what is on show again, in the current language, texts and render attributes. */
  refresh() {
    const words = new Words(this, EVENT_TEXTS);
    const state = this.#state;
    const options = readAttributes(this);
    if (state.kind === "missing" && options.missing) {
      this.renderError(words.text("missing-attributes", { names: options.missing.join(", ") }, options.missing.length));
    } else if (options.invalid && !options.missing) {
      // Also a render attribute (page-url, per-page) made wrong while the fundraisers load or after.
      this.#sayInvalid(options.invalid);
      this.renderError(words.text("invalid-attribute", { name: options.invalid.name, value: options.invalid.value ?? "" }));
    } else if (state.kind === "event") {
      this.#renderEvent(words, state.event, options, state.pending);
    } else if (state.kind === "error") {
      this.renderError(words.text(state.key, state.values));
    } else {
      this.renderLoading(words.text("loading"));
    }
  }

  /** Says a bad attribute on the console (once for the same one); returns its Error. */
  #sayInvalid({ name, value, reason }) {
    const error = failure("invalid_attribute", `the ${name} attribute must be ${reason}; it is ${JSON.stringify(value)}`);
    const said = `${name}=${value}`;
    if (this.#said !== said) {
      this.#said = said;
      console.error(`<fundraising-event>: ${error.message}`);
    }
    return error;
  }

  #show(state) {
    this.#state = state;
    this.render();
  }

  #fail(error, state) {
    this.#show(state);
    this.dispatchEvent(new CustomEvent("fundraising-error", { detail: error, bubbles: true, composed: true }));
  }

  #frame(content) {
    this.#root.replaceChildren(content);
  }

  /**
   * The event: its figures, then the ranked list. While more answers are on their way
   * (`pending`: how many fundraisers the whole ranking will hold), the list is the ranking so far
   * with a status saying so, the element busy, and no note or Show more yet.
   */
  #renderEvent(words, event, options, pending) {
    if (pending) this.setAttribute("aria-busy", "true");
    else this.removeAttribute("aria-busy");
    if (event.fundraisers.length === 0) {
      this.#frame(el("div", { class: "state", part: "empty" }, words.text("empty")));
      return;
    }
    const money = (amount, page = event) => words.money(amount, page.currencyCode ?? event.currencyCode, page.currencySymbol ?? event.currencySymbol);
    const title = event.eventName || words.text("heading");
    const card = el("section", { class: "card", part: "card", "aria-labelledby": "event-title" });
    card.append(el("h2", { id: "event-title", part: "title" }, title));

    const figures = el("p", { class: "figures", part: "figures" });
    const total = el("span", {});
    total.append(...words.nodes("total", { raised: el("span", { class: "raised", part: "raised", "data-field": "total-raised" }, money(event.totalRaised)) }));
    figures.append(total, el("span", { class: "muted", part: "pages", "data-field": "pages" },
      words.text("pages", { count: words.number(event.totalFundraisingPages) }, event.totalFundraisingPages)));
    card.append(figures);
    if (pending) {
      card.append(el("p", { class: "note", role: "status", part: "ranking", "data-field": "ranking" },
        words.text("ranking", { count: words.number(event.fundraisers.length), total: words.number(pending) })));
    } else if (event.limited) {
      const count = event.fundraisers.length;
      card.append(el("p", { class: "note", part: "note", "data-field": "first" },
        words.text("first", { count: words.number(count), total: words.number(event.totalFundraisingPages) }, count)));
    }

    const list = el("ol", { id: "fundraisers", part: "list", "aria-label": words.text("list") });
    this.#shown = Math.min(event.fundraisers.length, Math.max(this.#shown, options.perPage));
    const item = (entry, index) => this.#fundraiser(words, entry, index, options, money);
    list.append(...event.fundraisers.slice(0, this.#shown).map(item));
    card.append(list);

    if (!pending && event.fundraisers.length > options.perPage) {
      const more = el("div", { class: "more" });
      const showing = el("p", { role: "status", part: "shown", "data-field": "showing" });
      const button = el("button", { type: "button", part: "more", "aria-controls": "fundraisers" }, words.text("show-more"));
      const update = () => {
        showing.textContent = words.text("showing", { shown: words.number(this.#shown), count: words.number(event.fundraisers.length) });
        button.hidden = this.#shown >= event.fundraisers.length;
      };
      button.addEventListener("click", () => {
        const from = this.#shown;
        this.#shown = Math.min(event.fundraisers.length, from + options.perPage);
        const added = event.fundraisers.slice(from, this.#shown).map((entry, offset) => item(entry, from + offset));
        list.append(...added);
        update();
        // The first fundraiser shown now takes the focus (the button may have gone).
        const first = added[0];
        (first?.querySelector("a") ?? first)?.focus();
      });
      update();
      more.append(showing, button);
      card.append(more);
    }
    this.#frame(card);
  }

  /** One fundraiser of the list: its rank, image, title (linked), owner, and progress. */
  #fundraiser(words, { rank: position, page }, index, options, money) {
    const li = el("li", { part: "fundraiser", value: String(position), tabindex: "-1", "data-page-id": String(page.pageId) });
    const row = el("div", { class: "row" });
    const image = options.images ? imageOf(page) : null;
    if (image) {
      const img = el("img", { part: "fundraiser-image", src: image, alt: "", loading: "lazy", decoding: "async", referrerpolicy: "no-referrer" });
      img.addEventListener("error", () => img.remove());
      row.append(img);
    }
    const body = el("div", {});
    const titleId = `fundraiser-${index}`;
    const titleText = page.pageTitle || page.pageShortName || String(page.pageId);
    let name;
    if (options.pageUrl) {
      const href = pageUrl(options.pageUrl, page);
      name = el("a", { class: "name", part: "fundraiser-title", id: titleId, href: href.href }, titleText);
    } else {
      name = el("span", { class: "name", part: "fundraiser-title", id: titleId }, titleText);
    }
    body.append(name);
    if (typeof page.pageOwner === "string" && page.pageOwner.trim() !== "") {
      body.append(el("p", { class: "owner", part: "fundraiser-owner", "data-field": "owner" }, words.text("owner", { owner: page.pageOwner })));
    }
    const raised = page.raisedAmount;
    const target = page.targetAmount;
    const share = target > 0 ? raised / target : raised > 0 ? 1 : 0;
    const raisedText = money(raised, page);
    const targetText = money(target, page);
    const percentText = words.percent(share);
    const bar = el("div", {
      class: "bar",
      role: "progressbar",
      "aria-labelledby": titleId,
      "aria-valuemin": "0",
      "aria-valuemax": String(target > 0 ? target : raised),
      "aria-valuenow": String(target > 0 ? Math.min(raised, target) : raised),
      "aria-valuetext": target > 0
        ? words.text("progress", { raised: raisedText, target: targetText, percent: percentText })
        : words.text("raised-only", { raised: raisedText }),
      part: "fundraiser-progress",
    });
    const fill = el("div", { class: "fill", part: "fundraiser-progress-fill" });
    fill.style.width = `${(Math.min(1, share) * 100).toFixed(2)}%`;
    bar.append(fill);
    const amounts = el("p", { class: "amounts", part: "fundraiser-figures" });
    const raisedNode = el("span", { class: "raised", part: "fundraiser-raised", "data-field": "raised" }, raisedText);
    amounts.append(...(target > 0
      ? words.nodes("raised", { raised: raisedNode, target: el("span", { part: "fundraiser-target", "data-field": "target" }, targetText), percent: percentText })
      : words.nodes("raised-only", { raised: raisedNode })));
    body.append(bar, amounts);
    row.append(body);
    li.append(row);
    return li;
  }
}

if (!customElements.get("fundraising-event")) {
  customElements.define("fundraising-event", FundraisingEventElement);
}
