// <fundraising-donation>: thanks a donor coming back from the donation site. The donor returns
// to the partner's page with the donation's third-party reference (for example in
// `?donation=…`); the service answers 404 for a while, then `Pending`, then a final status. The
// element waits for it (client.waitForDonation) and says where things stand.
//
//   <script type="module" src="https://partner-companion.example/donation-return.js"></script>
//   <fundraising-donation reference-param="donation" app-id="demo-app"
//                         base-url="https://api.example"></fundraising-donation>
//
// Same conventions as <fundraising-campaign> (widget.js): a shadow root, a constructed style
// sheet (no inline style or script, so a strict Content-Security-Policy is fine), the package
// loaded from pkg/ next to this file (once per page, shared with widget.js).
//
// Attributes: app-id, base-url, and either reference (the reference itself) or reference-param
// (the name of the query-string parameter of the page's address that holds it); reference wins
// when both are set. timeout-ms (optional) bounds the wait (the package's default otherwise).
// Changing an attribute starts over; removing the element from the page aborts the wait.
//
// One status region (role="status", aria-live="polite", part="status", data-state on it) shows:
//   idle           reference-param is set but the page's address has no such parameter: nothing
//   waiting        the donation is not known yet (404) or is Pending
//   confirmed      Accepted: the amount (Intl.NumberFormat, the donation's currency) and the
//                  donor's message when the service shows it
//   not-completed  Rejected, Cancelled or Refunded
//   error          the wait timed out, a missing attribute, or any other failure
// Events (bubbling, composed): fundraising-donation-settled (detail: the Donation, on a final
// status) and fundraising-error (detail: the FundraisingError, or an Error for a missing
// attribute).

import { AttributeDrivenElement, el, formatMoney, loadPackage, unsupportedError } from "./widget.js";

const STYLE = `
  :host { display: block; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: #1d2430; max-width: 32rem; }
  :host([hidden]) { display: none; }
  .status[data-state="idle"] { display: none; }
  .box { border: 1px solid #d7dce3; border-radius: 12px; padding: 1rem 1.25rem; background: #fff;
         overflow-wrap: anywhere; }
  .box.waiting { border-style: dashed; border-color: #c5ccd6; color: #4a5565; }
  .box.confirmed { border-color: #9fd3bd; background: #f2fbf6; }
  .box.not-completed { border-color: #e0c48a; background: #fffaf0; color: #5c4300; }
  .box.error { border-color: #e3a3a3; background: #fff5f5; color: #8a1c1c; }
  p { margin: .35rem 0 0; line-height: 1.45; }
  .box > :first-child { margin-top: 0; }
  .title { font-size: 1.15rem; font-weight: 700; margin: 0 0 .35rem; line-height: 1.3; }
  .amount { font-weight: 700; color: #0b6b4a; }
  blockquote { margin: .75rem 0 0; padding: .5rem .85rem; border-left: 3px solid #2bb673;
               background: #fff; font-style: italic; }
  .reference { font-size: .85rem; color: #4a5565; }
  .spinner { display: inline-block; width: .9em; height: .9em; margin-right: .5em; vertical-align: -.1em;
             border: 2px solid #c5ccd6; border-top-color: #0f8a5f; border-radius: 50%;
             animation: spin .8s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
  @media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
`;

/** What the donor reads for each status that is final but not a success. */
const NOT_COMPLETED = {
  Rejected: "The payment was declined, so no money was taken.",
  Cancelled: "The donation was cancelled, so no money was taken.",
  Refunded: "The donation was refunded.",
};

let sheet;

/** The element's styles, one constructed sheet adopted by every element's shadow root. */
function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
  }
  return sheet;
}

/** The custom element; observed attributes: app-id, base-url, reference, reference-param, timeout-ms. */
export class FundraisingDonationElement extends AttributeDrivenElement {
  static observedAttributes = ["app-id", "base-url", "reference", "reference-param", "timeout-ms"];

  #status;
  #unsupported = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    try {
      root.adoptedStyleSheets = [styleSheet()];
    } catch (error) {
      // An old browser: the error state (unstyled) rather than an element that never renders.
      this.#unsupported = unsupportedError(error);
    }
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
      this.#fail(this.#unsupported, "This browser cannot show your donation", `${this.#unsupported.message}.`);
      return;
    }

    const appId = this.getAttribute("app-id");
    const baseUrl = this.getAttribute("base-url");
    const hasReferenceAttribute = this.hasAttribute("reference") || this.hasAttribute("reference-param");
    const missing = [["app-id", appId], ["base-url", baseUrl]].filter(([, value]) => !value).map(([name]) => name);
    if (!hasReferenceAttribute) missing.push("reference (or reference-param)");
    if (missing.length > 0) {
      this.#fail(new Error(`Missing attribute${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}.`),
        "This donation cannot be shown", `Missing attribute${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}.`);
      return;
    }
    const reference = this.reference;
    if (!reference) {
      // reference-param names a parameter the address does not have: no donor is coming back.
      this.removeAttribute("aria-busy");
      this.#show("idle");
      return;
    }

    this.#renderWaiting(null, reference);
    try {
      const { FundraisingClient } = await loadPackage();
      if (signal.aborted) return;
      const client = new FundraisingClient({ appId, baseUrl });
      const options = {
        signal,
        onStatus: (status) => {
          if (!signal.aborted && status === "Pending") this.#renderWaiting(status, reference);
        },
      };
      const timeout = this.getAttribute("timeout-ms");
      if (timeout !== null && timeout !== "") options.timeoutMs = Number(timeout);
      const donation = await client.waitForDonation(reference, options);
      if (signal.aborted) return;
      if (donation.status === "Accepted") this.#renderConfirmed(donation);
      else this.#renderNotCompleted(donation);
      this.dispatchEvent(new CustomEvent("fundraising-donation-settled", { detail: donation, bubbles: true, composed: true }));
    } catch (error) {
      if (signal.aborted || error?.code === "aborted") return;
      if (error?.code === "timeout") {
        this.#fail(error, "Your donation is not confirmed yet",
          "It can take a few minutes for a donation to be confirmed. Please check back later; nothing more is needed from you.",
          reference);
      } else if (error?.code === "unsupported") {
        this.#fail(error, "This browser cannot show your donation", `${error.message}.`, reference);
      } else {
        console.error(`<fundraising-donation reference="${reference}">:`, error);
        this.#fail(error, "Your donation could not be checked", `${error?.message ?? error}`, reference);
      }
    }
  }

  /** Puts new content in the status region and records the state. */
  #show(state, ...content) {
    this.#status.dataset.state = state;
    this.#status.replaceChildren(...content);
  }

  #referenceLine(reference) {
    return el("p", { class: "reference", part: "reference" }, `Reference: ${reference}`);
  }

  #renderWaiting(status, reference) {
    const box = el("div", { class: "box waiting", part: "waiting" });
    const line = el("p", { "data-field": "waiting" });
    line.append(el("span", { class: "spinner", "aria-hidden": "true" }),
      status === "Pending" ? "Your donation is being processed…" : "Waiting for your donation to be confirmed…");
    box.append(line, this.#referenceLine(reference));
    this.setAttribute("aria-busy", "true");
    this.#show("waiting", box);
  }

  #renderConfirmed(donation) {
    const box = el("div", { class: "box confirmed", part: "confirmed" });
    const name = donation.donorDisplayName;
    box.append(el("p", { class: "title", part: "title" }, name ? `Thank you, ${name}!` : "Thank you!"));
    const line = el("p", {});
    line.append("Your donation of ",
      el("span", { class: "amount", "data-field": "amount" }, formatMoney(donation.amount, donation.currencyCode)),
      " is confirmed.");
    box.append(line);
    if (typeof donation.message === "string" && donation.message.trim() !== "") {
      box.append(el("blockquote", { "data-field": "message", part: "message" }, donation.message));
    }
    this.removeAttribute("aria-busy");
    this.#show("confirmed", box);
  }

  #renderNotCompleted(donation) {
    const box = el("div", { class: "box not-completed", part: "not-completed" });
    box.append(el("p", { class: "title", part: "title" }, "Your donation was not completed"),
      el("p", { "data-field": "reason", "data-status": donation.status },
        NOT_COMPLETED[donation.status] ?? `Its status is ${donation.status}.`),
      this.#referenceLine(donation.thirdPartyReference ?? this.reference));
    this.removeAttribute("aria-busy");
    this.#show("not-completed", box);
  }

  #fail(error, title, text, reference) {
    const box = el("div", { class: "box error", part: "error", "data-code": error?.code ?? "missing_attribute" });
    box.append(el("p", { class: "title", part: "title" }, title), el("p", { "data-field": "error" }, text));
    if (reference) box.append(this.#referenceLine(reference));
    this.removeAttribute("aria-busy");
    this.#show("error", box);
    this.dispatchEvent(new CustomEvent("fundraising-error", { detail: error, bubbles: true, composed: true }));
  }
}

if (!customElements.get("fundraising-donation")) {
  customElements.define("fundraising-donation", FundraisingDonationElement);
}
