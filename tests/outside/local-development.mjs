// Follows docs/local-development.md's "With Vite" from an empty folder, as written: its shell
// commands (create-vite, the installs), then its files (every ```ts block whose first line
// names one), then `npm run build` (the template's tsc and vite build). The packages are not
// on npm yet, so the installs take the packed ones (PACKS) for their names. The dev loop itself
// is tests/outside/dev-loop.test.mjs's, in the folder this prints.
//
//   PACKS=DIR node tests/outside/local-development.mjs EMPTY_DIR
import { execSync } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const [dir] = process.argv.slice(2);
const packs = process.env.PACKS;
if (!dir || !packs) throw new Error("usage: PACKS=DIR node tests/outside/local-development.mjs EMPTY_DIR");

const doc = readFileSync(join(root, "docs", "local-development.md"), "utf8");
const section = doc.split(/^## /m).find((part) => part.startsWith("With Vite\n"));
if (!section) throw new Error('docs/local-development.md: no "## With Vite"');
const blocks = (lang) => [...section.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm"))].map((m) => m[1]);

/** The packed file standing in for an npm package name (npm pack's file names). */
function packed(name) {
  const base = name.replace(/^@/, "").replace("/", "-");
  const file = readdirSync(packs).find((f) => new RegExp(`^${base}-\\d+\\.\\d+\\.\\d+.*\\.tgz$`).test(f));
  if (!file) throw new Error(`no packed ${name} in ${packs}`);
  return join(packs, file);
}
const OURS = /^(fundraising-[a-z-]+)$/;

let cwd = dir;
const [setup] = blocks("sh");
for (const line of setup.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"))) {
  let command = line;
  if (line.startsWith("cd ")) {
    cwd = join(cwd, line.slice(3));
    continue;
  }
  if (line.startsWith("npm install")) {
    // Our packages by their packed files, and the servers' platform packages beside them, as
    // the registry would resolve their optional dependencies.
    const words = line.split(/\s+/).flatMap((word) => {
      if (!OURS.test(word)) return [word];
      const server = word.match(/^fundraising-(sandbox|companion)$/)?.[1];
      return server ? [packed(word), packed(`@fundraising/${server}-${process.platform}-${process.arch}`)] : [packed(word)];
    });
    command = [...words, "--no-audit", "--no-fund", "--loglevel=error"].join(" ");
  }
  if (line.startsWith("npm create")) command = `npm_config_yes=true ${line} </dev/null`;
  console.log(`$ ${command}`);
  execSync(command, { cwd, stdio: "inherit", shell: "/bin/sh" });
}

let files = 0;
for (const block of blocks("ts")) {
  const name = block.match(/^\/\/ (\S+\.ts)\n/)?.[1];
  if (!name) continue;
  writeFileSync(join(cwd, name), block);
  files++;
}
if (files < 3) throw new Error(`docs/local-development.md: expected vite.config.ts, src/env.d.ts and src/main.ts, found ${files}`);
execSync("npm run build", { cwd, stdio: "inherit" });
console.log(cwd);
