// The demo page's client configuration. The page's own origin is the companion (it serves this
// site) and "/" is the registered home page; the sandbox addresses come from
// config/HOST_PORT.json (HOST and PORT of this page), which the runner writes
// (e2e/write-config.mjs), falling back to the default ports on this host. The file may name
// another companion (`companionUrl`), or none (`null`): the page then reads public data only and
// never asks a companion.

/** Default sandbox ports of `make demo` on the page's host. */
const DEFAULT_API_PORT = 8081;
const DEFAULT_IDENTITY_PORT = 8082;

/**
 * Resolves with {appId, baseUrl, authUrl, companionUrl, redirectUri, bff}; `bff` is true when
 * the companion serving the page runs in BFF mode (the file says so); `companionUrl` is null
 * when the file says there is none.
 */
export async function loadConfig() {
  const host = `${location.protocol}//${location.hostname}`;
  const config = {
    appId: "demo-app",
    baseUrl: `${host}:${DEFAULT_API_PORT}`,
    authUrl: `${host}:${DEFAULT_IDENTITY_PORT}`,
    companionUrl: location.origin,
    redirectUri: `${location.origin}/`,
    bff: false,
  };
  try {
    const response = await fetch(new URL(`config/${configFileName(location)}`, import.meta.url), { cache: "no-store" });
    const served = response.ok ? await response.json() : null;
    for (const key of ["appId", "baseUrl", "authUrl"]) {
      if (typeof served?.[key] === "string" && served[key] !== "") config[key] = served[key];
    }
    if (typeof served?.companionUrl === "string" && served.companionUrl !== "") config.companionUrl = served.companionUrl;
    if (served?.companionUrl === null) config.companionUrl = null;
    config.bff = served?.bff === true;
  } catch {
    // No file for this server (or not JSON): keep the defaults.
  }
  return config;
}

/** `HOST_PORT.json` for a location (e2e/write-config.mjs names the files the same way). */
export function configFileName({ protocol, hostname, port }) {
  return `${hostname}_${port || (protocol === "https:" ? "443" : "80")}.json`;
}
