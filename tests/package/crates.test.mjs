// The crates a Rust user adds (fundraising-client, fundraising-core and its derive) are ready
// for crates.io: their metadata is complete, their path dependencies carry versions, and
// `cargo package --no-verify` succeeds for each.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const CRATES = ["fundraising-core-derive", "fundraising-core", "fundraising-client"];

function metadata() {
  const text = execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(text).packages;
}

test("the published crates carry crates.io metadata", () => {
  const packages = metadata();
  for (const name of CRATES) {
    const pkg = packages.find((p) => p.name === name);
    assert.ok(pkg, `${name} is not in the workspace`);
    assert.ok(pkg.description?.length > 20, `${name}: description`);
    assert.ok(pkg.license, `${name}: license`);
    assert.match(pkg.repository ?? "", /^https:\/\//, `${name}: repository`);
    assert.ok(pkg.keywords.length >= 1 && pkg.keywords.length <= 5, `${name}: 1 to 5 keywords`);
    assert.ok(pkg.categories.length >= 1, `${name}: categories`);
    assert.ok(pkg.readme, `${name}: readme`);
    assert.ok(existsSync(join(dirname(pkg.manifest_path), pkg.readme)), `${name}: readme ${pkg.readme} exists`);
    assert.notEqual(pkg.publish?.length, 0, `${name} must not be publish = false`);
    for (const dep of pkg.dependencies) {
      if (dep.path && dep.kind !== "dev") {
        assert.notEqual(dep.req, "*", `${name}: path dependency ${dep.name} needs a version`);
      }
    }
  }
  const client = packages.find((p) => p.name === "fundraising-client");
  assert.deepEqual(client.metadata?.docs?.rs?.targets, ["wasm32-unknown-unknown"], "docs.rs builds for wasm32");
});

test("cargo package --no-verify succeeds for each published crate", () => {
  const args = ["package", "--no-verify", ...CRATES.flatMap((name) => ["-p", name])];
  const result = spawnSync("cargo", args, { cwd: root, encoding: "utf8" });
  const output = `${result.stdout}${result.stderr}`;
  const dirty = /uncommitted|not yet committed/.test(output)
    ? "\n(cargo package refuses a working tree with uncommitted changes: commit first; CI's fresh clone is clean)"
    : "";
  assert.equal(result.status, 0, `cargo ${args.join(" ")} failed:\n${output}${dirty}`);
  assert.doesNotMatch(output, /warning: manifest has no/, "cargo package warns of missing metadata");
});
