// The builds without sign-in: the light build (pkg/light/, the npm subpath export
// `fundraising-client/light`: the four resource operations, eventPages, waitForDonation and
// newDonationReference) and the widgets' build (pkg/widgets/, `fundraising-client/widgets`: a
// campaign, a donation and its wait, newDonationReference); each one's manifest entry, its own
// declarations, and the build itself in Node against the sandbox (scripts/with-servers.sh sets
// FUNDRAISING_BASE_URL).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { before, test } from "node:test";

const pkgUrl = new URL("../pkg/", import.meta.url);
const baseUrl = process.env.FUNDRAISING_BASE_URL ?? "http://127.0.0.1:8081";
const appId = process.env.FUNDRAISING_APP_ID ?? "demo-app";

let manifest;
let light;
let widgets;

/** A build of the package, loaded and initialised as the manifest exports it. */
async function load(build) {
  const pkg = await import(new URL(manifest.exports[`./${build}`].default, pkgUrl));
  await pkg.default({ module_or_path: await readFile(new URL(manifest.exports[`./${build}/fundraising_client_bg.wasm`], pkgUrl)) });
  return pkg;
}

/** The methods `FundraisingClient` declares in a build's .d.ts. */
async function declaredMethods(build) {
  const dts = await readFile(new URL(`${build}/fundraising_client.d.ts`, pkgUrl), "utf8");
  const client = dts.slice(dts.indexOf("export class FundraisingClient"));
  return { dts, body: client.slice(0, client.indexOf("\n}\n")) };
}

before(async () => {
  manifest = JSON.parse(await readFile(new URL("package.json", pkgUrl), "utf8"));
  light = await load("light");
  widgets = await load("widgets");
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

test("the package exports ./widgets: a campaign and a donation's wait, nothing else", async () => {
  assert.deepEqual(manifest.exports["./widgets"], {
    types: "./widgets/fundraising_client.d.ts",
    default: "./widgets/fundraising_client.js",
  });
  for (const file of ["widgets/fundraising_client.d.ts", "widgets/fundraising_client.js", "widgets/fundraising_client_bg.wasm"]) {
    assert.ok(manifest.files.includes(file), `${file} is packed`);
  }
  const { dts, body } = await declaredMethods("widgets");
  for (const method of ["getCampaign", "getDonationByReference", "waitForDonation"]) {
    assert.match(body, new RegExp(`\\n\\s+${method}\\(`), `${method} is declared`);
  }
  for (const method of ["createEvent", "getEventPages", "eventPages", "signInWithPopup", "restoreSession", "getAccessToken"]) {
    assert.doesNotMatch(body, new RegExp(`\\b${method}\\b`), `${method} is not in the widgets' build`);
  }
  // Nor the declarations of what it leaves out.
  for (const type of ["EventPages", "FundraisingPageSummary", "EventCreated", "SignInOptions"]) {
    assert.doesNotMatch(dts, new RegExp(`export (interface|type) ${type}\\b`), `${type} is declared`);
  }
  assert.match(dts, /export function newDonationReference\(\): string;/);
});

test("the widgets' build runs: a campaign, a donation, a donation's wait", async () => {
  const client = new widgets.FundraisingClient({ appId, baseUrl });
  assert.equal(typeof client.createEvent, "undefined");
  assert.equal(typeof client.eventPages, "undefined");
  const campaign = await client.getCampaign("demo-campaign");
  assert.equal(campaign.shortName, "demo-campaign");
  const seen = [];
  const donation = await client.waitForDonation("demo-ref-2", { onStatus: (status) => seen.push(status) });
  assert.equal(donation.status, "Accepted");
  assert.deepEqual(seen, ["Accepted"]);
  await assert.rejects(client.getDonationByReference(""), (e) => e instanceof widgets.FundraisingError && e.code === "invalid_argument");
});
