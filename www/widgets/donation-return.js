// <fundraising-donation>: thanks a donor coming back from the donation site. The donor returns
// to the partner's page with the donation's third-party reference (for example in
// `?donation=…`); the service answers 404 for a while, then `Pending`, then a final status. The
// element waits for it (client.waitForDonation) and says where things stand.
//
//   <script type="module" src="https://partner-companion.example/donation-return.js"></script>
//   <fundraising-donation reference-param="donation" app-id="demo-app"
//                         base-url="https://api.example"></fundraising-donation>
//
// Same conventions as <fundraising-campaign> (widget.js): a shadow root, constructed style
// sheets (no inline style or script, so a strict Content-Security-Policy is fine), the same
// theme (--fundraising-* custom properties, ::part(), dark scheme), the page's language
// (English and Welsh built in, every text replaceable with a `text-*` attribute), and the widgets
// build of the package loaded only when the element comes near the viewport (once per page,
// shared with widget.js).
//
// Attributes: app-id, base-url, and either reference (the reference itself) or reference-param
// (the name of the query-string parameter of the page's address that holds it); reference wins
// when both are set. timeout-ms (optional) bounds the wait (the package's default otherwise).
// loading="eager", lang, theme and text-* as for <fundraising-campaign>.
// Changing an attribute starts over; removing the element from the page aborts the wait.
//
// One status region (role="status", aria-live="polite", part="status", data-state on it) shows:
//   idle           reference-param is set but the page's address has no such parameter: nothing
//   waiting        the donation is not known yet (404) or is Pending
//   confirmed      Accepted: the amount (Intl.NumberFormat, the donation's currency) and the
//                  donor's message when the service shows it
//   not-completed  Rejected, Cancelled or Refunded
//   error          the wait timed out, a missing attribute, or any other failure
// Events (bubbling, composed): fundraising-donation-settled (on a final status; detail:
// {status, amount, currency, reference, donation}: the final status, the amount as a number in
// the donation's currency, and the Donation), fundraising-view (detail: {reference, state}, once,
// when the element is first at least half in view with something on show) and fundraising-error
// (detail: the FundraisingError, or an Error for a missing attribute).

import { AttributeDrivenElement, el, elementsPackage, missingAttributes } from "./widget-element.js";
import { DONATION_TEXTS, textAttributes, Words } from "./widget-text.js";
import { DONATION_PALETTES, themeProperties } from "./widget-theme.js";

const STYLE = `${themeProperties(DONATION_PALETTES)}
  .status[data-state="idle"] { display: none; }
  .box { border: 1px solid var(--_border); border-radius: var(--_radius); padding: calc(var(--_spacing) * .8) var(--_spacing);
         background: var(--_background); overflow-wrap: anywhere; }
  .box.waiting { border-style: dashed; color: var(--_muted); }
  .box.confirmed { border-color: var(--_success-border); background: var(--_success-background); }
  .box.not-completed { border-color: var(--_warning-border); background: var(--_warning-background); color: var(--_warning-text); }
  .box.error { border-color: var(--_error-border); background: var(--_error-background); color: var(--_error-text); }
  p { margin: .35rem 0 0; line-height: 1.45; }
  .box > :first-child { margin-top: 0; }
  .title { font-size: 1.15rem; font-weight: 700; margin: 0 0 .35rem; line-height: 1.3; }
  .amount { font-weight: 700; color: var(--_accent); }
  blockquote { margin: .75rem 0 0; padding: .5rem .85rem; border-left: 3px solid var(--_accent);
               background: var(--_background); font-style: italic; }
  .reference { font-size: .85rem; color: var(--_muted); }
  .box.not-completed .reference, .box.error .reference { color: inherit; }
`;

/** The text key of each final status that is not a success. */
const NOT_COMPLETED = { Rejected: "rejected", Cancelled: "cancelled", Refunded: "refunded" };

/**
 * The custom element; observed attributes: app-id, base-url, reference, reference-param,
 * timeout-ms, loading, lang, theme, text-*.
 */
export class FundraisingDonationElement extends AttributeDrivenElement {
  static observedAttributes = ["app-id", "base-url", "reference", "reference-param", "timeout-ms",
    ...AttributeDrivenElement.commonAttributes, ...textAttributes(DONATION_TEXTS)];

  #status;
  /** What is on show, re-rendered on a change of language or texts. */
  #view = { state: "idle" };
  #unsupported = null;

  constructor() {
    super();
    const { root, unsupported } = this.attachStyledShadow(STYLE);
    this.#unsupported = unsupported;
    // One live region for the element's whole life: screen readers announce changes inside a
    // region that already exists, not a region that is replaced.
    this.#status = el("div", { class: "status", role: "status", "aria-live": "polite", part: "status", "data-state": "idle" });
    root.append(this.#status);
  }

  /** The state on show: idle, waiting, confirmed, not-completed or error. */
  get state() {
    return this.#status.dataset.state;
  }

  /** The reference the element waits for: `reference`, else the page's `reference-param` parameter. */
  get reference() {
    const direct = this.getAttribute("reference");
    if (direct) return direct;
    const param = this.getAttribute("reference-param");
    return param ? new URLSearchParams(location.search).get(param) || null : null;
  }

  /** Waits for the donation of the attributes (aborted by `signal`). */
  async run(signal) {
    if (this.#unsupported) {
      this.#fail(this.#unsupported, { state: "error", code: "unsupported", title: "unsupported-title", key: "failed",
        values: { message: `${this.#unsupported.message}.` } });
      return;
    }
    const appId = this.getAttribute("app-id");
    const baseUrl = this.getAttribute("base-url");
    const missing = missingAttributes(this, ["app-id", "base-url"]);
    if (!this.hasAttribute("reference") && !this.hasAttribute("reference-param")) missing.push("reference (or reference-param)");
    if (missing.length > 0) {
      const error = new Error(`Missing attribute${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}.`);
      this.#fail(error, { state: "error", code: "missing_attribute", title: "missing-title", key: "missing-attributes",
        values: { names: missing.join(", ") }, count: missing.length });
      return;
    }
    const reference = this.reference;
    if (!reference) {
      // reference-param names a parameter the address does not have: no donor is coming back.
      this.#show({ state: "idle" });
      return;
    }

    this.#show({ state: "waiting", status: null, reference });
    try {
      const { FundraisingClient } = await elementsPackage("widgets");
      if (signal.aborted) return;
      const client = new FundraisingClient({ appId, baseUrl });
      const options = {
        signal,
        onStatus: (status) => {
          if (!signal.aborted && status === "Pending") this.#show({ state: "waiting", status, reference });
        },
      };
      const timeout = this.getAttribute("timeout-ms");
      if (timeout !== null && timeout !== "") options.timeoutMs = Number(timeout);
      const donation = await client.waitForDonation(reference, options);
      if (signal.aborted) return;
      this.#show({ state: donation.status === "Accepted" ? "confirmed" : "not-completed", donation });
      const amount = Number(donation.amount);
      this.dispatchEvent(new CustomEvent("fundraising-donation-settled", {
        detail: {
          status: donation.status,
          amount: Number.isFinite(amount) ? amount : null,
          currency: donation.currencyCode ?? null,
          reference: donation.thirdPartyReference ?? reference,
          donation,
        },
        bubbles: true,
        composed: true,
      }));
    } catch (error) {
      if (signal.aborted || error?.code === "aborted") return;
      if (error?.code === "timeout") {
        this.#fail(error, { state: "error", code: "timeout", title: "timeout-title", key: "timeout", reference });
      } else if (error?.code === "unsupported") {
        this.#fail(error, { state: "error", code: "unsupported", title: "unsupported-title", key: "failed",
          values: { message: `${error.message}.` }, reference });
      } else {
        console.error(`<fundraising-donation reference="${reference}">:`, error);
        this.#fail(error, { state: "error", code: error?.code, title: "failed-title", key: "failed",
          values: { message: `${error?.message ?? error}` }, reference });
      }
    }
  }

  /** Puts what is on show in the status region again, in the current language and texts. */
  refresh() {
    const words = new Words(this, DONATION_TEXTS);
    const view = this.#view;
    const busy = view.state === "waiting";
    if (busy) this.setAttribute("aria-busy", "true");
    else this.removeAttribute("aria-busy");
    this.#status.dataset.state = view.state;
    if (view.state === "waiting") this.#status.replaceChildren(this.#waiting(words, view));
    else if (view.state === "confirmed") this.#status.replaceChildren(this.#confirmed(words, view.donation));
    else if (view.state === "not-completed") this.#status.replaceChildren(this.#notCompleted(words, view.donation));
    else if (view.state === "error") this.#status.replaceChildren(this.#error(words, view));
    else this.#status.replaceChildren();
  }

  #show(view) {
    this.#view = view;
    this.render();
    this.shown();
  }

  /** What `fundraising-view` says: the reference and the state on show (nothing while idle). */
  viewDetail() {
    const { state } = this.#view;
    if (state === "idle") return null;
    return { reference: this.#view.reference ?? this.#view.donation?.thirdPartyReference ?? this.reference, state };
  }

  #referenceLine(words, reference) {
    return el("p", { class: "reference", part: "reference" }, words.text("reference", { reference }));
  }

  #waiting(words, { status, reference }) {
    const box = el("div", { class: "box waiting", part: "waiting" });
    const line = el("p", { "data-field": "waiting" });
    line.append(el("span", { class: "spinner", "aria-hidden": "true" }), words.text(status === "Pending" ? "pending" : "waiting"));
    box.append(line, this.#referenceLine(words, reference));
    return box;
  }

  #confirmed(words, donation) {
    const box = el("div", { class: "box confirmed", part: "confirmed" });
    const name = donation.donorDisplayName;
    box.append(el("p", { class: "title", part: "title" }, name ? words.text("thanks-name", { name }) : words.text("thanks")));
    const line = el("p", {});
    line.append(...words.nodes("confirmed", {
      amount: el("span", { class: "amount", part: "amount", "data-field": "amount" }, words.money(donation.amount, donation.currencyCode)),
    }));
    box.append(line);
    if (typeof donation.message === "string" && donation.message.trim() !== "") {
      box.append(el("blockquote", { "data-field": "message", part: "message" }, donation.message));
    }
    return box;
  }

  #notCompleted(words, donation) {
    const box = el("div", { class: "box not-completed", part: "not-completed" });
    const key = NOT_COMPLETED[donation.status];
    box.append(el("p", { class: "title", part: "title" }, words.text("not-completed")),
      el("p", { part: "reason", "data-field": "reason", "data-status": donation.status },
        key ? words.text(key) : words.text("other-status", { status: donation.status })),
      this.#referenceLine(words, donation.thirdPartyReference ?? this.reference));
    return box;
  }

  #error(words, view) {
    const box = el("div", { class: "box error", part: "error", "data-code": view.code ?? "error" });
    box.append(el("p", { class: "title", part: "title" }, words.text(view.title)),
      el("p", { "data-field": "error" }, words.text(view.key, view.values, view.count)));
    if (view.reference) box.append(this.#referenceLine(words, view.reference));
    return box;
  }

  #fail(error, view) {
    this.#show(view);
    this.dispatchEvent(new CustomEvent("fundraising-error", { detail: error, bubbles: true, composed: true }));
  }
}

if (!customElements.get("fundraising-donation")) {
  customElements.define("fundraising-donation", FundraisingDonationElement);
}
