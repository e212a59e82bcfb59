// Display helpers of the demo page: dates, amounts, elements and error messages.

/** The .NET minimum date the service uses for "no date" (0001-01-01), in milliseconds. */
const NO_DATE_MILLIS = -62135596800000;

/** Formats a Date as a short local date, or an em dash when absent or the service's "no date". */
export function formatDate(date) {
  if (!(date instanceof Date) || Number.isNaN(date.getTime()) || date.getTime() <= NO_DATE_MILLIS) return "—";
  return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" }).format(date);
}

/** Formats an amount in a currency (the page's locale); symbol + number when the code is unknown or absent. */
export function formatMoney(amount, currencyCode, currencySymbol) {
  if (amount === null || amount === undefined || Number.isNaN(Number(amount))) return "—";
  const value = Number(amount);
  if (currencyCode) {
    try {
      return new Intl.NumberFormat(undefined, { style: "currency", currency: currencyCode }).format(value);
    } catch {
      // An unknown currency code: the symbol below.
    }
  }
  return `${currencySymbol ?? ""}${new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value)}`;
}

/** Creates an element with attributes and optional text content (never parsed as HTML). */
export function el(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** A readable message for a FundraisingError (or anything thrown). */
export function describeError(error) {
  const message = error?.message ?? String(error);
  return error?.status ? `${message} (HTTP ${error.status})` : message;
}
