// The README and docs/ hold together: every relative link reaches a file of the repository,
// and every #anchor a heading of its target (GitHub's heading ids); the README stays a short
// first page with its sections in the order a newcomer needs them; no file names a tracker
// number; the brands example shows partners the CSS it really uses; and docs/performance.md's
// figures are bench/REPORT.md's, as bench/figures.py writes them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

function markdownFiles() {
  const docs = join(root, "docs");
  const files = [
    join(root, "README.md"),
    join(root, "CHANGELOG.md"),
    join(root, "bench", "REPORT.md"),
    join(root, "sandbox", "README.md"),
    join(root, "companion", "README.md"),
    join(root, "serve", "README.md"),
    join(root, "examples", "vite", "README.md"),
  ];
  for (const name of readdirSync(docs)) if (name.endsWith(".md")) files.push(join(docs, name));
  return files;
}

/** The text outside fenced code blocks and inline code. */
function prose(text) {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's id of a heading: lower case, punctuation dropped, spaces as hyphens, repeats
 * numbered. */
function anchors(text) {
  const seen = new Map();
  const ids = new Set();
  for (const match of text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = match[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of text.matchAll(/<a (?:name|id)="([^"]+)"/g)) ids.add(match[1]);
  return ids;
}

test("every relative link and anchor in the README and docs/ resolves", () => {
  const broken = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(file, "utf8");
    for (const match of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1];
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split("#");
      const resolved = path === "" ? file : join(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)}: ${target}`;
      if (!resolved.startsWith(root)) {
        broken.push(`${where} (outside the repository)`);
      } else if (!existsSync(resolved)) {
        broken.push(`${where} (no such file)`);
      } else if (anchor && statSync(resolved).isFile() && resolved.endsWith(".md")) {
        if (!anchors(readFileSync(resolved, "utf8")).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("the README is a short first page, its sections in a newcomer's order", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const lines = readme.split("\n").length;
  assert.ok(lines <= 180, `README.md has ${lines} lines; keep it to what a user needs first and move the rest into docs/`);
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1].toLowerCase());
  const order = ["install", "quick start", "rust quick start", "widgets", "test and deploy", "working on", "documentation"];
  let at = -1;
  for (const word of order) {
    const index = headings.findIndex((heading, i) => i > at && heading.includes(word));
    assert.ok(index > at, `README: no \`## ...${word}...\` section after the previous one (sections: ${headings.join(" / ")})`);
    at = index;
  }
  for (const name of readdirSync(join(root, "docs"))) {
    if (name.endsWith(".md")) assert.ok(readme.includes(`docs/${name}`), `README does not link docs/${name}`);
  }
  // Maintainers' material lives in docs/development.md.
  for (const word of ["apt", "geckodriver", "Xvfb", "WebKitGTK"]) {
    assert.ok(!readme.includes(word), `README mentions ${word}: that belongs in docs/development.md`);
  }
});

test("the repository has a licence, a changelog and a stated MSRV, and the docs say which versions go together", () => {
  assert.match(readFileSync(join(root, "LICENSE"), "utf8"), /^MIT License/);
  const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
  // The changelog's newest section is the version every manifest carries (a release's
  // changes sit under its own number, with its breaking changes and their migration).
  const version = cargo.match(/^\[workspace\.package\][\s\S]*?^version = "([^"]+)"/m)?.[1];
  const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");
  assert.equal(changelog.match(/^## (\S+)/m)?.[1], version, "CHANGELOG.md's newest section is not the workspace's version");
  const msrv = cargo.match(/^rust-version = "([0-9.]+)"/m)?.[1];
  assert.ok(msrv, "Cargo.toml's [workspace.package] states no rust-version");
  const compatibility = readFileSync(join(root, "docs", "compatibility.md"), "utf8");
  assert.ok(compatibility.includes(`Rust ${msrv}`), `docs/compatibility.md does not state Rust ${msrv}`);
  assert.ok(readFileSync(join(root, "docs", "rust.md"), "utf8").includes(`Rust ${msrv}`), `docs/rust.md does not state Rust ${msrv}`);
  const wasmBindgen = cargo.match(/^wasm-bindgen = "([^"]+)"/m)?.[1];
  assert.match(wasmBindgen ?? "", /^\d/, "wasm-bindgen is pinned exactly (=) again; docs/rust.md explains a minimum");
  assert.ok(compatibility.includes(`wasm-bindgen ${wasmBindgen}`), `docs/compatibility.md does not state wasm-bindgen ${wasmBindgen}`);
});

test("Mermaid diagrams hold no ';' in a message (Mermaid ends a statement there)", () => {
  const faults = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(file, "utf8");
    for (const block of text.matchAll(/^```mermaid\n([\s\S]*?)^```/gm)) {
      for (const line of block[1].split("\n")) if (line.includes(";")) faults.push(`${relative(root, file)}: ${line.trim()}`);
    }
  }
  assert.deepEqual(faults, []);
});

test("the Rust snippets of the README and docs/ print with the console, not println!", () => {
  // On wasm32-unknown-unknown println! prints nothing.
  const faults = [];
  for (const file of markdownFiles()) {
    for (const block of readFileSync(file, "utf8").matchAll(/^```rust\n([\s\S]*?)^```/gm)) {
      if (/\bprintln!/.test(block[1])) faults.push(relative(root, file));
    }
  }
  assert.deepEqual(faults, []);
});

test("no tracker numbers in the code, docs, reports, scripts and test headers", () => {
  // Names and comments say what a thing guards, not which ticket asked for it.
  const files = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((file) => file && !/package-lock\.json$|\.lock$/.test(file));
  const found = [];
  for (const file of files) {
    const path = join(root, file);
    if (!existsSync(path) || statSync(path).size > 4 * 1024 * 1024) continue;
    const text = readFileSync(path, "utf8");
    for (const match of text.matchAll(/issues? [0-9]+/gi)) found.push(`${file}: ${match[0]}`);
  }
  assert.deepEqual(found, []);
});

test("www/demo/brands.html shows each partner's rules exactly as www/demo/brands.css has them", () => {
  const page = readFileSync(join(root, "www", "demo", "brands.html"), "utf8");
  const css = readFileSync(join(root, "www", "demo", "brands.css"), "utf8");
  const shown = page.match(/<h2 id="source-heading">[^<]*<\/h2>\s*<pre>([\s\S]*?)<\/pre>/)?.[1];
  assert.ok(shown, "brands.html: no <pre> under the source heading");
  const text = shown.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  // Top-level rules on the card: a one-line rule, or a block up to its closing brace.
  const rules = (source) => [...source.matchAll(/^\S[^\n{]*fundraising-campaign[^\n{]*\{(?:[^\n}]*\}|[\s\S]*?^\})/gm)].map((m) => m[0]);
  assert.ok(rules(css).length >= 4, "brands.css: the partners' rules were not found");
  assert.deepEqual(rules(text), rules(css));
});

test("docs/performance.md's figures are bench/REPORT.md's rows, as bench/figures.py writes them", () => {
  let failure = null;
  try {
    execFileSync("python3", [join(root, "bench", "figures.py"), "--check"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    failure = error.stderr || String(error);
  }
  assert.equal(failure, null);
});
