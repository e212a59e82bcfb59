// The light build the widgets load (pkg/light/, the npm subpath export
// `fundraising-client/light`): its manifest entry, its own declarations (the four resource
// operations, eventPages, waitForDonation and newDonationReference, no sign-in), and the build
// itself in Node against the sandbox (scripts/with-servers.sh sets FUNDRAISING_BASE_URL).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { before, test } from "node:test";

const pkgUrl = new URL("../pkg/", import.meta.url);
const baseUrl = process.env.FUNDRAISING_BASE_URL ?? "http://127.0.0.1:8081";
const appId = process.env.FUNDRAISING_APP_ID ?? "demo-app";

let manifest;
let light;

before(async () => {
  manifest = JSON.parse(await readFile(new URL("package.json", pkgUrl), "utf8"));
  light = await import(new URL(manifest.exports["./light"].default, pkgUrl));
  await light.default({ module_or_path: await readFile(new URL(manifest.exports["./light/fundraising_client_bg.wasm"], pkgUrl)) });
});

test("the package exports ./light with its own declarations and wasm", async () => {
  assert.deepEqual(manifest.exports["./light"], {
    types: "./light/fundraising_client.d.ts",
    default: "./light/fundraising_client.js",
  });
  for (const file of ["light/fundraising_client.d.ts", "light/fundraising_client.js", "light/fundraising_client_bg.wasm"]) {
    assert.ok(manifest.files.includes(file), `${file} is packed`);
  }
  const dts = await readFile(new URL("light/fundraising_client.d.ts", pkgUrl), "utf8");
  const client = dts.slice(dts.indexOf("export class FundraisingClient"));
  const body = client.slice(0, client.indexOf("\n}\n"));
  for (const method of ["getCampaign", "getDonationByReference", "createEvent", "getEventPages", "eventPages", "waitForDonation"]) {
    assert.match(body, new RegExp(`\\n\\s+${method}\\(`), `${method} is declared`);
  }
  for (const method of ["signInWithPopup", "signInWithRedirect", "handleCallback", "getAccessToken", "signOut"]) {
    assert.doesNotMatch(body, new RegExp(`\\b${method}\\b`), `${method} is not in the light build`);
  }
  assert.match(dts, /export function newDonationReference\(\): string;/);
  assert.match(dts, /export class FundraisingError extends Error/);
});

test("the light build runs: no sign-in, the resource calls, fresh donation references", async () => {
  const client = new light.FundraisingClient({ appId, baseUrl });
  assert.equal(typeof client.signInWithPopup, "undefined");
  assert.equal(typeof client.handleCallback, "undefined");
  const campaign = await client.getCampaign("demo-campaign");
  assert.equal(campaign.shortName, "demo-campaign");
  assert.ok(campaign.startDate instanceof Date);
  const donation = await client.getDonationByReference("demo-ref-2");
  assert.equal(donation.thirdPartyReference, "demo-ref-2");
  await assert.rejects(client.getDonationByReference("no-such-reference"), (e) => e instanceof light.FundraisingError && e.code === "not_found");

  const references = new Set(Array.from({ length: 100 }, () => light.newDonationReference()));
  assert.equal(references.size, 100);
  for (const reference of references) assert.match(reference, /^[A-Za-z0-9_-]{16,}$/);
});
