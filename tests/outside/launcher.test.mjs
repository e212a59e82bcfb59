// The servers' npm launchers (`fundraising-sandbox`, `fundraising-companion`), packed, where no
// binary fits: installed without their optional platform packages they name the package that
// is missing and the `cargo install` fallback, and on a platform npm has no binary for they
// say so, never with a bare ENOENT. With the binary, a SIGTERM to the launcher stops the server
// it runs (none is left behind) and the launcher ends as the server did; so does a SIGTERM to
// the shell that started it, which passes nothing on (as under `npx`).
//
//   LAUNCHER_PACKS=DIR node --test tests/outside/launcher.test.mjs
//
// DIR holds the packed packages (scripts/outside-tests.sh makes them).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const packs = process.env.LAUNCHER_PACKS;
const SERVERS = ["fundraising-sandbox", "fundraising-companion"];
let work;
const pack = (name) => {
  const base = name.replace(/^@/, "").replace("/", "-"); // npm pack's file name
  const file = readdirSync(packs).find((f) => new RegExp(`^${base}-\\d+\\.\\d+\\.\\d+.*\\.tgz$`).test(f));
  assert.ok(file, `no packed ${name} in ${packs}`);
  return join(packs, file);
};
let version;

before(() => {
  assert.ok(packs, "LAUNCHER_PACKS is not set");
  work = mkdtempSync(join(tmpdir(), "fundraising-launcher-"));
  for (const folder of ["without", "with"]) {
    const dir = join(work, folder);
    spawnSync("mkdir", ["-p", dir]);
    writeFileSync(join(dir, "package.json"), '{ "name": "launcher-check", "private": true }\n');
  }
  // Without the platform packages, as `npm install --omit=optional` leaves them out.
  const without = spawnSync("npm", ["install", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error", ...SERVERS.map(pack)], {
    cwd: join(work, "without"),
    encoding: "utf8",
  });
  assert.equal(without.status, 0, without.stderr);
  // With this platform's.
  const platform = SERVERS.map((s) => pack(`@fundraising/${s.replace("fundraising-", "")}-${process.platform}-${process.arch}`));
  const withBinary = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...SERVERS.map(pack), ...platform], {
    cwd: join(work, "with"),
    encoding: "utf8",
  });
  assert.equal(withBinary.status, 0, withBinary.stderr);
  version = JSON.parse(spawnSync("npm", ["pkg", "get", "version"], { cwd: join(work, "with", "node_modules", "fundraising-sandbox"), encoding: "utf8" }).stdout);
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function launch(folder, server, args, env = {}) {
  return spawnSync(join(work, folder, "node_modules", ".bin", server), args, {
    encoding: "utf8",
    env: { ...process.env, ...env, FUNDRAISING_SANDBOX_BIN: "", FUNDRAISING_COMPANION_BIN: "" },
  });
}

test("installed without its platform package, each launcher names the package and the cargo install fallback", () => {
  for (const server of SERVERS) {
    const pkg = `@fundraising/${server.replace("fundraising-", "")}-${process.platform}-${process.arch}`;
    const run = launch("without", server, ["--version"]);
    assert.equal(run.status, 1, `${server}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, new RegExp(`${pkg}@${version}, which is not installed`));
    assert.ok(run.stderr.includes(`npm install --save-dev ${pkg}@${version}`), run.stderr);
    assert.ok(run.stderr.includes(`cargo install ${server} --version ${version} --locked`), run.stderr);
    assert.doesNotMatch(run.stderr, /ENOENT|at .*\.js:\d+/, "a bare error or a stack trace");
  }
});

test("on a platform npm has no binary for, each launcher says so and names the cargo install fallback", () => {
  const preload = join(work, "freebsd.cjs");
  writeFileSync(preload, 'Object.defineProperty(process, "platform", { value: "freebsd" });\n');
  for (const server of SERVERS) {
    const run = launch("with", server, ["--version"], { NODE_OPTIONS: `--require ${preload}` });
    assert.equal(run.status, 1, `${server}: ${run.stdout}${run.stderr}`);
    const pkg = `@fundraising/${server.replace("fundraising-", "")}-freebsd-${process.arch}`;
    assert.ok(run.stderr.includes(`no prebuilt binary for this platform (freebsd ${process.arch}): npm has no package ${pkg}`), run.stderr);
    assert.ok(run.stderr.includes(`cargo install ${server} --version ${version} --locked`), run.stderr);
    assert.doesNotMatch(run.stderr, /ENOENT|at .*\.js:\d+/);
  }
});

test("with its platform package, each launcher runs the binary, which reports the package's version", () => {
  for (const server of SERVERS) {
    const run = launch("with", server, ["--version"]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), `${server} ${version}`);
  }
});

test("a SIGTERM to the launcher stops the server it runs, and the launcher ends as the server did", async () => {
  const launcher = spawn(join(work, "with", "node_modules", ".bin", "fundraising-companion"), ["--demo", "--listen", "127.0.0.1:0"], {
    env: { ...process.env, FUNDRAISING_CLIENT_SECRET: "unused", FUNDRAISING_COMPANION_BIN: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  launcher.stdout.on("data", (d) => (out += d));
  launcher.stderr.on("data", (d) => (out += d));
  let exited = false;
  const ended = new Promise((resolve) => launcher.on("exit", (code, signal) => resolve({ code, signal }))).then((status) => {
    exited = true;
    return status;
  });
  const deadline = Date.now() + 30_000;
  while (!/listening on/.test(out)) {
    assert.ok(!exited && Date.now() < deadline, `the companion did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The server is the launcher's child.
  const children = spawnSync("ps", ["-o", "pid=", "--ppid", String(launcher.pid)], { encoding: "utf8" }).stdout.trim().split(/\s+/).map(Number);
  assert.equal(children.length, 1, `the launcher's children: ${children}`);
  launcher.kill("SIGTERM");
  const { code, signal } = await ended;
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, `the companion drains and exits 0 on SIGTERM:\n${out}`);
  const alive = spawnSync("kill", ["-0", String(children[0])]).status === 0;
  assert.equal(alive, false, "the server outlived its launcher");
});

test("when the process that started the launcher ends on SIGTERM without passing it on (npx's shell), the server stops too", async () => {
  const bin = join(work, "with", "node_modules", ".bin", "fundraising-companion");
  // `; :` keeps the shell from replacing itself with the launcher, as npx's shell does not.
  const shell = spawn("sh", ["-c", `"$0" --demo --listen 127.0.0.1:0; :`, bin], {
    env: { ...process.env, FUNDRAISING_CLIENT_SECRET: "unused", FUNDRAISING_COMPANION_BIN: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  shell.stdout.on("data", (d) => (out += d));
  shell.stderr.on("data", (d) => (out += d));
  const deadline = Date.now() + 30_000;
  while (!/listening on/.test(out)) {
    assert.ok(Date.now() < deadline, `the companion did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const childrenOf = (pid) => spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).stdout.trim().split(/\s+/).filter(Boolean).map(Number);
  const [launcher] = childrenOf(shell.pid);
  const [server] = childrenOf(launcher);
  assert.ok(launcher && server, `the shell's child ${launcher}, its child ${server}`);
  shell.kill("SIGTERM");
  const alive = (pid) => spawnSync("kill", ["-0", String(pid)]).status === 0;
  const stopBy = Date.now() + 15_000;
  while ((alive(server) || alive(launcher)) && Date.now() < stopBy) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(server), false, "the server outlived the launcher's parent");
  assert.equal(alive(launcher), false, "the launcher outlived its parent");
});
