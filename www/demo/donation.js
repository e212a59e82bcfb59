// Donation lookup by third-party reference.
import { describeError, el, formatDate, formatMoney } from "./format.js";

/** Wires the donation form; a lookup on show is repeated when the user signs in or out. */
export function setupDonationLookup(client) {
  const form = document.getElementById("donation-form");
  const input = document.getElementById("donation-ref");
  const result = document.getElementById("donation-result");
  let shown = null; // reference of the donation on show
  let controller = null;

  const lookUp = async (reference) => {
    controller?.abort();
    controller = new AbortController();
    const { signal } = controller;
    result.replaceChildren(el("p", { class: "muted", role: "status" }, "Looking up…"));
    try {
      const donation = await client.getDonationByReference(reference, { signal });
      shown = reference;
      result.replaceChildren(renderDonation(donation, Boolean(client.session)));
    } catch (error) {
      if (error?.code === "aborted") return;
      shown = null;
      const text = error?.code === "not_found"
        ? `No donation has the reference “${reference}”. ${error.message ?? ""}`.trim()
        : describeError(error);
      result.replaceChildren(el("p", { class: "error", role: "alert" }, text));
    }
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    lookUp(input.value.trim());
  });
  document.addEventListener("session-change", () => {
    if (shown !== null) lookUp(shown);
  });
}

function renderDonation(donation, signedIn) {
  const list = el("dl", { class: "facts", id: "donation-facts" });
  const row = (label, value, field) => {
    if (value === null || value === undefined || value === "") return;
    list.append(el("dt", {}, label), el("dd", { "data-field": field }, value));
  };
  row("Amount", formatMoney(donation.amount, donation.currencyCode), "amount");
  if (donation.donorLocalCurrencyCode && donation.donorLocalCurrencyCode !== donation.currencyCode) {
    row("Donor's amount", formatMoney(donation.donorLocalAmount, donation.donorLocalCurrencyCode), "donorLocalAmount");
  }
  row("Status", donation.status, "status");
  row("Source", donation.source, "source");
  row("Date", formatDate(donation.donationDate), "donationDate");
  row("Donor", donation.donorDisplayName, "donorDisplayName");
  row("Donor's real name", donation.donorRealName, "donorRealName");
  row("Message", donation.message, "message");
  row("Estimated tax reclaim", donation.estimatedTaxReclaim === null ? null : formatMoney(donation.estimatedTaxReclaim, donation.currencyCode), "estimatedTaxReclaim");
  row("Donation id", donation.id, "id");
  row("Receipt reference", donation.donationRef, "donationRef");
  row("Third-party reference", donation.thirdPartyReference, "thirdPartyReference");

  const wrapper = el("div", { class: "donation" });
  if (donation.hasImage && donation.image) {
    const image = el("img", { src: donation.image, alt: "Image the donor chose", class: "donor-image" });
    image.addEventListener("error", () => image.remove(), { once: true });
    wrapper.append(image);
  }
  wrapper.append(list);
  if (donation.message === null || donation.message === undefined) {
    wrapper.append(el("p", { class: "muted note", "data-field": "message-hidden" }, signedIn
      ? "The donor's message is not shared, and you do not own the page it was given to."
      : "No message shown: the service shares it only when the donor allows it or with the page's owner. Sign in as the owner to see it."));
  }
  return wrapper;
}
