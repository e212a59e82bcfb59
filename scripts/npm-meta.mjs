// What every npm package of the release shares with the crates, read from Cargo.toml's
// [workspace.package] (one version for everything, docs/compatibility.md), and the helpers
// that write a package folder. Used by scripts/server-packages.mjs and
// scripts/widgets-package.mjs.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

/** version, license, repository and homepage of [workspace.package]. */
export function workspaceMeta() {
  const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
  const section = cargo.match(/^\[workspace\.package\]\n([\s\S]*?)(?=^\[)/m)?.[1] ?? "";
  const value = (key) => section.match(new RegExp(`^${key} = "([^"]*)"`, "m"))?.[1];
  const meta = { version: value("version"), license: value("license"), repository: value("repository"), homepage: value("homepage") };
  for (const [key, found] of Object.entries(meta)) {
    if (!found) throw new Error(`Cargo.toml's [workspace.package] gives no ${key}`);
  }
  return meta;
}

/** The manifest fields every published package carries. */
export function commonManifest(meta) {
  return {
    version: meta.version,
    license: meta.license,
    homepage: meta.homepage,
    repository: { type: "git", url: `git+${meta.repository}.git` },
  };
}

/** Empties `dir` and writes `manifest` as its package.json, with the licence beside it. */
export function startPackage(dir, manifest) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(root, "LICENSE"), join(dir, "LICENSE"));
}

/** Copies `from` to `dir/to`, making the folders; `mode` sets its permissions. */
export function put(dir, to, from, mode) {
  mkdirSync(dirname(join(dir, to)), { recursive: true });
  copyFileSync(from, join(dir, to));
  if (mode !== undefined) chmodSync(join(dir, to), mode);
}
