// One release, one version: every crate, the npm package, the servers' launchers and their
// platform packages (the versions they pin), the widgets' package, the servers' `--version`,
// the changelog's newest section and every version the docs pin (Cargo dependencies, CDN
// addresses, installs) agree with [workspace.package] version in Cargo.toml. A docs pin is a
// requirement: "0.2" or "0.2.0" for 0.2.0 (at 0.x the minor is the breaking part, so a pin
// names at least major.minor).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
const version = cargo.match(/^\[workspace\.package\][\s\S]*?^version = "([^"]+)"/m)?.[1];
const PACKAGES = /fundraising-(?:client|core|core-derive|serve|sandbox|companion|widgets|testing|leptos|dioxus)|@fundraising\/[a-z0-9-]+/;
/** The crates that are workspaces of their own (their framework's dependencies stay out of the main one). */
export const OWN_WORKSPACES = ["components/leptos", "components/dioxus"];

/** Whether the requirement `pin` ("0.2", "0.2.0", "^0.2", "=0.2.0") takes this release. */
function takes(pin) {
  const bare = pin.replace(/^[=^~]/, "");
  const parts = bare.split(".");
  const ours = version.split(".");
  const named = ours[0] === "0" ? 2 : 1; // at 0.x a pin names the minor too
  return parts.length >= named && parts.every((part, i) => part === ours[i]);
}

test("every crate and the npm package carry the workspace's version", () => {
  assert.match(version ?? "", /^\d+\.\d+\.\d+$/, "Cargo.toml's [workspace.package] version");
  const { packages } = JSON.parse(execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1"], { cwd: root, encoding: "utf8" }));
  const published = packages.filter((p) => p.publish === null || p.publish.length > 0);
  assert.ok(published.length >= 6, "the published crates");
  for (const pkg of published) assert.equal(pkg.version, version, `crate ${pkg.name}`);
  // Path dependencies between them name the same version.
  for (const pkg of published) {
    for (const dep of pkg.dependencies.filter((d) => d.path && d.kind !== "dev")) {
      assert.ok(takes(dep.req), `${pkg.name} depends on ${dep.name} ${dep.req}`);
    }
  }
  for (const dir of OWN_WORKSPACES) {
    const manifest = join(root, dir, "Cargo.toml");
    const own = JSON.parse(execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1", "--manifest-path", manifest], { cwd: root, encoding: "utf8" }));
    for (const pkg of own.packages) {
      assert.equal(pkg.version, version, `crate ${pkg.name} (${dir})`);
      for (const dep of pkg.dependencies.filter((d) => d.path)) {
        assert.ok(takes(dep.req), `${pkg.name} depends on ${dep.name} ${dep.req}`);
      }
    }
  }
  const npm = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
  assert.equal(npm.version, version, "pkg/package.json (make pkg)");
});

test("the servers' launchers, the platform packages they pin and the widgets' package carry it", () => {
  const out = mkdtempSync(join(tmpdir(), "fundraising-versions-"));
  try {
    execFileSync(process.execPath, [join(root, "scripts", "server-packages.mjs"), out], { encoding: "utf8" });
    for (const server of ["fundraising-sandbox", "fundraising-companion"]) {
      const manifest = JSON.parse(readFileSync(join(out, server, "package.json"), "utf8"));
      assert.equal(manifest.version, version, `${server}'s launcher`);
      const pins = Object.entries(manifest.optionalDependencies);
      assert.equal(pins.length, 5, `${server}: one package per platform`);
      for (const [name, pin] of pins) assert.equal(pin, version, `${server} pins ${name}`);
      // The launcher reads its version from its manifest: it writes none of its own.
      const launcher = readFileSync(join(out, server, "bin", `${server}.js`), "utf8");
      assert.doesNotMatch(launcher, /\b\d+\.\d+\.\d+\b/, `${server}'s launcher names a version`);
    }
    if (existsSync(join(root, "dist", "widgets", "widget.js"))) {
      execFileSync(process.execPath, [join(root, "scripts", "widgets-package.mjs"), out], { encoding: "utf8" });
      assert.equal(JSON.parse(readFileSync(join(out, "fundraising-widgets", "package.json"), "utf8")).version, version, "fundraising-widgets");
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("the servers report it with --version", () => {
  for (const server of ["fundraising-sandbox", "fundraising-companion"]) {
    const binary = join(root, "target", "debug", server);
    assert.ok(existsSync(binary), `${binary} is missing: cargo build -p ${server}`);
    assert.equal(execFileSync(binary, ["--version"], { encoding: "utf8" }).trim(), `${server} ${version}`);
  }
});

test("the changelog's newest section is this version", () => {
  const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");
  assert.equal(changelog.match(/^## (\S+)/m)?.[1], version);
});

/** The Markdown files users read: the README, docs/, the examples' and the npm packages'. */
function markdownFiles() {
  const files = ["README.md", "CHANGELOG.md"];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "target" || entry.name === "dist") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) files.push(path);
    }
  };
  for (const dir of ["docs", "examples", "npm", "companion", "sandbox", "serve", "core", "components", "testing"]) walk(dir);
  return files;
}

test("every version the docs pin takes this release", () => {
  const pins = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(join(root, file), "utf8");
    const changelogHistory = file === "CHANGELOG.md";
    const found = [
      // Cargo: fundraising-client = "0.2", fundraising-client = { version = "0.2", ... }
      ...text.matchAll(new RegExp(`^(${PACKAGES.source}) = (?:"([^"]+)"|\\{[^}\\n]*\\bversion = "([^"]+)")`, "gm")),
      // npm and CDNs: fundraising-widgets@0.2, @fundraising/sandbox-linux-x64@0.2.0
      ...text.matchAll(new RegExp(`(${PACKAGES.source})@(\\d[\\w.-]*\\d)`, "g")),
      // cargo install fundraising-sandbox --version 0.2.0
      ...text.matchAll(new RegExp(`cargo install (${PACKAGES.source})[^\\n]*?--version[ =]([\\d.]+)`, "g")),
    ];
    for (const match of found) {
      const pin = match[2] ?? match[3];
      if (changelogHistory) continue; // the changelog names older releases on purpose
      pins.push(`${relative(root, join(root, file))}: ${match[1]} ${pin}`);
      assert.ok(takes(pin), `${file} pins ${match[1]} ${pin}, which does not take ${version}`);
    }
  }
  assert.ok(pins.length >= 5, `too few pins found:\n${pins.join("\n")}`);
  // The companion's version in docs/compatibility.md's /healthz example.
  const compatibility = readFileSync(join(root, "docs", "compatibility.md"), "utf8");
  assert.ok(compatibility.includes(`"version":"${version}"`), "docs/compatibility.md's /healthz answer");
});
