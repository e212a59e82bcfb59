// The package's resource calls from a dedicated module worker: the calls need no `window`, no
// `document` and no storage, only `fetch`, so a page can keep them off its main thread.
//
//   const worker = new Worker(new URL("resource-worker.js", companionUrl), { type: "module" });
//   worker.postMessage({ id: 1, appId: "demo-app", baseUrl: "http://127.0.0.1:8081",
//                        method: "getCampaign", args: ["demo-campaign"] });
//   worker.onmessage = ({ data }) => { /* {id, result} or {id, error: {name, code, status, message}} */ };
//
// A worker is loaded from its own origin, so the page that starts it must be served by the
// companion too (or copy this file and pkg/ next to the page). The package comes from pkg/ next
// to this file. The end-to-end test e2e/worker.test.mjs runs the four calls through it.
import init, { FundraisingClient } from "./pkg/fundraising_client.js";

/** The calls a message may ask for: the four resource calls, which need no sign-in. */
const METHODS = new Set(["getCampaign", "getDonationByReference", "createEvent", "getEventPages"]);

const ready = init();
ready.catch(() => {}); // reported to each caller below, not as an unhandled rejection
const clients = new Map(); // one client per appId and baseUrl

function clientFor(appId, baseUrl) {
  const key = `${appId}\n${baseUrl}`;
  let client = clients.get(key);
  if (!client) {
    client = new FundraisingClient({ appId, baseUrl });
    clients.set(key, client);
  }
  return client;
}

self.addEventListener("message", async ({ data }) => {
  const { id, appId, baseUrl, method, args = [] } = data ?? {};
  try {
    if (!METHODS.has(method)) throw new TypeError(`unknown call: ${method}`);
    await ready;
    const result = await clientFor(appId, baseUrl)[method](...args);
    // Results are plain objects (dates as Date): the structured clone carries them as they are.
    self.postMessage({ id, result });
  } catch (error) {
    self.postMessage({
      id,
      error: { name: error?.name ?? "Error", code: error?.code ?? null, status: error?.status ?? null, message: error?.message ?? String(error) },
    });
  }
});
