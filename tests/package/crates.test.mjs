// Every crate a user adds or installs is ready for crates.io: its metadata is complete, its path
// dependencies carry versions, it declares the workspace's one version and MSRV (no dependency
// needs a newer Rust), `cargo package --no-verify` succeeds for all six, and each packaged
// README links only to files of its package or to docs.rs, never to a placeholder host. The
// npm package carries the same version. scripts/outside-tests.sh then builds and uses them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
export const CRATES = [
  "fundraising-core-derive",
  "fundraising-core",
  "fundraising-client",
  "fundraising-serve",
  "fundraising-sandbox",
  "fundraising-companion",
  "fundraising-testing",
];
/** The component crates: workspaces of their own, packaged with the repository's crates
 * answering for crates.io (`--config patch...`, as scripts/outside-tests.sh does). */
export const COMPONENT_CRATES = { "fundraising-leptos": "components/leptos", "fundraising-dioxus": "components/dioxus" };
const REPO_PATCH = Object.entries({ "fundraising-client": ".", "fundraising-core": "core", "fundraising-core-derive": "core/derive", "fundraising-testing": "testing" })
  .flatMap(([name, dir]) => ["--config", `patch.crates-io.${name}.path="${join(root, dir)}"`]);

function metadata(deps = false) {
  const text = execFileSync("cargo", ["metadata", "--format-version", "1", ...(deps ? [] : ["--no-deps"])], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(text);
}

/** "1.85" or "1.85.0" as a comparable [major, minor, patch]. */
const rustVersion = (text) => text.split(".").map(Number).concat([0, 0]).slice(0, 3);
const older = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

test("the published crates carry crates.io metadata, one version and one MSRV", () => {
  const { packages } = metadata();
  const client = packages.find((p) => p.name === "fundraising-client");
  for (const name of CRATES) {
    const pkg = packages.find((p) => p.name === name);
    assert.ok(pkg, `${name} is not in the workspace`);
    assert.ok(pkg.description?.length > 20, `${name}: description`);
    assert.ok(pkg.license, `${name}: license`);
    assert.match(pkg.repository ?? "", /^https:\/\//, `${name}: repository`);
    assert.equal(pkg.documentation, `https://docs.rs/${name}`, `${name}: documentation`);
    assert.ok(pkg.keywords.length >= 1 && pkg.keywords.length <= 5, `${name}: 1 to 5 keywords`);
    assert.ok(pkg.categories.length >= 1, `${name}: categories`);
    assert.ok(pkg.readme, `${name}: readme`);
    assert.ok(existsSync(join(dirname(pkg.manifest_path), pkg.readme)), `${name}: readme ${pkg.readme} exists`);
    assert.ok(existsSync(join(dirname(pkg.manifest_path), "LICENSE")), `${name}: LICENSE beside the manifest`);
    assert.notEqual(pkg.publish?.length, 0, `${name} must not be publish = false`);
    assert.equal(pkg.version, client.version, `${name}: one version for every crate`);
    assert.equal(pkg.rust_version, client.rust_version, `${name}: one rust-version for every crate`);
    for (const dep of pkg.dependencies) {
      if (dep.path && dep.kind !== "dev") {
        assert.notEqual(dep.req, "*", `${name}: path dependency ${dep.name} needs a version`);
      }
    }
  }
  assert.deepEqual(client.metadata?.docs?.rs?.targets, ["wasm32-unknown-unknown"], "docs.rs builds for wasm32");
  const npm = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
  assert.equal(npm.version, client.version, "the npm package's version is the crates'");
  assert.match(readFileSync(join(root, "companion", "src", "routes", "health.rs"), "utf8"), /CARGO_PKG_VERSION/,
    "the companion reports its crate's version");
});

test("no dependency of a published crate needs a newer Rust than the declared rust-version", () => {
  const { packages, resolve } = metadata(true);
  const byId = new Map(packages.map((p) => [p.id, p]));
  const nodes = new Map(resolve.nodes.map((n) => [n.id, n]));
  const declared = rustVersion(packages.find((p) => p.name === "fundraising-client").rust_version);
  const needs = [];
  const seen = new Set();
  const queue = packages.filter((p) => CRATES.includes(p.name) && p.source === null).map((p) => p.id);
  while (queue.length > 0) {
    const id = queue.shift();
    if (seen.has(id)) continue;
    seen.add(id);
    const pkg = byId.get(id);
    if (pkg.rust_version && older(rustVersion(pkg.rust_version), declared) > 0) {
      needs.push(`${pkg.name} ${pkg.version} needs Rust ${pkg.rust_version}`);
    }
    for (const dep of nodes.get(id)?.deps ?? []) {
      // Normal and build dependencies: what a user's build compiles.
      if (dep.dep_kinds.some((kind) => kind.kind !== "dev")) queue.push(dep.pkg);
    }
  }
  assert.ok(seen.size > 50, `too few dependencies walked (${seen.size})`);
  assert.deepEqual(needs, [], `rust-version ${declared.join(".")} is below what dependencies need`);
});

/** Relative Markdown links of a README (outside fenced code), and its absolute ones. */
function links(text) {
  const prose = text.replace(/^```[\s\S]*?^```/gm, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

test("cargo package succeeds for each published crate, and each README links inside its package or to docs.rs", () => {
  const args = ["package", "--no-verify", ...CRATES.flatMap((name) => ["-p", name])];
  const result = spawnSync("cargo", args, { cwd: root, encoding: "utf8" });
  const output = `${result.stdout}${result.stderr}`;
  const dirty = /uncommitted|not yet committed/.test(output)
    ? "\n(cargo package refuses a working tree with uncommitted changes: commit first; CI's fresh clone is clean)"
    : "";
  assert.equal(result.status, 0, `cargo ${args.join(" ")} failed:\n${output}${dirty}`);
  assert.doesNotMatch(output, /warning: manifest has no/, "cargo package warns of missing metadata");

  const { packages } = metadata();
  const faults = [];
  for (const name of CRATES) {
    const pkg = packages.find((p) => p.name === name);
    const files = new Set(
      execFileSync("cargo", ["package", "--list", "--allow-dirty", "-p", name], { cwd: root, encoding: "utf8" })
        .split("\n")
        .filter(Boolean),
    );
    const readmeName = basename(pkg.readme);
    assert.ok(files.has(readmeName), `${name}: the packaged README ${readmeName}`);
    assert.ok(files.has("LICENSE"), `${name}: the packaged LICENSE`);
    const readme = readFileSync(join(dirname(pkg.manifest_path), pkg.readme), "utf8");
    assert.doesNotMatch(readme, /example\.invalid/, `${name}: README names the placeholder host`);
    for (const target of links(readme)) {
      if (target.startsWith("#")) continue;
      if (/^https:\/\//.test(target)) {
        if (!/^https:\/\/(docs\.rs|crates\.io)\//.test(target) && /example/.test(new URL(target).host)) {
          faults.push(`${name}: ${target} (a placeholder host)`);
        }
        continue;
      }
      const path = posix.normalize(target.split("#")[0]);
      if (!files.has(path)) faults.push(`${name}: ${target} (not in the package)`);
    }
  }
  assert.deepEqual(faults, []);
});

test("the component crates carry the same metadata, version and MSRV, package, and their READMEs link to docs.rs", () => {
  const { packages } = metadata();
  const client = packages.find((p) => p.name === "fundraising-client");
  const faults = [];
  for (const [name, dir] of Object.entries(COMPONENT_CRATES)) {
    const cwd = join(root, dir);
    const own = JSON.parse(execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1"], { cwd, encoding: "utf8" }));
    const pkg = own.packages.find((p) => p.name === name);
    assert.ok(pkg, `${name} in ${dir}`);
    assert.ok(pkg.description?.length > 20, `${name}: description`);
    assert.equal(pkg.license, client.license, `${name}: license`);
    assert.equal(pkg.repository, client.repository, `${name}: repository`);
    assert.equal(pkg.documentation, `https://docs.rs/${name}`, `${name}: documentation`);
    assert.ok(pkg.keywords.length >= 1 && pkg.keywords.length <= 5, `${name}: 1 to 5 keywords`);
    assert.ok(pkg.categories.length >= 1, `${name}: categories`);
    assert.equal(pkg.version, client.version, `${name}: one version for every crate`);
    assert.equal(pkg.rust_version, client.rust_version, `${name}: one rust-version for every crate`);
    assert.ok(existsSync(join(cwd, "LICENSE")), `${name}: LICENSE beside the manifest`);
    const target = join(root, "target", "package-components");
    const env = { ...process.env, CARGO_TARGET_DIR: target };
    const result = spawnSync("cargo", ["package", "--no-verify", ...REPO_PATCH], { cwd, env, encoding: "utf8" });
    assert.equal(result.status, 0, `cargo package of ${name} failed:\n${result.stdout}${result.stderr}`);
    assert.doesNotMatch(result.stderr, /warning: manifest has no/, `${name}: cargo package warns of missing metadata`);
    const files = new Set(
      execFileSync("cargo", ["package", "--list", "--allow-dirty", ...REPO_PATCH], { cwd, env, encoding: "utf8" }).split("\n").filter(Boolean),
    );
    assert.ok(files.has("README.md") && files.has("LICENSE"), `${name}: README.md and LICENSE packaged`);
    const readme = readFileSync(join(cwd, "README.md"), "utf8");
    assert.doesNotMatch(readme, /example\.invalid/, `${name}: README names the placeholder host`);
    for (const link of links(readme)) {
      if (/^https:\/\//.test(link)) continue;
      if (!files.has(posix.normalize(link.split("#")[0]))) faults.push(`${name}: ${link} (not in the package)`);
    }
  }
  assert.deepEqual(faults, []);
});
