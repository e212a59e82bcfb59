// docs/testing.md's recipes run as written. Every fenced block with `file=PATH` is written to a
// fresh folder outside the repository (as a user's project would hold it), beside
// fundraising-client, fundraising-sandbox (with its test kit, `fundraising-sandbox/testing`),
// playwright-core and @playwright/test in node_modules; every block with `recipe=NAME` is a
// command run there, with fundraising-sandbox and fundraising-companion first on PATH, and must
// succeed. A recipe that stops working fails the build, and so does a "Failures on purpose"
// section without a runnable recipe.
//
// With RECIPES_PACKS (a folder of packed npm packages: fundraising-client, fundraising-sandbox,
// fundraising-companion and their platform packages), the project installs those, and the
// servers are the packed ones (scripts/outside-tests.sh, which make test runs). Without it, for
// a quick run in the workspace: the npm package (`make pkg`, pkg/), the servers
// (`cargo build -p fundraising-sandbox -p fundraising-companion`), the sandbox's npm package
// as scripts/server-packages.mjs writes it, and e2e's playwright-core and @playwright/test
// (scripts/ensure-tools.sh e2e).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const doc = readFileSync(join(root, "docs", "testing.md"), "utf8");
const packs = process.env.RECIPES_PACKS;
let binDir = process.env.FUNDRAISING_BIN_DIR ?? join(root, "target", "debug");
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
  project = mkdtempSync(join(tmpdir(), "fundraising-recipes-"));
  for (const { info, body } of files) {
    const path = join(project, attribute(info, "file"));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-app", private: true, type: "module" }));
  const playwright = JSON.parse(readFileSync(join(root, "e2e", "package.json"), "utf8"));
  if (packs) {
    // As `npm install fundraising-client fundraising-sandbox fundraising-companion playwright-core
    // @playwright/test` leaves them, from the packed packages.
    const tarballs = readdirSync(packs).filter((f) => f.endsWith(".tgz")).map((f) => join(packs, f));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs,
      `playwright-core@${playwright.dependencies["playwright-core"]}`,
      `@playwright/test@${playwright.devDependencies["@playwright/test"]}`], { cwd: project, stdio: "inherit" });
    binDir = join(project, "node_modules", ".bin");
    return;
  }
  const needs = [
    [join(root, "pkg", "package.json"), "the npm package: make pkg"],
    [join(binDir, "fundraising-sandbox"), "the servers: cargo build -p fundraising-sandbox -p fundraising-companion"],
    [join(binDir, "fundraising-companion"), "the servers: cargo build -p fundraising-sandbox -p fundraising-companion"],
    [join(root, "e2e", "node_modules", "playwright-core"), "playwright-core: scripts/ensure-tools.sh e2e"],
    [join(root, "e2e", "node_modules", "@playwright", "test"), "@playwright/test: scripts/ensure-tools.sh e2e"],
  ];
  for (const [path, fix] of needs) assert.ok(existsSync(path), `${path} is missing (${fix})`);
  // As `npm install ...` leaves them, from the workspace.
  const servers = join(project, ".servers");
  execFileSync("node", [join(root, "scripts", "server-packages.mjs"), servers], { stdio: "ignore" });
  mkdirSync(join(project, "node_modules", "@playwright"), { recursive: true });
  symlinkSync(join(root, "pkg"), join(project, "node_modules", "fundraising-client"), "dir");
  symlinkSync(join(servers, "fundraising-sandbox"), join(project, "node_modules", "fundraising-sandbox"), "dir");
  for (const name of ["playwright-core", "playwright", "@playwright/test"]) {
    symlinkSync(join(root, "e2e", "node_modules", name), join(project, "node_modules", name), "dir");
  }
  mkdirSync(join(project, "node_modules", ".bin"));
  symlinkSync(join(root, "e2e", "node_modules", "@playwright", "test", "cli.js"), join(project, "node_modules", ".bin", "playwright"));
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
      env: { ...env, PATH: `${binDir}:${join(project, "node_modules", ".bin")}:${env.PATH}`, PWD: project, RUST_LOG: "warn" },
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
    // The recipe's tests ran, and passed: node's runner (`# pass N`, `# fail 0`), or Playwright
    // Test's (`N passed`, nothing failed).
    const passed = Number(output.match(/^# pass (\d+)$/m)?.[1] ?? output.match(/^\s*(\d+) passed\b/m)?.[1] ?? 0);
    const clean = /^# fail 0$/m.test(output) || !/^\s*\d+ (failed|flaky)\b/m.test(output) && !/^# fail/m.test(output);
    assert.ok(passed > 0 && clean, `${command}\nran no passing test:\n${output}`);
  });
}
