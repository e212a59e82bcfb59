// Writes www/config.json, the demo page's sandbox addresses, from the environment that
// scripts/with-servers.sh exports (FUNDRAISING_APP_ID, FUNDRAISING_COMPANION_URL,
// FUNDRAISING_BASE_URL, FUNDRAISING_AUTH_URL).
// The companion serves www/, so the page reads it at /config.json. No secret ever goes in it.
//
//   node e2e/write-config.mjs            (inside scripts/with-servers.sh, or with those variables set)
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Path of the generated file (gitignored by www/.gitignore). */
export const CONFIG_PATH = fileURLToPath(new URL("../www/config.json", import.meta.url));

/**
 * The configuration the page needs, from the environment; throws when an address is missing.
 * `companionUrl` says which server it was written for: a page served from another origin (say
 * `make demo` after a test run on other ports) ignores it.
 */
export function configFromEnv(env = process.env) {
  const config = {
    appId: env.FUNDRAISING_APP_ID || "demo-app",
    companionUrl: env.FUNDRAISING_COMPANION_URL,
    baseUrl: env.FUNDRAISING_BASE_URL,
    authUrl: env.FUNDRAISING_AUTH_URL,
  };
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

/**
 * Writes www/config.json (atomically: test files run in parallel processes and the companion
 * may be serving it) unless it already holds the same; returns the configuration.
 */
export function writeConfig(env = process.env) {
  const config = configFromEnv(env);
  const text = `${JSON.stringify(config, null, 2)}\n`;
  let current = null;
  try {
    current = readFileSync(CONFIG_PATH, "utf8");
  } catch {
    // Not written yet.
  }
  if (current !== text) {
    const temporary = `${CONFIG_PATH}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, CONFIG_PATH);
  }
  return config;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const config = writeConfig();
  console.log(`wrote ${CONFIG_PATH}: ${JSON.stringify(config)}`);
}
