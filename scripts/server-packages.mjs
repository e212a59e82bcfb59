// Writes the servers' npm packages, the way esbuild and Biome ship native binaries:
//   OUT/fundraising-sandbox, OUT/fundraising-companion: the launchers (npm/launcher/launcher.js
//     as their `bin`), each with one optional dependency per platform of PLATFORMS;
//   OUT/@fundraising/<server>-<os>-<cpu>: per platform built, its binary, with `os` and `cpu`
//     so that npm installs only the one that fits.
// Every package carries the workspace's version; a binary that runs here must report it.
//
//   node scripts/server-packages.mjs OUT [TARGET=BIN_DIR ...]
//
// BIN_DIR holds fundraising-sandbox and fundraising-companion (.exe on Windows) built for the
// Rust target TARGET (scripts/release-servers.sh).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commonManifest, put, root, startPackage, workspaceMeta } from "./npm-meta.mjs";

/** Every platform the release builds: npm's `os` and `cpu`, and the Rust target. The Linux
 * binaries are static (musl), so they run on glibc and musl systems alike (Alpine,
 * distroless). */
export const PLATFORMS = [
  { os: "linux", cpu: "x64", target: "x86_64-unknown-linux-musl" },
  { os: "linux", cpu: "arm64", target: "aarch64-unknown-linux-musl" },
  { os: "darwin", cpu: "x64", target: "x86_64-apple-darwin" },
  { os: "darwin", cpu: "arm64", target: "aarch64-apple-darwin" },
  { os: "win32", cpu: "x64", target: "x86_64-pc-windows-msvc" },
];

export const SERVERS = {
  "fundraising-sandbox":
    "An offline emulator of the fundraising service (identity server and resource API, with demo data) and `fundraising-sandbox exec`, which runs your tests or dev server against it; a prebuilt binary, no Rust needed",
  "fundraising-companion":
    "The fundraising service's companion server: keeps the application's secret, redeems the sign-in code and keeps the refresh token out of JavaScript; a prebuilt binary, no Rust needed",
};

/** The sandbox's test kit, the subpath exports `fundraising-sandbox/testing` (Node: a user signed
 * in, faults, the request log) and `fundraising-sandbox/testing/playwright` (a Playwright Test
 * fixture; @playwright/test is an optional peer). Node 20 or newer (`fetch`, `getSetCookie`). */
export const TESTING = {
  "fundraising-sandbox": {
    files: ["index.mjs", "index.d.mts", "playwright.mjs", "playwright.d.mts"],
    manifest: {
      exports: {
        "./testing": { types: "./testing/index.d.mts", default: "./testing/index.mjs" },
        "./testing/playwright": { types: "./testing/playwright.d.mts", default: "./testing/playwright.mjs" },
        "./package.json": "./package.json",
      },
      peerDependencies: { "@playwright/test": ">=1.40" },
      peerDependenciesMeta: { "@playwright/test": { optional: true } },
    },
  },
};

const platformName = (server, { os, cpu }) => `@fundraising/${server.replace(/^fundraising-/, "")}-${os}-${cpu}`;

function main() {
  const [out, ...binaries] = process.argv.slice(2);
  if (!out) {
    console.error("usage: node scripts/server-packages.mjs OUT [TARGET=BIN_DIR ...]");
    process.exit(2);
  }
  const meta = workspaceMeta();
  const common = commonManifest(meta);
  mkdirSync(out, { recursive: true });
  const written = [];

  for (const [server, description] of Object.entries(SERVERS)) {
    const dir = join(out, server);
    startPackage(dir, {
      name: server,
      ...common,
      description,
      keywords: ["fundraising", "oauth", "openid-connect", server.replace(/^fundraising-/, "")],
      bin: { [server]: `bin/${server}.js` },
      files: ["bin/", ...(TESTING[server] ? ["testing/"] : [])],
      ...(TESTING[server]?.manifest ?? {}),
      engines: { node: ">=18" },
      optionalDependencies: Object.fromEntries(PLATFORMS.map((p) => [platformName(server, p), meta.version])),
    });
    put(dir, `bin/${server}.js`, join(root, "npm", "launcher", "launcher.js"), 0o755);
    put(dir, "README.md", join(root, "npm", server, "README.md"));
    for (const file of TESTING[server]?.files ?? []) put(dir, `testing/${file}`, join(root, "npm", server, "testing", file));
    written.push(dir);
  }

  for (const pair of binaries) {
    const [target, binDir] = pair.split("=");
    const platform = PLATFORMS.find((p) => p.target === target);
    if (!platform || !binDir) throw new Error(`${pair}: expected TARGET=BIN_DIR with a target of PLATFORMS`);
    const exe = platform.os === "win32" ? ".exe" : "";
    for (const server of Object.keys(SERVERS)) {
      const binary = join(binDir, `${server}${exe}`);
      if (!existsSync(binary)) throw new Error(`${binary} is missing`);
      if (platform.os === process.platform && platform.cpu === process.arch) {
        const reported = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
        if (reported !== `${server} ${meta.version}`) throw new Error(`${binary} reports "${reported}", not ${meta.version}`);
      }
      const name = platformName(server, platform);
      const dir = join(out, name);
      startPackage(dir, {
        name,
        ...common,
        description: `The ${server} binary for ${platform.os} ${platform.cpu}; install ${server}, which picks it`,
        os: [platform.os],
        cpu: [platform.cpu],
        files: ["bin/"],
        preferUnplugged: true,
      });
      put(dir, `bin/${server}${exe}`, binary, 0o755);
      writeFileSync(
        join(dir, "README.md"),
        `# ${name}\n\nThe \`${server}\` binary for ${platform.os} ${platform.cpu} (built for \`${platform.target}\`).\n` +
          `Install [\`${server}\`](https://www.npmjs.com/package/${server}) instead: it depends on this package on the\n` +
          `platforms it fits, and runs the binary.\n`,
      );
      written.push(dir);
    }
  }
  for (const dir of written) console.log(dir);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
