// oidc-provider, a certified OpenID Provider, as the identity server behind the companion:
// the code exchange with a client id and secret that need RFC 6749 §2.3.1 encoding in the
// Basic header (oidc-provider decodes it strictly), the id_token check (RS256 from its JWKS,
// iss, aud, nonce), refresh with rotation, and sign-out revoking the refresh token (RFC 7009).

import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import Provider from "oidc-provider";
import { Browser } from "./browser.mjs";
import { startCompanion } from "./servers.mjs";

// `:` in the id and `:` `+` `%` and spaces in the secret: sent unencoded, the Basic pair
// would split in the wrong place and decode to other values.
const CLIENT_ID = "interop:companion";
const SECRET = "s3:cr+t %25 x/y=z&w";
const HOME = "http://127.0.0.1:9/callback";
const ACCOUNT = { sub: "user-42", name: "Ada Lovelace", email: "ada@example.org" };

let server;
let provider;
let companion;
const events = [];

/** The login and consent of the provider's interactions, done by the test's user at once. */
async function interaction(req, res) {
  try {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === "login") {
      await provider.interactionFinished(req, res, { login: { accountId: ACCOUNT.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error));
  }
}

before(async () => {
  server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: SECRET,
        redirect_uris: [HOME],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "RS256",
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: "interop-1", alg: "RS256", use: "sig" }] },
    findAccount: (_ctx, id) => (id === ACCOUNT.sub ? { accountId: id, claims: () => ({ ...ACCOUNT }) } : undefined),
    claims: { openid: ["sub"], profile: ["name"], email: ["email"] },
    scopes: ["openid", "profile", "email", "offline_access"],
    // name and email in the id_token itself, which is all the companion reads.
    conformIdTokenClaims: false,
    rotateRefreshToken: true,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // A client revokes only its own tokens (as RFC 7009 §2.1 asks).
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
    },
    interactions: { url: (_ctx, i) => `/interaction/${i.uid}` },
    cookies: { keys: ["interop-cookie-key-0123456789"] },
    ttl: { AccessToken: 3600, Grant: 3600, IdToken: 3600, Interaction: 600, RefreshToken: 86400, Session: 3600 },
  });
  for (const name of ["refresh_token.destroyed", "grant.revoked", "refresh_token.consumed"]) {
    provider.on(name, () => events.push(name));
  }
  const callback = provider.callback();
  server.on("request", (req, res) => (req.url.startsWith("/interaction/") ? interaction(req, res) : callback(req, res)));
  companion = await startCompanion({ appId: CLIENT_ID, secret: SECRET, authUrl: issuer });
});

after(async () => {
  await companion?.stop();
  await new Promise((resolve) => server?.close(resolve) ?? resolve());
});

const base64url = (bytes) => Buffer.from(bytes).toString("base64url");

/** The page's part of a sign-in: the authorize URL, then the code back at the redirect URI. */
async function signIn() {
  const verifier = base64url(randomBytes(48));
  const nonce = base64url(randomBytes(16));
  const state = base64url(randomBytes(12));
  const authorize = new URL(`${provider.issuer}/auth`);
  for (const [name, value] of Object.entries({
    client_id: CLIENT_ID,
    response_type: "code",
    redirect_uri: HOME,
    scope: "openid profile email offline_access",
    // OpenID Connect grants offline_access only with a consent prompt.
    prompt: "consent",
    state,
    nonce,
    code_challenge: base64url(createHash("sha256").update(verifier).digest()),
    code_challenge_method: "S256",
  })) {
    authorize.searchParams.set(name, value);
  }
  const back = await new Browser().navigate(authorize, HOME, (html, url) => {
    throw new Error(`an unexpected page at ${url}: ${html.slice(0, 300)}`);
  });
  assert.equal(back.searchParams.get("state"), state);
  const code = back.searchParams.get("code");
  assert.ok(code, `a code: ${back}`);
  return { code, verifier, nonce };
}

/** A call to the companion as the demo page makes it (its own origin, the CSRF header). */
async function call(path, { json, cookie } = {}) {
  const headers = { origin: companion.url, "x-fundraising-client": "1" };
  if (json) headers["content-type"] = "application/json";
  if (cookie) headers.cookie = cookie;
  const response = await fetch(`${companion.url}${path}`, {
    method: "POST",
    headers,
    body: json ? JSON.stringify(json) : undefined,
  });
  const text = await response.text();
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("fundraising_session="));
  return { status: response.status, text, json: text ? JSON.parse(text) : undefined, setCookie, cookie: setCookie?.split(";")[0] };
}

async function signedIn() {
  const { code, verifier, nonce } = await signIn();
  const reply = await call("/auth/token", { json: { code, codeVerifier: verifier, nonce, redirectUri: HOME } });
  assert.equal(reply.status, 200, reply.text);
  return reply;
}

test("the companion redeems a code at oidc-provider with an RFC 6749 §2.3.1 encoded secret and checks its id_token", async () => {
  const reply = await signedIn();
  assert.equal(reply.json.tokenType, "Bearer");
  assert.equal(typeof reply.json.accessToken, "string");
  assert.deepEqual(reply.json.profile, ACCOUNT, "the profile comes from the verified id_token");
  assert.match(reply.setCookie, /; Path=\/auth/);
  assert.match(reply.setCookie, /HttpOnly/);
  assert.ok(!reply.text.includes("refresh"), reply.text);
});

test("oidc-provider refuses the id and secret unencoded, and accepts them encoded", async () => {
  const token = `${provider.issuer}/token`;
  const attempt = (pair) =>
    fetch(token, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(pair).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=refresh_token&refresh_token=not-a-token",
    }).then(async (r) => ({ status: r.status, error: (await r.json()).error }));
  const encode = (text) => encodeURIComponent(text).replaceAll("%20", "+");
  const raw = await attempt(`${CLIENT_ID}:${SECRET}`);
  assert.ok(["invalid_client", "invalid_request"].includes(raw.error), JSON.stringify(raw));
  // Encoded, the client is authenticated: only the refresh token is wrong.
  const encoded = await attempt(`${encode(CLIENT_ID)}:${encode(SECRET)}`);
  assert.deepEqual(encoded, { status: 400, error: "invalid_grant" });
});

test("refresh through the companion rotates oidc-provider's refresh token and keeps the user", async () => {
  const signed = await signedIn();
  const consumedBefore = events.filter((e) => e === "refresh_token.consumed").length;
  const refreshed = await call("/auth/refresh", { cookie: signed.cookie });
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.notEqual(refreshed.json.accessToken, signed.json.accessToken);
  assert.deepEqual(refreshed.json.profile, ACCOUNT);
  assert.ok(refreshed.cookie && refreshed.cookie !== signed.cookie, "the cookie holds the rotated token");
  assert.equal(
    events.filter((e) => e === "refresh_token.consumed").length,
    consumedBefore + 1,
    "oidc-provider rotated the refresh token",
  );
  const again = await call("/auth/refresh", { cookie: refreshed.cookie });
  assert.equal(again.status, 200, again.text);
});

test("sign-out revokes the refresh token at oidc-provider, so the old cookie no longer refreshes", async () => {
  const signed = await signedIn();
  const before = events.length;
  const out = await call("/auth/logout", { cookie: signed.cookie });
  assert.equal(out.status, 204);
  assert.match(out.setCookie, /Max-Age=0/);
  assert.ok(
    events.slice(before).some((e) => e === "refresh_token.destroyed" || e === "grant.revoked"),
    `oidc-provider revoked it: ${events.slice(before)}`,
  );
  // Even presented again, the revoked refresh token is refused by oidc-provider.
  const replay = await call("/auth/refresh", { cookie: signed.cookie });
  assert.equal(replay.status, 401, replay.text);
  assert.equal(replay.json.error, "session_expired");
});
