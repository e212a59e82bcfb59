// Display helpers of the demo page (amounts and elements come from widget.js).

/** The .NET minimum date the service uses for "no date" (0001-01-01), in milliseconds. */
const NO_DATE_MILLIS = -62135596800000;

/** Formats a Date as a short local date, or an em dash when absent or the service's "no date". */
export function formatDate(date) {
  if (!(date instanceof Date) || Number.isNaN(date.getTime()) || date.getTime() <= NO_DATE_MILLIS) return "—";
  return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" }).format(date);
}

export { el } from "./widget.js";

/** A readable message for a FundraisingError (or anything thrown). */
export function describeError(error) {
  const message = error?.message ?? String(error);
  return error?.status ? `${message} (HTTP ${error.status})` : message;
}
