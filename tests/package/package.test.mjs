// The npm package as a user receives it: `npm pack` of pkg/ (`make pkg` builds it), installed
// into a small strict TypeScript app (tests/package/app/) that must compile with
// `tsc --strict --noEmit` and skipLibCheck off; the packed file list; the manifest; the
// declarations' doc comments; and the API reference's error table against the codes the
// declarations name.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const pkgDir = join(root, "pkg");
const appDir = fileURLToPath(new URL("app/", import.meta.url));
const tsc = join(root, "tools", "node_modules", "typescript", "bin", "tsc");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

let work; // temporary folder: the tarball and the app that installs it
let installed; // the package as installed in the app's node_modules

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.error) throw result.error;
  return result;
}

before(() => {
  assert.ok(existsSync(join(pkgDir, "package.json")), "pkg/ is missing: run `make pkg` first");
  assert.ok(existsSync(tsc), "TypeScript is missing from tools/: run scripts/ensure-tools.sh wasm");
  work = mkdtempSync(join(tmpdir(), "fundraising-package-"));
  const packed = JSON.parse(
    execFileSync(npm, ["pack", "--json", "--pack-destination", work], { cwd: pkgDir, encoding: "utf8" }),
  );
  const app = join(work, "app");
  cpSync(appDir, app, { recursive: true });
  const install = run(
    npm,
    ["install", "--offline", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts", join(work, packed[0].filename)],
    app,
  );
  assert.equal(install.status, 0, `npm install of the tarball failed:\n${install.stdout}${install.stderr}`);
  installed = join(app, "node_modules", "fundraising-client");
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Relative module specifiers a JS file loads: imports, re-exports, dynamic imports, and
 * `new URL("...", import.meta.url)` (the wasm). Works on terser's output too. */
function references(source) {
  const found = new Set();
  const imports = [
    /\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of imports) {
    for (const match of source.matchAll(pattern)) {
      if (match[1].startsWith(".")) found.add(match[1]);
    }
  }
  for (const match of source.matchAll(/new URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)/g)) {
    if (!match[1].includes(":")) found.add(match[1]);
  }
  return [...found];
}

/** What a user needs, found from the manifest alone: the manifest and the README, every
 * target of `exports` (and `main`, `module`, `types`), everything those JS files load, and
 * every guide the README links to (and those guides link to). */
function neededFiles(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const needed = new Set(["package.json", "README.md"]);
  const queue = [];
  const add = (path) => {
    const clean = posix.normalize(path.replace(/^\.\//, ""));
    if (!needed.has(clean)) {
      needed.add(clean);
      queue.push(clean);
    }
  };
  const targets = (value) =>
    typeof value === "string" ? [value] : Object.values(value ?? {}).flatMap(targets);
  for (const target of [manifest.main, manifest.module, manifest.types, ...targets(manifest.exports)]) {
    if (target) add(target);
  }
  queue.push("README.md");
  while (queue.length > 0) {
    const file = queue.shift();
    const source = readFileSync(join(dir, file), "utf8");
    if (file.endsWith(".js")) {
      for (const spec of references(source)) add(posix.join(posix.dirname(file), spec));
    } else if (file.endsWith(".md")) {
      for (const target of markdownLinks(source)) add(posix.join(posix.dirname(file), target.split("#")[0]));
    }
  }
  return [...needed].sort();
}

/** The relative file links of a Markdown text (no anchors alone, no addresses). */
function markdownLinks(text) {
  return [...text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z]+:|^#/i.test(target));
}

test("npm pack --dry-run lists exactly what a user needs", () => {
  const [dry] = JSON.parse(
    execFileSync(npm, ["pack", "--dry-run", "--json"], { cwd: pkgDir, encoding: "utf8" }),
  );
  const listed = dry.files.map((file) => file.path).sort();
  const needed = neededFiles(pkgDir);
  assert.deepEqual(listed, needed, "packed files (actual) against the files the entry points load (expected)");
  for (const file of needed) assert.ok(existsSync(join(pkgDir, file)), `${file} is named but missing`);
});

test("the manifest carries what a registry page and resolvers need", () => {
  const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  assert.equal(manifest.name, "fundraising-client");
  assert.match(manifest.version, /^\d+\.\d+\.\d+/);
  assert.ok(manifest.description.length > 20, "description");
  assert.ok(manifest.license, "license");
  assert.match(manifest.homepage, /^https:\/\//, "homepage");
  assert.match(manifest.repository?.url ?? "", /^git\+https:\/\/.+\.git$/, "repository");
  assert.ok(Array.isArray(manifest.keywords) && manifest.keywords.length >= 3, "keywords");
  assert.equal(manifest.type, "module");
  const main = manifest.exports["."];
  assert.equal(Object.keys(main)[0], "types", "`types` must come first in the export conditions");
  assert.ok(existsSync(join(installed, main.types)), "the declarations of exports['.']");
  assert.ok(existsSync(join(installed, main.default)), "the entry of exports['.']");
  assert.equal(manifest.exports["./fundraising_client_bg.wasm"], "./fundraising_client_bg.wasm");
  assert.ok(existsSync(join(installed, "fundraising_client_bg.wasm")));
});

test("the packed declarations compile in a strict TypeScript app (every method and option)", () => {
  const app = join(work, "app");
  for (const config of ["tsconfig.json", "tsconfig.bundler.json"]) {
    const result = run(process.execPath, [tsc, "-p", join(app, config)], app);
    assert.equal(
      result.status,
      0,
      `tsc -p ${config} (strict, skipLibCheck false) failed:\n${result.stdout}${result.stderr}`,
    );
  }
});

test("the declarations' doc comments speak JavaScript, not Rust", () => {
  const dts = readFileSync(join(installed, "fundraising_client.d.ts"), "utf8");
  const comments = [...dts.matchAll(/\/\*\*[\s\S]*?\*\//g)].map((m) => m[0]);
  const rust = [
    [/crate::|super::|self::/, "a Rust path"],
    [/\[`[^`]*`\]/, "a rustdoc link"],
    [/\bNone\b|\bSome\(/, "Rust's Option"],
    [/\b(?:Option|Vec|Result|Box|Rc)</, "a Rust type"],
    [/&str\b|\bf64\b|\bu32\b|\bi32\b/, "a Rust primitive"],
  ];
  const faults = [];
  for (const comment of comments) {
    for (const [pattern, what] of rust) {
      if (pattern.test(comment)) faults.push(`${what}: ${comment.replace(/\s+/g, " ").slice(0, 160)}`);
    }
  }
  assert.deepEqual(faults, [], "doc comments in fundraising_client.d.ts");
});

/** The `code` column of the table under `## Errors` in docs/api.md, with the row's cells. */
function errorTable() {
  const api = readFileSync(join(root, "docs", "api.md"), "utf8");
  const section = api.split(/^## /m).find((part) => part.startsWith("Errors"));
  assert.ok(section, "docs/api.md has no `## Errors` section");
  const rows = new Map();
  for (const line of section.split("\n")) {
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim());
    const code = cells[0]?.match(/^`([a-z_]+)`$/);
    if (code) rows.set(code[1], cells);
  }
  return rows;
}

/** The codes the companion answers with (`companion/src/error.rs`, its `code()`). */
function companionCodes() {
  const source = readFileSync(join(root, "companion", "src", "error.rs"), "utf8");
  const body = source.slice(source.indexOf("pub fn code("));
  const match = body.slice(0, body.indexOf("\n    }\n")).matchAll(/=> "([a-z_]+)"/g);
  return new Set([...match].map((m) => m[1]));
}

test("the API reference's error table has every FundraisingErrorCode, with what to do", () => {
  const dts = readFileSync(join(installed, "fundraising_client.d.ts"), "utf8");
  const union = dts.match(/export type FundraisingErrorCode =([^;]+);/);
  assert.ok(union, "FundraisingErrorCode is not declared");
  const declared = [...union[1].matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
  assert.ok(declared.length >= 10, `too few codes read from the declarations: ${declared}`);
  const table = errorTable();
  const missing = declared.filter((code) => !table.has(code));
  assert.deepEqual(missing, [], "codes of FundraisingErrorCode missing from docs/api.md's error table");
  for (const [code, cells] of table) {
    assert.equal(cells.length, 4, `row ${code}: | code | status | what it means | what to do |`);
    assert.ok(cells[2].length > 10, `row ${code}: say what it means`);
    assert.ok(cells[3].length > 10, `row ${code}: say what the caller should do`);
  }
  const companion = companionCodes();
  assert.ok(companion.has("session_expired"), "the companion's codes were not found");
  const unknown = [...table.keys()].filter((code) => !declared.includes(code) && !companion.has(code));
  assert.deepEqual(unknown, [], "codes in the table that neither the package nor the companion has");
});

test("the npm README is the API reference", () => {
  const readme = readFileSync(join(installed, "README.md"), "utf8");
  const api = readFileSync(join(root, "docs", "api.md"), "utf8");
  for (const heading of api.match(/^##+ .+$/gm)) {
    assert.ok(readme.includes(`\n${heading}\n`), `npm README lacks the section ${heading}`);
  }
  assert.doesNotMatch(readme, /example\.invalid/, "the npm README names the placeholder host");
  for (const target of markdownLinks(readme)) {
    const path = posix.normalize(target.split("#")[0]);
    assert.ok(existsSync(join(installed, path)), `the npm README links ${target}, which the package lacks`);
  }
});
