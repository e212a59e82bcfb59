/**
 * One HTTP request through the global `fetch` (windows, workers, Node 18+), bounded by
 * `timeoutMs` and the caller's `signal`. Resolves with `[status, body text, Retry-After or
 * null]`; rejects with 1 when `signal` fired, 2 on the timeout, else the failure's message.
 */
export async function sendRequest(method, url, body, bearer, companion, timeoutMs, signal) {
  if (signal && signal.aborted) throw 1;
  const controller = new AbortController();
  const abort = () => controller.abort();
  const timeout = {};
  const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
  if (signal) signal.addEventListener("abort", abort);
  const headers = { Accept: "application/json" };
  const init = { method, headers, signal: controller.signal };
  if (body != null) {
    headers["Content-Type"] = "application/json";
    init.body = body;
  }
  if (bearer != null) headers.Authorization = "Bearer " + bearer;
  if (companion) {
    headers["X-Fundraising-Client"] = "1";
    init.credentials = "include";
  }
  try {
    const response = await fetch(url, init);
    return [response.status, await response.text(), response.headers.get("Retry-After")];
  } catch (e) {
    if (signal && signal.aborted) throw 1;
    if (controller.signal.reason === timeout) throw 2;
    throw String((e && e.message) || e || "unknown JavaScript error");
  } finally {
    clearTimeout(timer);
    if (signal) signal.removeEventListener("abort", abort);
  }
}

/**
 * The retry backoff: resolves after `ms` milliseconds; rejects when `signal` fires first
 * (or has already fired).
 */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) return reject();
    const onAbort = () => {
      clearTimeout(timer);
      reject();
    };
    const timer = setTimeout(() => {
      if (signal) signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal) signal.addEventListener("abort", onAbort, { once: true });
  });
}
