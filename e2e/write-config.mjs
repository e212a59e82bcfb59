// Writes the demo page's configuration (appId and the sandbox addresses) from the environment
// that scripts/with-servers.sh exports: FUNDRAISING_APP_ID, FUNDRAISING_COMPANION_URL,
// FUNDRAISING_BASE_URL, FUNDRAISING_AUTH_URL, and FUNDRAISING_BFF=1 for a companion in BFF mode
// (the page then passes `bff: true` to the client). The companion serves www/demo/, and a page
// served from http://HOST:PORT reads www/demo/config/HOST_PORT.json, so runs on different ports in
// one tree never see each other's file. No secret ever goes in it.
//
//   node e2e/write-config.mjs            (inside scripts/with-servers.sh, or with those variables set)
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Folder of the generated files (gitignored by www/demo/.gitignore). */
export const CONFIG_DIR = fileURLToPath(new URL("../www/demo/config/", import.meta.url));

/** Files older than this are left-overs of finished runs and are removed. */
const STALE_MS = 24 * 60 * 60 * 1000;

/** The configuration the page needs, from the environment; throws when an address is missing. */
export function configFromEnv(env = process.env) {
  const config = {
    appId: env.FUNDRAISING_APP_ID || "demo-app",
    companionUrl: env.FUNDRAISING_COMPANION_URL,
    baseUrl: env.FUNDRAISING_BASE_URL,
    authUrl: env.FUNDRAISING_AUTH_URL,
  };
  if (env.FUNDRAISING_BFF === "1") config.bff = true;
  for (const [key, name] of [
    ["companionUrl", "FUNDRAISING_COMPANION_URL"],
    ["baseUrl", "FUNDRAISING_BASE_URL"],
    ["authUrl", "FUNDRAISING_AUTH_URL"],
  ]) {
    if (!config[key]) throw new Error(`${name} is not set: run this inside scripts/with-servers.sh`);
    config[key] = config[key].replace(/\/+$/, "");
  }
  config.companionUrl = new URL(config.companionUrl).origin;
  return config;
}

/** Name of the file a page served from `origin` reads (www/demo/config.js and widget-page.js agree). */
export function configFileName(origin) {
  const url = new URL(origin);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname}_${port}.json`;
}

/**
 * Writes the file for FUNDRAISING_COMPANION_URL (atomically: test files run in parallel
 * processes while the companion serves it) unless it already holds the same, and removes
 * stale ones; returns the configuration.
 */
export function writeConfig(env = process.env) {
  const config = configFromEnv(env);
  mkdirSync(CONFIG_DIR, { recursive: true });
  const path = `${CONFIG_DIR}${configFileName(config.companionUrl)}`;
  const text = `${JSON.stringify(config, null, 2)}\n`;
  let current = null;
  try {
    current = readFileSync(path, "utf8");
  } catch {
    // Not written yet.
  }
  if (current !== text) {
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  }
  for (const name of readdirSync(CONFIG_DIR)) {
    const other = `${CONFIG_DIR}${name}`;
    try {
      if (other !== path && Date.now() - statSync(other).mtimeMs > STALE_MS) rmSync(other, { force: true });
    } catch {
      // Removed meanwhile by another run.
    }
  }
  return { ...config, path };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { path, ...config } = writeConfig();
  console.log(`wrote ${path}: ${JSON.stringify(config)}`);
}
