// fundraising-sandbox/testing: the last mile of testing an app against the sandbox that
// `fundraising-sandbox exec` started (its test routes on), from Node: a sandbox user signed in
// through the real authorize → code → companion path in one call, the sandbox's faults and
// its request log. The Playwright fixture is `fundraising-sandbox/testing/playwright`.
import { createHash, randomBytes, randomUUID } from "node:crypto";

/** The addresses exec exported, or those given. */
function addresses(options = {}) {
  const env = process.env;
  const companionUrl = options.companionUrl ?? env.FUNDRAISING_COMPANION_URL;
  return {
    baseUrl: trim(options.baseUrl ?? env.FUNDRAISING_BASE_URL ?? "http://127.0.0.1:8081"),
    authUrl: trim(options.authUrl ?? env.FUNDRAISING_AUTH_URL ?? "http://127.0.0.1:8082"),
    appId: options.appId ?? env.FUNDRAISING_APP_ID,
    companionUrl: companionUrl && trim(companionUrl),
  };
}

const trim = (url) => String(url).replace(/\/+$/, "");

/** A JSON call of the sandbox's test routes; its answer, or an Error with the sandbox's words. */
async function call(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (!response.ok) {
    const error = new Error(`${method} ${new URL(url).pathname}: ${response.status} ${answer?.errorMessage ?? text}`);
    error.status = response.status;
    throw error;
  }
  return answer;
}

/** The cookies of a response's `Set-Cookie` headers, in the shape of Playwright's `addCookies`. */
function cookiesOf(response, origin) {
  const { hostname, protocol } = new URL(origin);
  return response.headers.getSetCookie().map((line) => {
    const [pair, ...attributes] = line.split(";").map((part) => part.trim());
    const at = pair.indexOf("=");
    const cookie = { name: pair.slice(0, at), value: pair.slice(at + 1), domain: hostname, path: "/",
                     httpOnly: false, secure: protocol === "https:", sameSite: "Lax" };
    for (const attribute of attributes) {
      const [key, ...rest] = attribute.split("=");
      const value = rest.join("=");
      switch (key.toLowerCase()) {
        case "path": cookie.path = value; break;
        case "httponly": cookie.httpOnly = true; break;
        case "secure": cookie.secure = true; break;
        case "samesite": cookie.sameSite = value[0].toUpperCase() + value.slice(1).toLowerCase(); break;
        case "max-age": cookie.expires = Math.floor(Date.now() / 1000) + Number(value); break;
        case "expires": cookie.expires ??= Math.floor(Date.parse(value) / 1000); break;
      }
    }
    return cookie;
  });
}

/**
 * Signs `user` (a configured sandbox user's e-mail address) in, as a page's client does: an
 * authorize request with PKCE S256, a fresh state and nonce; the sandbox's headless sign-in;
 * the code redeemed at the companion. Resolves with the companion's session (its
 * `accessToken` in token-mediating mode, `expiresAt`, `profile`) and the companion's session
 * `cookies`, which a browser context takes to start signed in.
 */
export async function signIn(user, options = {}) {
  const { authUrl, appId, companionUrl } = addresses(options);
  if (!appId || !companionUrl) {
    throw new Error("signIn needs appId and companionUrl (run under `fundraising-sandbox exec --companion`, or pass them)");
  }
  const redirectUri = options.redirectUri ?? `${companionUrl}/`;
  const scopes = ["openid", "profile", ...(options.scopes ?? ["offline_access"])];
  const verifier = randomBytes(32).toString("base64url");
  const nonce = randomUUID();
  const authorize = new URL("/connect/authorize", authUrl);
  authorize.search = new URLSearchParams({
    client_id: appId, response_type: "code", scope: [...new Set(scopes)].join(" "), redirect_uri: redirectUri,
    state: randomUUID(), nonce, code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
  const { callback_url: callback } = await call("POST", `${authUrl}/_sandbox/sign-in`, { authorize_url: authorize.href, user });
  const code = new URL(callback).searchParams.get("code");
  if (!code) throw new Error(`the sign-in of ${user} came back without a code: ${callback}`);
  const exchange = await fetch(`${companionUrl}/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Fundraising-Client": "1", Origin: new URL(companionUrl).origin },
    body: JSON.stringify({ code, codeVerifier: verifier, nonce, redirectUri }),
  });
  const session = await exchange.json();
  if (!exchange.ok) {
    const error = new Error(`the companion refused the code: ${exchange.status} ${session.error ?? ""} ${session.message ?? ""}`.trim());
    error.code = session.error;
    throw error;
  }
  return { ...session, cookies: cookiesOf(exchange, companionUrl) };
}

/**
 * Signs `user` in for a Playwright browser context: the companion's session cookie is added
 * to it, so the app's own client restores the session when a page of it starts.
 */
export async function signInContext(context, user, options = {}) {
  const session = await signIn(user, options);
  await context.addCookies(session.cookies);
  return session;
}

/** The sandbox's faults (docs/sandbox.md, "Faults on demand"). */
export const faults = {
  /** Adds a fault (`{endpoint, status, delay_ms, drop, times, ...}`); its id. */
  async add(spec, options) {
    return (await call("POST", `${addresses(options).baseUrl}/_sandbox/faults`, spec)).id;
  },
  /** The faults in force, oldest first. */
  async list(options) {
    return (await call("GET", `${addresses(options).baseUrl}/_sandbox/faults`)).faults;
  },
  /** Removes the fault `id`. */
  async remove(id, options) {
    await call("DELETE", `${addresses(options).baseUrl}/_sandbox/faults/${id}`);
  },
  /** Removes every fault; how many there were. */
  async clear(options) {
    return (await call("DELETE", `${addresses(options).baseUrl}/_sandbox/faults`)).removed;
  },
};

/** The sandbox's request log (docs/sandbox.md, "The request log"). */
export const requests = {
  /** The id of the last request logged: pass it to `since` to see only what comes after. */
  async lastId(options) {
    return (await call("GET", `${addresses(options).baseUrl}/_sandbox/requests?path=/`)).last_id;
  },
  /** The requests logged after `id` that `filter` selects (`{path, endpoint, app_id, method, listener}`). */
  async since(id, filter = {}, options) {
    const query = new URLSearchParams({ since: String(id), ...filter });
    return (await call("GET", `${addresses(options).baseUrl}/_sandbox/requests?${query}`)).requests;
  },
  /** Empties the log. */
  async clear(options) {
    await call("DELETE", `${addresses(options).baseUrl}/_sandbox/requests`);
  },
};

/** A call of any other test route (`"POST", "/_sandbox/clock", {advance_secs: 60}`); its JSON answer. */
export async function sandbox(method, path, body, options) {
  return call(method, `${addresses(options).baseUrl}${path}`, body);
}
