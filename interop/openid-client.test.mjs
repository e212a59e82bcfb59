// openid-client, a certified OpenID Connect relying party, against the sandbox's identity
// server and resource API: discovery, authorization code with PKCE through the sandbox's real
// login and consent pages, the id_token's signature (checked against the JWKS) and claims,
// refresh as RFC 6749 §6 has it, and revocation (RFC 7009); and the id_tokens the sandbox's
// faults issue, each of which openid-client refuses, and a rotated signing key it accepts. The application's secret needs
// RFC 6749 §2.3.1 encoding in the Basic header, which openid-client applies.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as client from "openid-client";
import { Browser, sandboxUser } from "./browser.mjs";
import { startSandbox } from "./servers.mjs";

const APP_ID = "interop-rp";
// Every character RFC 6749 §2.3.1 form-encodes: `:` (the Basic separator), `+`, `%`, a space.
const SECRET = "s3:cr+t %25 x/y=z&w";
const HOME = "http://127.0.0.1:9/callback";
const SCOPE = "openid profile email offline_access";

const CONFIG = `
enable_test_routes = true

[[applications]]
app_id = "${APP_ID}"
secret = "${SECRET}"
home_page = "${HOME}"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"
`;

let sandbox;
before(async () => {
  sandbox = await startSandbox(CONFIG);
});
after(async () => {
  await sandbox?.stop();
});

/** The relying party's configuration from discovery; `sent` records its token requests. */
async function relyingParty(sent = []) {
  const config = await client.discovery(new URL(sandbox.identity), APP_ID, undefined, client.ClientSecretBasic(SECRET), {
    // The sandbox is plain http on loopback; the id_token's signature is checked too (by
    // default openid-client trusts TLS instead for tokens from the token endpoint).
    execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
  });
  config[client.customFetch] = async (url, options) => {
    if (new URL(url).pathname.endsWith("/token")) {
      sent.push({ authorization: new Headers(options.headers).get("authorization"), body: String(options.body) });
    }
    return fetch(url, options);
  };
  return config;
}

/** Signs the demo user in through the sandbox's pages; the tokens and what was expected. */
async function signIn(config) {
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const authorize = client.buildAuthorizationUrl(config, {
    redirect_uri: HOME,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    nonce,
    state,
  });
  const callback = await new Browser().navigate(authorize, HOME, sandboxUser("demo@example.org", "demo-password"));
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    expectedState: state,
    idTokenExpected: true,
  });
  return { tokens, nonce, verifier, state, authorize };
}

/** GET of demo-ref-1 (a donation on the demo user's page) with `token`. */
function donation(config, token) {
  return client.fetchProtectedResource(config, token, new URL(`${sandbox.api}/${APP_ID}/v1/donation/ref/demo-ref-1`), "GET");
}

test("discovery describes the sandbox as a code + PKCE provider with Basic client authentication", async () => {
  const metadata = (await relyingParty()).serverMetadata();
  assert.equal(metadata.issuer, sandbox.identity);
  assert.equal(metadata.authorization_endpoint, `${sandbox.identity}/connect/authorize`);
  assert.equal(metadata.token_endpoint, `${sandbox.identity}/connect/token`);
  assert.equal(metadata.revocation_endpoint, `${sandbox.identity}/connect/revocation`);
  assert.deepEqual(metadata.code_challenge_methods_supported, ["S256"]);
  assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ["client_secret_basic"]);
  assert.ok(metadata.id_token_signing_alg_values_supported.includes("RS256"));
});

test("code + PKCE through the login and consent pages gives an id_token openid-client verifies", async () => {
  const sent = [];
  const config = await relyingParty(sent);
  const { tokens, nonce, authorize } = await signIn(config);
  assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
  assert.equal(tokens.token_type.toLowerCase(), "bearer");
  assert.equal(tokens.expires_in, 3600);
  assert.ok(tokens.refresh_token, "offline_access gives a refresh token");
  // Signature (RS256, the JWKS's key by kid) and claims were checked by openid-client; these
  // are the claims it accepted.
  const claims = tokens.claims();
  assert.equal(claims.iss, sandbox.identity);
  assert.equal(claims.aud, APP_ID);
  assert.equal(claims.nonce, nonce);
  assert.equal(claims.name, "Demo Fundraiser");
  assert.equal(claims.email, "demo@example.org");
  assert.ok(claims.sub && claims.iat <= claims.exp && claims.auth_time <= claims.iat);
  // The secret went form-encoded (RFC 6749 §2.3.1) in the Basic header, which the sandbox
  // decoded; nothing about the client went in the body.
  const basic = Buffer.from(sent[0].authorization.replace(/^Basic /, ""), "base64").toString();
  const formDecode = (text) => decodeURIComponent(text.replaceAll("+", "%20"));
  assert.equal(basic.split(":").length, 2, `one separator: ${basic}`);
  assert.deepEqual(basic.split(":").map(formDecode), [APP_ID, SECRET]);
  assert.ok(!sent[0].body.includes("client_secret"), sent[0].body);

  // The access token speaks for the page's owner at the resource API.
  const owner = await donation(config, tokens.access_token);
  assert.equal(owner.status, 200);
  assert.equal((await owner.json()).donorRealName, "Alex Smith");
});

test("a wrong verifier, a wrong nonce or a changed signature is refused", async () => {
  const config = await relyingParty();
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const authorize = client.buildAuthorizationUrl(config, {
    redirect_uri: HOME,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    nonce,
  });
  const browser = new Browser();
  const user = sandboxUser("demo@example.org", "demo-password");
  const callback = await browser.navigate(authorize, HOME, user);
  // The sandbox refuses another verifier (invalid_grant) ...
  await assert.rejects(
    client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedNonce: nonce }),
    (e) => e.error === "invalid_grant",
  );
  // ... and openid-client refuses an id_token whose nonce is not the one it sent.
  const again = await browser.navigate(authorize, HOME, user);
  await assert.rejects(
    client.authorizationCodeGrant(config, again, { pkceCodeVerifier: verifier, expectedNonce: "another-nonce" }),
    (e) => e.cause?.cause?.claim === "nonce",
  );
  // The signature is really checked: the same answer with one byte of the signature changed
  // is refused.
  const tampering = await relyingParty();
  tampering[client.customFetch] = async (url, options) => {
    const response = await fetch(url, options);
    if (!new URL(url).pathname.endsWith("/token")) return response;
    const body = await response.json();
    const [header, payload, signature] = body.id_token.split(".");
    const flipped = (signature[10] === "A" ? "B" : "A");
    body.id_token = [header, payload, signature.slice(0, 10) + flipped + signature.slice(11)].join(".");
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
  const third = await browser.navigate(authorize, HOME, user);
  await assert.rejects(
    client.authorizationCodeGrant(tampering, third, { pkceCodeVerifier: verifier, expectedNonce: nonce }),
    (e) => /signature/i.test(`${e.message} ${e.cause?.message}`),
  );
});

test("refresh as RFC 6749 §6 has it (no redirect_uri) rotates the refresh token", async () => {
  const sent = [];
  const config = await relyingParty(sent);
  const { tokens } = await signIn(config);
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);
  const request = new URLSearchParams(sent.at(-1).body);
  assert.equal(request.get("grant_type"), "refresh_token");
  assert.equal(request.get("redirect_uri"), null, "openid-client sends no redirect_uri");
  assert.notEqual(refreshed.access_token, tokens.access_token);
  assert.ok(refreshed.refresh_token && refreshed.refresh_token !== tokens.refresh_token);
  // The refreshed id_token passed openid-client's checks and names the same user.
  assert.equal(refreshed.claims().sub, tokens.claims().sub);
  assert.equal((await donation(config, refreshed.access_token)).status, 200);
  // The rotated-out token is refused (and its reuse ends the chain).
  await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token), (e) => e.error === "invalid_grant");
  await assert.rejects(client.refreshTokenGrant(config, refreshed.refresh_token), (e) => e.error === "invalid_grant");
});

test("revocation (RFC 7009) of a refresh token ends it and its access tokens; of an access token, that one", async () => {
  const config = await relyingParty();
  const first = (await signIn(config)).tokens;
  assert.equal((await donation(config, first.access_token)).status, 200);
  await client.tokenRevocation(config, first.access_token, { token_type_hint: "access_token" });
  const refused = await donation(config, first.access_token).catch((e) => e);
  assert.equal(refused.status ?? refused.response?.status, 401);
  // The refresh token of that sign-in still works; revoking it ends the chain.
  const refreshed = await client.refreshTokenGrant(config, first.refresh_token);
  await client.tokenRevocation(config, refreshed.refresh_token, { token_type_hint: "refresh_token" });
  await assert.rejects(client.refreshTokenGrant(config, refreshed.refresh_token), (e) => e.error === "invalid_grant");
  const ended = await donation(config, refreshed.access_token).catch((e) => e);
  assert.equal(ended.status ?? ended.response?.status, 401);
  // Revoking an unknown token is fine (RFC 7009 §2.2).
  await client.tokenRevocation(config, "never-issued");
});

/** POST of JSON to one of the sandbox's test routes. */
async function testRoute(path, body) {
  const response = await fetch(`${sandbox.identity}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.ok(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
  return response.json();
}

test("openid-client refuses every id_token the sandbox's faults issue, and the next sign-in passes", async () => {
  const kinds = ["unknown_key", "alg_none", "hs256", "wrong_iss", "wrong_aud", "missing_azp", "wrong_azp", "expired", "wrong_nonce"];
  const refusals = {};
  for (const kind of kinds) {
    const config = await relyingParty();
    await testRoute("/_sandbox/faults", { endpoint: "token", app_id: APP_ID, grant_type: "authorization_code", id_token: kind, times: 1 });
    const refused = await signIn(config).then(
      () => null,
      (e) => e,
    );
    assert.ok(refused, `openid-client accepted the ${kind} id_token`);
    // Refused by openid-client's own checks, not by the token endpoint.
    assert.equal(refused.error, undefined, `${kind}: ${refused.message}`);
    refusals[kind] = `${refused.message} ${refused.cause?.message ?? ""}`;
    const { tokens } = await signIn(config);
    assert.equal(tokens.claims().aud, APP_ID, `${kind}: healed`);
  }
  assert.match(refusals.alg_none + refusals.hs256, /alg/i);
  assert.match(refusals.wrong_iss, /iss/);
  assert.match(refusals.wrong_aud, /aud/);
  assert.match(refusals.missing_azp + refusals.wrong_azp, /azp|aud/);
  assert.match(refusals.expired, /exp/);
});

test("after a key rotation that drops the old key, openid-client verifies the new key's id_tokens", async () => {
  const before = (await signIn(await relyingParty())).tokens.claims();
  const rotated = await testRoute("/_sandbox/keys/rotate", { keep_old: false });
  assert.deepEqual(rotated.jwks_kids, [rotated.kid]);
  const config = await relyingParty();
  const { tokens } = await signIn(config);
  assert.equal(tokens.claims().sub, before.sub);
  const header = JSON.parse(Buffer.from(tokens.id_token.split(".")[0], "base64url").toString());
  assert.equal(header.kid, rotated.kid);
});
