// The browser's side of the decoding differential (tests/decode_differential.rs drives it):
// the packed package (a pkg/ folder, `make pkg`) loaded in Node, its `fetch` answering each
// body it is given, decoded by the package's own methods as an app calls them.
//
//   node tests/differential/peer.mjs PKG_DIR
//
// Reads JSON lines `{"call": "campaign" | "donation" | "created" | "pages", "body": "..."}` on
// stdin and writes, for each, one line: `{"ok": RESULT}` with the result in a form JSON can
// carry (a Date as {"$date": ms}, a number JSON cannot write as {"$number": "Infinity"},
// undefined as {"$undefined": true}, a string with a lone surrogate as {"$illFormed": [code
// units]}), or `{"err": CODE, "message": ...}` when the call rejects.
import { readFile } from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";

const dir = path.resolve(process.argv[2] ?? "pkg");
const pkg = await import(pathToFileURL(path.join(dir, "fundraising_client.js")).href);
await pkg.default({ module_or_path: await readFile(path.join(dir, "fundraising_client_bg.wasm")) });

let answer = { body: "", status: 200 };
globalThis.fetch = async () =>
  new Response(answer.body, { status: answer.status, headers: { "content-type": "application/json" } });

const client = new pkg.FundraisingClient({ appId: "demo-app", baseUrl: "http://127.0.0.1:9" });
const event = { name: "Differential run", eventType: "Walks", startDate: new Date(0) };
const calls = {
  campaign: () => client.getCampaign("demo-campaign"),
  donation: () => client.getDonationByReference("demo-ref"),
  created: () => client.createEvent(event),
  pages: () => client.getEventPages(1001, { page: 1, pageSize: 100 }),
};

/** A result as JSON can carry it, every value told apart. */
function carried(v) {
  if (v instanceof Date) {
    const ms = v.getTime();
    return { $date: Number.isNaN(ms) ? "Invalid Date" : ms };
  }
  if (typeof v === "number") return Number.isFinite(v) ? v : { $number: String(v) };
  // A string with a lone surrogate, which JSON text read by serde_json cannot carry.
  if (typeof v === "string" && !v.isWellFormed()) return { $illFormed: Array.from({ length: v.length }, (_, i) => v.charCodeAt(i)) };
  if (v === undefined) return { $undefined: true };
  if (Array.isArray(v)) return v.map(carried);
  if (v !== null && typeof v === "object") {
    // No prototype: a member named `__proto__` stays a member.
    const out = Object.create(null);
    for (const key of Object.keys(v)) out[key] = carried(v[key]);
    return out;
  }
  return v;
}

const out = [];
const flush = () => {
  if (out.length > 0) process.stdout.write(out.splice(0).join(""));
};
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === "") {
    flush();
    continue;
  }
  const { call, body } = JSON.parse(line);
  answer = { body, status: call === "created" ? 201 : 200 };
  let reply;
  try {
    reply = { ok: carried(await calls[call]()) };
  } catch (e) {
    reply = { err: e?.code ?? `not a FundraisingError: ${e}`, message: String(e?.message ?? e) };
  }
  out.push(JSON.stringify(reply) + "\n");
}
flush();
