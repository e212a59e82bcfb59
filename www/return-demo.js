// The demo's donation return panel: a <fundraising-donation> element that reads the reference
// from `?donation=…`, and a "Make a test donation" form that plays the donation site. It stages
// a donation with a fresh reference through the sandbox's test-only route
// (POST {base_url}/_sandbox/staged-donations, on in `make demo` and the test runs), then comes
// back to this page with `?donation=<reference>`, as a donor returning from the donation site.
import "./donation-return.js";
import { describeError, el } from "./format.js";

/** The staged donation: unknown for 1 s, then Pending, final 4 s after it was made. */
export const TEST_DONATION = {
  appears_after_secs: 1,
  final_after_secs: 4,
  amount: "12.50",
  currency_code: "GBP",
  donor_display_name: "Kim",
  message: "Well done!",
  share_message: true,
};

/** The query-string parameter the donor comes back with. */
export const REFERENCE_PARAM = "donation";

/** Adds the element to the panel and wires the form. */
export function setupDonationReturn(config) {
  const element = document.createElement("fundraising-donation");
  element.id = "donation-return";
  element.setAttribute("app-id", config.appId);
  element.setAttribute("base-url", config.baseUrl);
  element.setAttribute("reference-param", REFERENCE_PARAM);
  document.getElementById("return-slot").replaceChildren(element);

  const form = document.getElementById("return-form");
  const submit = form.querySelector("button[type=submit]");
  const error = document.getElementById("return-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.hidden = true;
    submit.disabled = true;
    const reference = `demo-return-${crypto.randomUUID()}`;
    try {
      const response = await fetch(new URL("_sandbox/staged-donations", `${config.baseUrl}/`), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...TEST_DONATION, reference, final_status: form.elements.outcome.value }),
      });
      if (!response.ok) {
        const body = await response.json().catch(() => null);
        throw new Error(`${body?.errorMessage ?? response.statusText} (HTTP ${response.status})`);
      }
      const back = new URL(location.href);
      back.searchParams.set(REFERENCE_PARAM, reference);
      location.assign(back.href);
    } catch (failure) {
      error.replaceChildren(el("span", {}, `The test donation could not be made: ${describeError(failure)}`));
      error.hidden = false;
      submit.disabled = false;
    }
  });
}
