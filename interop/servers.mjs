// Our servers for the interop tests: the sandbox and the companion binaries (built by
// `cargo build -p fundraising-sandbox -p fundraising-companion`, from target/debug or
// FUNDRAISING_BIN_DIR), each on 127.0.0.1 at a port it picks and announces on stdout, in a
// temporary folder, stopped by the caller (`await server.stop()`).

import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const binDir = process.env.FUNDRAISING_BIN_DIR ?? join(root, "target", "debug");

/** How long a server gets to announce its address. */
const START_WITHIN_MS = 30_000;

/**
 * Starts `binary` with `args` and `env`, and resolves with the values of the stdout lines
 * starting with each of `announcements` (in any order), plus `stop()`.
 */
function start(binary, args, env, announcements, dir) {
  const child = spawn(join(binDir, binary), args, {
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = [];
  child.stderr.on("data", (chunk) => log.push(chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    const found = {};
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${binary} did not announce its address within ${START_WITHIN_MS} ms:\n${log.join("")}`));
    }, START_WITHIN_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${join(binDir, binary)} (cargo build -p ${binary} first): ${error.message}`));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${binary} exited with ${code}:\n${log.join("")}`));
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      for (const prefix of announcements) {
        if (line.startsWith(prefix)) found[prefix] = line.slice(prefix.length).trim();
      }
      if (announcements.every((prefix) => prefix in found)) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ addresses: announcements.map((p) => found[p]), stop, log: () => log.join("") });
      }
    });
  });
}

/**
 * The sandbox with `configToml` as its configuration: `{ api, identity, stop }`. It signs with
 * the sandbox's test key (no key generation at start).
 */
export async function startSandbox(configToml) {
  const dir = mkdtempSync(join(tmpdir(), "fundraising-interop-sandbox-"));
  const data = join(dir, "data");
  const config = join(dir, "sandbox.toml");
  writeFileSync(config, configToml);
  mkdirSync(data);
  copyFileSync(join(root, "sandbox", "tests", "fixtures", "signing-key.pem"), join(data, "signing-key.pem"));
  const server = await start(
    "fundraising-sandbox",
    ["--api-listen", "127.0.0.1:0", "--identity-listen", "127.0.0.1:0", "--data-dir", data, "--config", config],
    {},
    ["sandbox api listening on ", "sandbox identity listening on "],
    dir,
  );
  const [api, identity] = server.addresses;
  return { api, identity, stop: server.stop, log: server.log };
}

/**
 * The companion for `appId` with `secret` (given as FUNDRAISING_CLIENT_SECRET, as in
 * production) against the identity server at `authUrl`: `{ url, stop }`. Its public origin is
 * its own address, the only origin allowed to call it.
 */
export async function startCompanion({ appId, secret, authUrl, extraArgs = [] }) {
  const dir = mkdtempSync(join(tmpdir(), "fundraising-interop-companion-"));
  const server = await start(
    "fundraising-companion",
    ["--listen", "127.0.0.1:0", "--app-id", appId, "--auth-url", authUrl, "--threads", "1", ...extraArgs],
    { FUNDRAISING_CLIENT_SECRET: secret },
    ["companion listening on "],
    dir,
  );
  return { url: server.addresses[0], stop: server.stop, log: server.log };
}
