// Writes a Rust app made of the docs alone into the folder given: the [dependencies],
// [dev-dependencies] and .cargo/config.toml of docs/rust.md's "Set-up" with the README's Rust
// quick start's dependencies added, its Leptos components as the library, and the browser tests
// of docs/rust.md's "Testing your app offline" (each ```rust block whose first line is
// `// tests/NAME.rs`).
// scripts/outside-tests.sh then runs `cargo test` in it under `fundraising-sandbox exec`
// against the packaged crates: a snippet that uses a crate the set-up does not list fails
// there, and so does a set-up that runs no test in the browser.
//
//   node tests/outside/quickstart.mjs DIR
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const out = process.argv[2];
if (!out) throw new Error("usage: node tests/outside/quickstart.mjs DIR");

/** The fenced blocks of `lang` in the `## heading` section of a Markdown file. */
function blocks(file, heading, lang) {
  const text = readFileSync(join(root, file), "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`${file}: no section "## ${heading}"`);
  const found = [...section.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm"))].map((m) => m[1]);
  if (found.length === 0) throw new Error(`${file}, ${heading}: no ${lang} block`);
  return found;
}

const [dependencies, config] = blocks("docs/rust.md", "Set-up", "toml");
if (!/^\[dependencies\]/m.test(dependencies) || !/^\[target\.wasm32-unknown-unknown\]/m.test(config ?? "")) {
  throw new Error("docs/rust.md's Set-up: expected the [dependencies] block, then .cargo/config.toml's");
}
const [quickStart] = blocks("README.md", "Rust quick start", "rust");
const [quickStartDependencies] = blocks("README.md", "Rust quick start", "toml");

mkdirSync(join(out, "src"), { recursive: true });
mkdirSync(join(out, ".cargo"), { recursive: true });
writeFileSync(
  join(out, "Cargo.toml"),
  `[package]\nname = "quickstart"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[workspace]\n\n` +
    dependencies.replace(/^\[dependencies\]\n/m, `[dependencies]\n${quickStartDependencies}`),
);
writeFileSync(join(out, ".cargo", "config.toml"), config);
let tests = 0;
for (const block of blocks("docs/rust.md", "Testing your app offline", "rust")) {
  const name = block.match(/^\/\/ (tests\/\w+\.rs)\n/)?.[1];
  if (!name) continue;
  mkdirSync(join(out, "tests"), { recursive: true });
  writeFileSync(join(out, name), block);
  tests++;
}
if (tests === 0) throw new Error("docs/rust.md's Testing your app offline: no `// tests/NAME.rs` block");
writeFileSync(
  join(out, "src", "lib.rs"),
  `//! The README's Rust quick start, as written.\n#![allow(unused)]\n\n${quickStart}`,
);
console.log(`quickstart: ${out}`);
