// The sandbox's test kit as npm ships it: scripts/server-packages.mjs writes fundraising-sandbox
// with `testing/` and its subpath exports, and a strict TypeScript file that uses every export
// of `fundraising-sandbox/testing` and `fundraising-sandbox/testing/playwright` compiles against
// the declarations (skipLibCheck off), with @playwright/test (and Node's types) beside it as a user installs them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsc = join(root, "tools", "node_modules", "typescript", "bin", "tsc");

test("fundraising-sandbox/testing is packed with its declarations, and a strict TypeScript app compiles against them", () => {
  assert.ok(existsSync(tsc), "TypeScript is missing from tools/: run scripts/ensure-tools.sh wasm");
  const playwright = join(root, "e2e", "node_modules", "@playwright", "test");
  assert.ok(existsSync(playwright), "@playwright/test is missing from e2e/: run scripts/ensure-tools.sh e2e");
  const work = mkdtempSync(join(tmpdir(), "fundraising-testing-kit-"));
  try {
    execFileSync(process.execPath, [join(root, "scripts", "server-packages.mjs"), join(work, "out")], { stdio: "ignore" });
    const sandbox = join(work, "out", "fundraising-sandbox");
    const manifest = JSON.parse(readFileSync(join(sandbox, "package.json"), "utf8"));
    const packed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: sandbox, encoding: "utf8" }))[0];
    const files = packed.files.map((f) => f.path).sort();
    for (const target of Object.values(manifest.exports).flatMap((t) => (typeof t === "string" ? [t] : Object.values(t)))) {
      assert.ok(files.includes(target.replace(/^\.\//, "")), `${target} is exported but not packed (${files})`);
    }
    const app = join(work, "app");
    cpSync(join(root, "tests", "package", "testing-app"), app, { recursive: true });
    mkdirSync(join(app, "node_modules", "@playwright"), { recursive: true });
    mkdirSync(join(app, "node_modules", "@types"), { recursive: true });
    // A copy, as npm installs it: its declarations resolve @playwright/test beside it.
    cpSync(sandbox, join(app, "node_modules", "fundraising-sandbox"), { recursive: true });
    for (const name of ["@playwright/test", "playwright", "playwright-core"]) {
      symlinkSync(join(root, "e2e", "node_modules", name), join(app, "node_modules", name), "dir");
    }
    // Playwright's declarations name Node's types, as a Playwright project has them.
    symlinkSync(join(root, "e2e", "node_modules", "@types", "node"), join(app, "node_modules", "@types", "node"), "dir");
    const result = spawnSync(process.execPath, [tsc, "-p", join(app, "tsconfig.json")], { cwd: app, encoding: "utf8" });
    assert.equal(result.status, 0, `tsc (strict, skipLibCheck false) failed:\n${result.stdout}${result.stderr}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
