// Register an event; validation messages come from the package's invalid_argument errors.
import { describeError, el } from "./format.js";

const FIELDS = ["name", "description", "eventType", "startDate", "completionDate", "expiryDate", "location", "charityId"];
const DATE_FIELDS = new Set(["startDate", "completionDate", "expiryDate"]);

/** Reads the form into the package's Event shape; empty inputs are left out. */
export function eventFromForm(form) {
  const data = new FormData(form);
  const event = {};
  for (const field of FIELDS) {
    const raw = String(data.get(field) ?? "").trim();
    if (raw === "") continue;
    if (DATE_FIELDS.has(field)) event[field] = new Date(`${raw}T00:00:00Z`);
    else if (field === "charityId") event[field] = Number(raw);
    else event[field] = raw;
  }
  return event;
}

/** Wires the event form. */
export function setupEventForm(client) {
  const form = document.getElementById("event-form");
  const result = document.getElementById("event-result");
  const submit = form.querySelector("button[type=submit]");

  const markInvalid = (message) => {
    for (const field of FIELDS) {
      const input = form.elements.namedItem(field);
      const mentioned = new RegExp(`\\b${field}\\b`, "i").test(message ?? "");
      if (mentioned) {
        input.setAttribute("aria-invalid", "true");
        input.setAttribute("aria-describedby", "event-error");
      } else {
        input.removeAttribute("aria-invalid");
        input.removeAttribute("aria-describedby");
      }
    }
  };

  form.addEventListener("submit", async (submitEvent) => {
    submitEvent.preventDefault();
    submit.disabled = true;
    result.replaceChildren(el("p", { class: "muted", role: "status" }, "Registering…"));
    try {
      const created = await client.createEvent(eventFromForm(form));
      markInvalid("");
      const done = el("div", { class: "success", id: "event-created" });
      const line = el("p", {});
      line.append("Event registered with id ", el("strong", { "data-field": "event-id" }, created.id), ".");
      done.append(line);
      const uri = created.next?.uri;
      if (uri) {
        const address = el("p", {});
        address.append("Its address: ", el("a", { href: uri, "data-field": "event-uri", target: "_blank", rel: "noopener" }, uri));
        done.append(address);
      }
      const pagesLink = el("button", { type: "button", class: "link" }, "Show its fundraising pages");
      pagesLink.addEventListener("click", () => {
        document.dispatchEvent(new CustomEvent("show-event-pages", { detail: created.id }));
      });
      done.append(pagesLink);
      result.replaceChildren(done);
    } catch (error) {
      const invalid = error?.code === "invalid_argument";
      markInvalid(invalid ? error.message : "");
      const text = invalid ? `Please check the form: ${error.message}` : `The event was not registered: ${describeError(error)}`;
      result.replaceChildren(el("p", { class: "error", role: "alert", id: "event-error", "data-code": error?.code ?? "" }, text));
    } finally {
      submit.disabled = false;
    }
  });
}
