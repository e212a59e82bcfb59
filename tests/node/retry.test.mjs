// The package in Node where the sandbox's faults meet it: each row of docs/api.md's retry
// table is a case here, run against the sandbox that scripts/with-servers.sh starts (test
// routes on), and the sandbox's request log tells how many times each call reached it. A row
// added to the table without a case here, or a case whose row is gone, fails the run.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const pkgUrl = new URL("../../pkg/", import.meta.url);
const baseUrl = process.env.FUNDRAISING_BASE_URL ?? "http://127.0.0.1:8081";
const appId = process.env.FUNDRAISING_APP_ID ?? "demo-app";

let pkg;
let client;

before(async () => {
  const manifest = JSON.parse(await readFile(new URL("package.json", pkgUrl), "utf8"));
  pkg = await import(new URL(manifest.module, pkgUrl));
  await pkg.default({ module_or_path: await readFile(new URL("fundraising_client_bg.wasm", pkgUrl)) });
  client = new pkg.FundraisingClient({ appId, baseUrl });
});

async function sandbox(method, path, body) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json();
  assert.ok(response.ok, `${path}: ${JSON.stringify(answer)}`);
  return answer;
}

/** A fresh event's pages: a path no other test's faults meet. */
async function ownPages() {
  const { id } = await client.createEvent({ name: "Retry table", eventType: "Walks" });
  return { id, path: `/${appId}/v1/event/${id}/pages` };
}

/**
 * Runs `call` with `fault` in force on `path` (removed afterwards): the call's outcome, how
 * many requests reached the sandbox, and how long it took.
 */
async function meet(path, fault, call) {
  const { last_id: since } = await sandbox("GET", "/_sandbox/requests?path=/");
  const { id } = await sandbox("POST", "/_sandbox/faults", { path, ...fault });
  const started = Date.now();
  const outcome = await call().then((value) => ({ value }), (error) => ({ error }));
  const took = Date.now() - started;
  await fetch(`${baseUrl}/_sandbox/faults/${id}`, { method: "DELETE" });
  const { requests } = await sandbox("GET", `/_sandbox/requests?since=${since}&path=${encodeURIComponent(path)}`);
  return { ...outcome, requests: requests.length, took };
}

const pages = (id, options) => () => client.getEventPages(id, options);
const failedWith = (outcome, code, status) => {
  assert.ok(outcome.error, `expected ${code}, got a value`);
  assert.equal(outcome.error.code, code, outcome.error.message);
  if (status !== undefined) assert.equal(outcome.error.status, status);
};

/** One case per row of the table, by the row's first cell. */
const cases = {
  "a network error": async () => {
    const { id, path } = await ownPages();
    const healed = await meet(path, { endpoint: "pages", drop: true, times: 1 }, pages(id));
    assert.ok(healed.value, healed.error?.message);
    assert.equal(healed.requests, 2);
    const down = await meet(path, { endpoint: "pages", drop: true }, pages(id));
    failedWith(down, "network_error", null);
    assert.equal(down.requests, 3);
  },
  "502, 503 or 504": async () => {
    const { id, path } = await ownPages();
    for (const status of [502, 503, 504]) {
      const once = await meet(path, { endpoint: "pages", status, times: 1 }, pages(id));
      assert.ok(once.value, `${status}: ${once.error?.message}`);
      assert.equal(once.requests, 2, `${status}`);
    }
    const told = await meet(path, { endpoint: "pages", status: 503, retry_after: 1, times: 1 }, pages(id));
    assert.ok(told.value && told.took >= 1000, `waited ${told.took} ms`);
    const always = await meet(path, { endpoint: "pages", status: 503 }, pages(id));
    failedWith(always, "http_error", 503);
    assert.equal(always.requests, 3);
  },
  "502, 503 or 504 with a Retry-After over 10 s": async () => {
    const { id, path } = await ownPages();
    const outcome = await meet(path, { endpoint: "pages", status: 503, retry_after: 11, times: 1 }, pages(id));
    failedWith(outcome, "http_error", 503);
    assert.equal(outcome.requests, 1);
  },
  "429 with a Retry-After of at most 10 s": async () => {
    const { id, path } = await ownPages();
    const outcome = await meet(path, { endpoint: "pages", status: 429, retry_after: 1, times: 1 }, pages(id));
    assert.ok(outcome.value, outcome.error?.message);
    assert.equal(outcome.requests, 2);
    assert.ok(outcome.took >= 1000, `waited ${outcome.took} ms`);
  },
  "429 without a Retry-After, or with one over 10 s": async () => {
    const { id, path } = await ownPages();
    for (const fault of [{ status: 429 }, { status: 429, retry_after: 60 }]) {
      const outcome = await meet(path, { endpoint: "pages", ...fault, times: 1 }, pages(id));
      failedWith(outcome, "http_error", 429);
      assert.equal(outcome.requests, 1, JSON.stringify(fault));
    }
  },
  "a timeout": async () => {
    const { id, path } = await ownPages();
    const impatient = new pkg.FundraisingClient({ appId, baseUrl, timeoutMs: 300 });
    const outcome = await meet(path, { endpoint: "pages", delay_ms: 1000, times: 1 }, () => impatient.getEventPages(id));
    failedWith(outcome, "timeout");
    assert.equal(outcome.requests, 1);
  },
  "another status": async () => {
    const { id, path } = await ownPages();
    const outcome = await meet(path, { endpoint: "pages", status: 500, times: 1 }, pages(id));
    failedWith(outcome, "http_error", 500);
    assert.equal(outcome.requests, 1);
    const missing = `/${appId}/v1/event/999999/pages`;
    const notFound = await meet(missing, { endpoint: "pages", status: 404, times: 1 }, pages(999999));
    failedWith(notFound, "not_found", 404);
    assert.equal(notFound.requests, 1);
  },
  "an answer that is not the JSON expected": async () => {
    const { id, path } = await ownPages();
    for (const fault of [{ body: "truncated" }, { status: 200, body: "html" }]) {
      const outcome = await meet(path, { endpoint: "pages", ...fault, times: 1 }, pages(id));
      failedWith(outcome, "decode_error");
      assert.equal(outcome.requests, 1, JSON.stringify(fault));
    }
  },
};

test("docs/api.md's retry table and these cases name the same rows", async () => {
  const api = await readFile(new URL("../../docs/api.md", import.meta.url), "utf8");
  const table = api.slice(api.indexOf('<a id="retry-table"></a>'));
  const rows = [...table.matchAll(/^\s*\| ([^|]+?) \| (yes|no)/gm)].map((m) => m[1]);
  assert.deepEqual(rows, Object.keys(cases));
});

for (const [row, run] of Object.entries(cases)) {
  test(`retry table: ${row}`, run);
}

test("createEvent is never retried, even on a 503 or a 429 that says when to retry", async () => {
  const path = `/${appId}/v1/event/`;
  for (const fault of [{ status: 503 }, { status: 429, retry_after: 1 }, { drop: true }]) {
    const outcome = await meet(path, { endpoint: "create_event", ...fault, times: 1 }, () =>
      client.createEvent({ name: "Never twice", eventType: "Treks" }),
    );
    assert.ok(outcome.error, JSON.stringify(fault));
    assert.equal(outcome.requests, 1, JSON.stringify(fault));
  }
});
