#!/usr/bin/env node
// The launcher of an npm package holding a server as a prebuilt binary, one optional
// dependency per platform (as esbuild and Biome ship theirs): it finds this platform's binary
// and runs it with the same arguments, terminal and environment, passes on the signals it gets
// (SIGINT, SIGTERM, SIGHUP) and ends as the binary ended (its exit status, or its signal).
// When the process that started it ends without passing a signal on (`npx` runs it under a
// shell that dies on SIGTERM and forwards nothing), it stops the binary as on SIGTERM.
//
// The package's name (`fundraising-sandbox`) names the binary and, with the platform, the
// package that holds it (`@fundraising/sandbox-linux-x64`, in `optionalDependencies`).
// FUNDRAISING_SANDBOX_BIN (FUNDRAISING_COMPANION_BIN) names another binary, e.g. one from
// `cargo install`. Where no binary can be had, it says which package is missing and how to get
// the server another way; it never fails with a bare ENOENT.
"use strict";

const { spawn } = require("node:child_process");
const { dirname, join } = require("node:path");
const manifest = require("../package.json");

const NAME = manifest.name; // fundraising-sandbox
const VERSION = manifest.version;
const EXE = process.platform === "win32" ? ".exe" : "";
const CARGO_INSTALL = `cargo install ${NAME} --version ${VERSION} --locked`;

/** The environment variable that names a binary of the user's own. */
const variable = (name) => `${name.toUpperCase().replace(/-/g, "_")}_BIN`;

/** The package holding `name`'s binary for this platform. */
const platformPackage = (name) => `@fundraising/${name.replace(/^fundraising-/, "")}-${process.platform}-${process.arch}`;

/** The path of `name`'s binary in its platform package, if that package is installed. */
function installedBinary(name, pkg) {
  try {
    const manifestPath = require.resolve(`${pkg}/package.json`, { paths: [__dirname, process.cwd()] });
    return join(dirname(manifestPath), "bin", `${name}${EXE}`);
  } catch {
    return null;
  }
}

function fail(lines) {
  process.stderr.write(`${NAME}: ${lines.join("\n")}\n`);
  process.exit(1);
}

function binary() {
  const own = process.env[variable(NAME)];
  if (own) return own;
  const pkg = platformPackage(NAME);
  const published = Object.prototype.hasOwnProperty.call(manifest.optionalDependencies ?? {}, pkg);
  const where = `${process.platform} ${process.arch}`;
  if (!published) {
    fail([
      `no prebuilt binary for this platform (${where}): npm has no package ${pkg}.`,
      "Build it with Rust's package manager instead (https://rustup.rs):",
      `  ${CARGO_INSTALL}`,
      `then run \`${NAME}\` from ~/.cargo/bin, or set ${variable(NAME)} to its path.`,
    ]);
  }
  const found = installedBinary(NAME, pkg);
  if (!found) {
    fail([
      `the binary for this platform (${where}) comes in the package ${pkg}@${VERSION}, which is not installed.`,
      "npm leaves optional dependencies out with --omit=optional (or --no-optional), and a lock file",
      "made on another platform may lack it. Install it:",
      `  npm install --save-dev ${pkg}@${VERSION}`,
      `or build the server with Rust instead (${CARGO_INSTALL}) and set ${variable(NAME)} to its path.`,
    ]);
  }
  return found;
}

const program = binary();
const env = { ...process.env };
// The sandbox's `exec --companion` starts the companion: give it the companion's binary itself
// when its package is installed, rather than its launcher, so that no Node process stands
// between them.
if (NAME === "fundraising-sandbox" && !env.FUNDRAISING_COMPANION_BIN) {
  const found = installedBinary("fundraising-companion", platformPackage("fundraising-companion"));
  if (found) env.FUNDRAISING_COMPANION_BIN = found;
}

const child = spawn(program, process.argv.slice(2), { stdio: "inherit", env });
const forward = (signal) => () => child.kill(signal);
const handlers = ["SIGINT", "SIGTERM", "SIGHUP"].map((signal) => [signal, forward(signal)]);
for (const [signal, handler] of handlers) process.on(signal, handler);
// Once the parent is gone, the launcher has another one: the binary gets SIGTERM, as the
// parent's own SIGTERM would have given it.
const parent = process.ppid;
const orphaned = process.platform === "win32" ? null : setInterval(() => {
  if (process.ppid !== parent) {
    clearInterval(orphaned);
    child.kill("SIGTERM");
  }
}, 250);
if (orphaned) orphaned.unref();

child.on("error", (error) => {
  const why = error.code === "ENOENT" ? "it does not exist" : error.code === "EACCES" ? "it is not executable" : error.message;
  fail([`cannot run ${program}: ${why}.`, `Reinstall the package, or build the server with Rust (${CARGO_INSTALL}).`]);
});
child.on("exit", (code, signal) => {
  if (orphaned) clearInterval(orphaned);
  for (const [name, handler] of handlers) process.off(name, handler);
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
