// Loads the built package (pkg/, `make pkg`) in Node and makes the four resource calls
// against the sandbox at $FUNDRAISING_BASE_URL (scripts/with-servers.sh sets it).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const pkgUrl = new URL("../../pkg/", import.meta.url);
const baseUrl = process.env.FUNDRAISING_BASE_URL ?? "http://127.0.0.1:8081";
const appId = process.env.FUNDRAISING_APP_ID ?? "demo-app";
const BASE_MS = 1743761607553;
const DAY_MS = 86400000;

let pkg;
let client;

before(async () => {
  const manifest = JSON.parse(await readFile(new URL("package.json", pkgUrl), "utf8"));
  assert.equal(manifest.name, "fundraising-client");
  pkg = await import(new URL(manifest.module, pkgUrl));
  await pkg.default({ module_or_path: await readFile(new URL("fundraising_client_bg.wasm", pkgUrl)) });
  client = new pkg.FundraisingClient({ appId, baseUrl });
});

test("getCampaign returns the seeded campaign in camelCase with Dates", async () => {
  const c = await client.getCampaign("demo-campaign");
  assert.equal(c.shortName, "demo-campaign");
  assert.equal(c.campaignGuid, "2f0c5a1e-6b7d-4c3e-9a55-0d1e2f3a4b5c");
  assert.equal(c.currency.currencyCode, "GBP");
  assert.equal(c.targetAmount, 10000);
  assert.equal(c.donationSummary.totalAmount, 4670);
  assert.equal(c.donationSummary.offlineAmount, 250);
  assert.ok(c.startDate instanceof Date);
  assert.equal(c.startDate.getTime(), BASE_MS - 120 * DAY_MS);
  assert.equal(c.brandingGuid, null);
  assert.equal(c.CampaignGuid, undefined);
});

test("getDonationByReference returns demo-ref-2 with its shared message", async () => {
  const d = await client.getDonationByReference("demo-ref-2");
  assert.equal(d.id, 5002);
  assert.equal(d.amount, "10.00");
  assert.equal(d.donorLocalAmount, "11.80");
  assert.equal(d.status, "Accepted");
  assert.equal(d.source, "SponsorshipDonations");
  assert.equal(d.message, "Go go go! Proud of you.");
  assert.equal(d.donorRealName, null);
  assert.equal(d.donationDate.getTime(), BASE_MS + 3600000);
});

test("createEvent registers an event that then lists no pages", async () => {
  const created = await client.createEvent({
    name: "Node test swim",
    eventType: "Swimming",
    startDate: new Date(BASE_MS + 500 * DAY_MS),
    completionDate: new Date(BASE_MS + 501 * DAY_MS),
  });
  assert.ok(Number.isInteger(created.id) && created.id > 1001);
  assert.equal(created.next.uri, `${baseUrl}/${appId}/v1/event/${created.id}`);
  const pages = await client.getEventPages(created.id);
  assert.equal(pages.totalFundraisingPages, 0);
  assert.deepEqual(pages.fundraisingPages, []);
});

test("getEventPages and eventPages read event 1001", async () => {
  const first = await client.getEventPages(1001, { page: 1, pageSize: 100 });
  assert.equal(first.totalFundraisingPages, 250);
  assert.equal(first.totalPages, 3);
  assert.equal(first.fundraisingPages.length, 100);
  assert.equal(first.fundraisingPages[0].pageId, 200001);
  let count = 0;
  for await (const page of client.eventPages(1001, { pageSize: 100 })) {
    count += 1;
    assert.equal(page.pageId, 200000 + count);
  }
  assert.equal(count, 250);
});

test("errors are FundraisingError instances with stable codes", async () => {
  await assert.rejects(client.getCampaign("no-such-campaign"), (e) => {
    assert.ok(e instanceof pkg.FundraisingError);
    assert.ok(e instanceof Error);
    assert.equal(e.code, "not_found");
    assert.equal(e.status, 404);
    assert.match(e.message, /no-such-campaign/);
    return true;
  });
  await assert.rejects(client.getEventPages(1001, { pageSize: 101 }), (e) => e.code === "invalid_argument" && e.status === null);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(client.getCampaign("demo-campaign", { signal: controller.signal }), (e) => e.code === "aborted");
});

test("a client that can sign in never keeps a Node process alive", async () => {
  const { spawn } = await import("node:child_process");
  const script = `
    const pkg = await import(${JSON.stringify(new URL("fundraising_client.js", pkgUrl).href)});
    const { readFile } = await import("node:fs/promises");
    await pkg.default({ module_or_path: await readFile(new URL(${JSON.stringify(new URL("fundraising_client_bg.wasm", pkgUrl).href)})) });
    const client = new pkg.FundraisingClient({
      appId: "demo-app", baseUrl: "http://127.0.0.1:9", authUrl: "http://127.0.0.1:9",
      redirectUri: "http://127.0.0.1:9/", companionUrl: "http://127.0.0.1:9",
    });
    client.addEventListener("sessionchange", () => {});
    console.log("constructed");
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk) => { out += chunk; });
  const code = await new Promise((resolve) => {
    const timer = setTimeout(() => { child.kill("SIGKILL"); resolve("still running after 10 s"); }, 10_000);
    child.on("exit", (c) => { clearTimeout(timer); resolve(c); });
  });
  assert.equal(out.trim(), "constructed");
  assert.equal(code, 0);
});
