// donate.html: the sandbox's donation page, standing in for the service's donation site in the
// demo. A campaign card's Donate link (donate-url) sends the donor here with
// `?reference=<fresh reference>&return=<where to go back to>`. Giving stages a donation with that
// reference through the sandbox's test-only route (POST {base_url}/_sandbox/staged-donations, on
// in `make demo` and the test runs), then sends the donor back to `return`, as the donation site
// would send them back to the partner's page.
import { loadConfig } from "./config.js";
import { describeError, el } from "./format.js";

/** The staged donation's timing: unknown for 1 s, then Pending, final 4 s after it was made. */
export const TIMING = { appears_after_secs: 1, final_after_secs: 4 };

/** The `return` address, when it is a web address (never `javascript:` or the like). */
function returnAddress(params) {
  try {
    const url = new URL(params.get("return") ?? "", location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

async function main() {
  const config = await loadConfig();
  const params = new URLSearchParams(location.search);
  const reference = params.get("reference");
  const back = returnAddress(params);
  const form = document.getElementById("donate-form");
  const submit = form.querySelector("button[type=submit]");
  const error = document.getElementById("donate-error");
  const fail = (text) => {
    error.replaceChildren(el("span", {}, text));
    error.hidden = false;
  };
  document.getElementById("donate-reference").textContent = reference ?? "—";
  if (!reference || !back) {
    submit.disabled = true;
    fail("This page needs a reference and a return address (?reference=…&return=…): open it from a campaign card's Donate link.");
    return;
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.hidden = true;
    submit.disabled = true;
    const fields = form.elements;
    try {
      const response = await fetch(new URL("_sandbox/staged-donations", `${config.baseUrl}/`), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          ...TIMING,
          reference,
          final_status: fields.outcome.value,
          amount: fields.amount.value,
          currency_code: "GBP",
          donor_display_name: fields.name.value.trim(),
          message: fields.message.value.trim() || null,
          share_message: true,
        }),
      });
      if (!response.ok) {
        const body = await response.json().catch(() => null);
        throw new Error(`${body?.errorMessage ?? response.statusText} (HTTP ${response.status})`);
      }
      location.assign(back.href);
    } catch (failure) {
      fail(`The donation could not be made: ${describeError(failure)}`);
      submit.disabled = false;
    }
  });
  document.body.dataset.ready = "true";
}

main();
