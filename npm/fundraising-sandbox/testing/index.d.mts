/** Where the sandbox and the companion are; each defaults to what `fundraising-sandbox exec` exported. */
export interface Addresses {
  /** The resource API (`FUNDRAISING_BASE_URL`). */
  baseUrl?: string;
  /** The identity server (`FUNDRAISING_AUTH_URL`). */
  authUrl?: string;
  /** The application (`FUNDRAISING_APP_ID`). */
  appId?: string;
  /** The companion that redeems the code (`FUNDRAISING_COMPANION_URL`). */
  companionUrl?: string;
}

/** Options of a sign-in. */
export interface SignInOptions extends Addresses {
  /** The registered home page the sign-in comes back to (default: the companion's `/`). */
  redirectUri?: string;
  /** Scopes besides `openid` and `profile` (default: `["offline_access"]`). */
  scopes?: string[];
}

/** A cookie, in the shape of Playwright's `BrowserContext.addCookies`. */
export interface Cookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires?: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: "Strict" | "Lax" | "None";
}

/** The signed-in user, as the companion describes them. */
export interface Profile {
  sub: string;
  name?: string;
  email?: string;
  [claim: string]: unknown;
}

/** The companion's session after a sign-in, with its session cookies. */
export interface SignedIn {
  /** The access token (token-mediating mode; absent in BFF mode). */
  accessToken?: string;
  /** When the access token expires (milliseconds since the epoch). */
  expiresAt: number;
  profile: Profile;
  /** The companion's session cookies: a browser context that holds them starts signed in. */
  cookies: Cookie[];
}

/** Signs a configured sandbox user in through the real authorize → code → companion path. */
export function signIn(user: string, options?: SignInOptions): Promise<SignedIn>;

/** Anything with Playwright's `addCookies` (a `BrowserContext`). */
export interface CookieJar {
  addCookies(cookies: Cookie[]): Promise<void>;
}

/** Signs a user in for a browser context: the app's own client restores the session. */
export function signInContext(context: CookieJar, user: string, options?: SignInOptions): Promise<SignedIn>;

/** A fault (docs/sandbox.md, "Faults on demand"). */
export interface FaultSpec {
  endpoint: "authorize" | "login" | "consent" | "token" | "revocation" | "discovery" | "jwks"
    | "campaign" | "donation" | "create_event" | "pages";
  grant_type?: "authorization_code" | "refresh_token";
  app_id?: string;
  path?: string;
  times?: number;
  status?: number;
  retry_after?: number;
  body?: "error" | "html" | "empty" | "truncated";
  delay_ms?: number;
  drop?: boolean;
  id_token?: "unknown_key" | "alg_none" | "hs256" | "wrong_iss" | "wrong_aud" | "missing_azp"
    | "wrong_azp" | "expired" | "wrong_nonce";
  expires_in?: number;
}

/** A fault in force, as the sandbox shows it. */
export interface Fault extends FaultSpec {
  id: number;
  remaining?: number | null;
}

export const faults: {
  /** Adds a fault; its id. */
  add(spec: FaultSpec, options?: Addresses): Promise<number>;
  /** The faults in force, oldest first. */
  list(options?: Addresses): Promise<Fault[]>;
  /** Removes one fault. */
  remove(id: number, options?: Addresses): Promise<void>;
  /** Removes every fault; how many there were. */
  clear(options?: Addresses): Promise<number>;
};

/** A request of the sandbox's log: never a header, body, secret or token. */
export interface LoggedRequest {
  id: number;
  at_ms: number;
  listener: "api" | "identity";
  method: string;
  path: string;
  query: string[];
  /** `null` when no answer went out (a dropped connection, or a client that went away). */
  status: number | null;
  duration_ms: number;
  app_id: string | null;
  endpoint: string | null;
  grant_type?: string | null;
  fault: number | null;
}

/** What `requests.since` selects. */
export interface RequestFilter {
  listener?: "api" | "identity";
  endpoint?: string;
  app_id?: string;
  path?: string;
  method?: string;
}

export const requests: {
  /** The id of the last request logged. */
  lastId(options?: Addresses): Promise<number>;
  /** The requests logged after `id`, oldest first. */
  since(id: number, filter?: RequestFilter, options?: Addresses): Promise<LoggedRequest[]>;
  /** Empties the log. */
  clear(options?: Addresses): Promise<void>;
};

/** A call of any other test route; its JSON answer. */
export function sandbox(method: string, path: string, body?: unknown, options?: Addresses): Promise<any>;
