// Fundraising pages of an event: a paged table with previous/next and the totals.
import { describeError, el, formatDate, formatMoney } from "./format.js";

/** Wires the pages form, the pager and the table. */
export function setupEventPages(client) {
  const form = document.getElementById("pages-form");
  const eventInput = document.getElementById("pages-event-id");
  const sizeInput = document.getElementById("pages-size");
  const errorBox = document.getElementById("pages-error");
  const view = document.getElementById("pages-view");
  const summary = document.getElementById("pages-summary");
  const position = document.getElementById("pages-position");
  const prev = document.getElementById("pages-prev");
  const next = document.getElementById("pages-next");
  const body = document.querySelector("#pages-table tbody");
  const table = document.getElementById("pages-table");

  let query = null; // {eventId, pageSize}
  let page = 1;
  let totalPages = 0;
  let controller = null;

  const show = async (wanted) => {
    controller?.abort();
    controller = new AbortController();
    const { signal } = controller;
    errorBox.hidden = true;
    prev.disabled = true;
    next.disabled = true;
    table.setAttribute("aria-busy", "true");
    try {
      const result = await client.getEventPages(query.eventId, { page: wanted, pageSize: query.pageSize, signal });
      page = wanted;
      totalPages = result.totalPages ?? 0;
      render(result);
    } catch (error) {
      if (error?.code === "aborted") return;
      view.hidden = true;
      errorBox.textContent = error?.code === "not_found"
        ? `No event has the id ${query.eventId}. ${error.message ?? ""}`.trim()
        : describeError(error);
      errorBox.dataset.code = error?.code ?? "";
      errorBox.hidden = false;
    } finally {
      table.removeAttribute("aria-busy");
    }
  };

  const render = (result) => {
    const pages = result.fundraisingPages ?? [];
    const currency = pages.find((p) => p.currencyCode)?.currencyCode ?? null;
    const symbol = pages.find((p) => p.currencySymbol)?.currencySymbol ?? null;
    summary.replaceChildren(
      "Event ", el("strong", { "data-field": "event-id" }, result.eventId),
      ": ", el("strong", { "data-field": "total-pages-count" }, result.totalFundraisingPages),
      ` fundraising page${result.totalFundraisingPages === 1 ? "" : "s"} in all, `,
      el("strong", { "data-field": "total-raised" }, formatMoney(result.totalRaised, currency, symbol)), " raised.",
    );
    position.textContent = totalPages > 0 ? `Page ${page} of ${totalPages}` : "No pages";
    position.dataset.page = String(page);
    position.dataset.totalPages = String(totalPages);
    prev.disabled = page <= 1;
    next.disabled = page >= totalPages;
    body.replaceChildren(...pages.map((p) => {
      const row = el("tr", { "data-page-id": p.pageId });
      const memory = p.inMemoryPerson
        ? [p.inMemoryPerson.firstName, p.inMemoryPerson.lastName].filter(Boolean).join(" ")
        : "";
      row.append(
        el("td", {}, p.pageId),
        el("td", {}, p.pageTitle),
        el("td", {}, p.pageShortName),
        el("td", {}, p.pageStatus),
        el("td", { class: "num" }, formatMoney(p.raisedAmount, p.currencyCode, p.currencySymbol)),
        el("td", { class: "num" }, formatMoney(p.targetAmount, p.currencyCode, p.currencySymbol)),
        el("td", {}, formatDate(p.createdDate)),
        el("td", {}, memory),
      );
      return row;
    }));
    if (pages.length === 0) {
      body.replaceChildren(el("tr", {}, null));
      body.firstChild.append(el("td", { colspan: "8", class: "muted" }, "This event has no fundraising pages yet."));
    }
    view.hidden = false;
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const eventId = eventInput.value.trim() === "" ? NaN : Number(eventInput.value);
    const pageSize = sizeInput.value.trim() === "" ? 100 : Number(sizeInput.value);
    query = { eventId, pageSize };
    show(1);
  });
  prev.addEventListener("click", () => { if (query && page > 1) show(page - 1); });
  next.addEventListener("click", () => { if (query && page < totalPages) show(page + 1); });
  document.addEventListener("show-event-pages", (event) => {
    eventInput.value = String(event.detail);
    form.requestSubmit();
    view.scrollIntoView({ behavior: "smooth", block: "start" });
  });
  form.requestSubmit(); // show the default event (1001) straight away
}
