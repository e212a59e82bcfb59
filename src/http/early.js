// Early answers: a request a page started before the package was loaded (an element of the
// widgets starts its first one beside the package's download and compile), handed over with
// adoptResponse(); the package's request to that address takes it in place of its own fetch
// (early.rs), once. A failed answer (a network error, a status that is not 2xx) is taken as none:
// the package then fetches itself, as the first attempt of its call, retried as its calls are.
const answers = new Map();

/** Hands the package the early answer `response` (a `Promise<Response>`) of a GET of `url`. */
export function adoptResponse(url, response) {
  answers.set(new URL(url).href, Promise.resolve(response).then((r) => (r.ok ? r : null), () => null));
}

/**
 * The early answer for `request`, taken (a second request gets none): a promise of the
 * `Response`, or of null when it failed or the request's signal fired first (its timeout, its
 * caller's abort); undefined when there is none, or when `request` is not what the page sent (a
 * GET without credentials or an `Authorization` header).
 */
export function takeResponse(request) {
  const answer = answers.get(request.url);
  answers.delete(request.url);
  if (!answer || request.method !== "GET" || request.credentials === "include" || request.headers.has("Authorization")) return undefined;
  return new Promise((resolve) => {
    request.signal.addEventListener("abort", () => resolve(null), { once: true });
    answer.then(resolve);
  });
}
