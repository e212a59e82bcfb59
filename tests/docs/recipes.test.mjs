// docs/testing.md's recipes run as written. Every fenced block with `file=PATH` is written to a
// fresh folder outside the repository (as a user's project would hold it), beside the packed
// package in node_modules/fundraising-client and playwright-core; every block with
// `recipe=NAME` is a command run there, with this build's fundraising-sandbox and
// fundraising-companion first on PATH, and must succeed. A recipe that stops working fails
// the build, and so does a "Failures on purpose" section without a runnable recipe.
//
// Needs the npm package (`make pkg`, pkg/), the servers (`cargo build -p fundraising-sandbox
// -p fundraising-companion`) and e2e's playwright-core (scripts/ensure-tools.sh e2e).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const doc = readFileSync(join(root, "docs", "testing.md"), "utf8");
const binDir = process.env.FUNDRAISING_BIN_DIR ?? join(root, "target", "debug");
/** The longest a recipe may run. */
const RECIPE_MS = 180_000;

/** The fenced blocks of the page: info string and text, in order. */
function blocks(text) {
  return [...text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1].trim(), body: m[2] }));
}

/** `key=value` attributes of a block's info string. */
function attribute(info, key) {
  return info.split(/\s+/).find((word) => word.startsWith(`${key}=`))?.slice(key.length + 1);
}

const files = blocks(doc).filter((b) => attribute(b.info, "file"));
const recipes = blocks(doc)
  .filter((b) => attribute(b.info, "recipe"))
  .map((b) => ({ name: attribute(b.info, "recipe"), command: b.body.trim() }));

test("every section of Failures on purpose but the last has a recipe that runs", () => {
  const failures = doc.slice(doc.indexOf("## Failures on purpose"));
  const sections = failures.split(/^### /m).slice(1);
  const without = sections
    .filter((section) => !/^```sh recipe=/m.test(section))
    .map((section) => section.split("\n")[0]);
  // The app's section holds files; bad input needs no faults.
  assert.deepEqual(without, ["The app the browser recipes test", "Bad input"]);
  assert.ok(recipes.length >= 8, `${recipes.length} recipes`);
  const names = recipes.map((r) => r.name);
  assert.equal(new Set(names).size, names.length, `recipe names repeat: ${names}`);
});

let project;
before(() => {
  const needs = [
    [join(root, "pkg", "package.json"), "the npm package: make pkg"],
    [join(binDir, "fundraising-sandbox"), "the servers: cargo build -p fundraising-sandbox -p fundraising-companion"],
    [join(binDir, "fundraising-companion"), "the servers: cargo build -p fundraising-sandbox -p fundraising-companion"],
    [join(root, "e2e", "node_modules", "playwright-core"), "playwright-core: scripts/ensure-tools.sh e2e"],
  ];
  for (const [path, fix] of needs) assert.ok(existsSync(path), `${path} is missing (${fix})`);
  project = mkdtempSync(join(tmpdir(), "fundraising-recipes-"));
  for (const { info, body } of files) {
    const path = join(project, attribute(info, "file"));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
  }
  // As `npm install fundraising-client playwright-core` leaves them.
  mkdirSync(join(project, "node_modules"));
  symlinkSync(join(root, "pkg"), join(project, "node_modules", "fundraising-client"), "dir");
  symlinkSync(join(root, "e2e", "node_modules", "playwright-core"), join(project, "node_modules", "playwright-core"), "dir");
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-app", private: true, type: "module" }));
});
after(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** Runs a recipe's command in the project: its status and output. */
function run(command) {
  return new Promise((resolve) => {
    // The recipe's own `node --test` is a test run of its own, not a child of this one.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const child = spawn("bash", ["-euo", "pipefail", "-c", command], {
      cwd: project,
      env: { ...env, PATH: `${binDir}:${env.PATH}`, PWD: project, RUST_LOG: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => { output += chunk; });
    child.stderr.on("data", (chunk) => { output += chunk; });
    const timer = setTimeout(() => child.kill("SIGTERM"), RECIPE_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

for (const { name, command } of recipes) {
  test(`the recipe ${name} runs as written`, { timeout: RECIPE_MS + 10_000 }, async () => {
    const { code, signal, output } = await run(command);
    assert.equal(code, 0, `${command}\nended with ${code ?? signal}:\n${output}`);
    // The recipe's tests ran, and passed.
    const passed = Number(output.match(/^# pass (\d+)$/m)?.[1] ?? 0);
    assert.ok(passed > 0 && /^# fail 0$/m.test(output), `${command}\nran no passing test:\n${output}`);
  });
}
