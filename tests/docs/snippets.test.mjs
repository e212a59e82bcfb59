// The TypeScript snippets of the README and docs/ compile as written, under `strict` (with
// exactOptionalPropertyTypes) and skipLibCheck off, against the built package (pkg/, `make
// pkg`): each section's ```ts blocks form one small project (a block whose first line is
// `// path/name.ts` is that file, so a section's src/env.d.ts declares what its src/main.ts
// uses). Config files for other tools (vite.config.ts) are left to the journeys that run them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsc = join(root, "tools", "node_modules", "typescript", "bin", "tsc");
const NOT_OURS = /^(vite|vitest|rollup|webpack)\.config\.[cm]?ts$/;

/** Every section of README.md and docs/*.md with ```ts blocks: { where, files: [[name, text]] }. */
function sections() {
  const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  const found = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const parts = text.split(/^## /m).map((part) => {
      const blocks = [...part.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]);
      const named = blocks.map((block, i) => [block.match(/^\/\/ (\S+\.ts)\n/)?.[1] ?? `snippet-${i + 1}.ts`, block]);
      return { heading: part.split("\n")[0], files: named.filter(([name]) => !NOT_OURS.test(name.split("/").pop())) };
    });
    // A page's declaration files (src/env.d.ts) hold for its every section.
    const declarations = parts.flatMap((part) => part.files.filter(([name]) => name.endsWith(".d.ts")));
    for (const { heading, files: own } of parts) {
      if (own.length === 0) continue;
      const files = [...own, ...declarations.filter(([name]) => !own.some(([mine]) => mine === name))];
      found.push({ where: `${file}, ${heading}`, files });
    }
  }
  return found;
}

test("every TypeScript snippet compiles as written under strict", () => {
  assert.ok(existsSync(join(root, "pkg", "package.json")), "pkg/ is missing: run make pkg first");
  assert.ok(existsSync(tsc), "TypeScript is missing from tools/: run scripts/ensure-tools.sh wasm");
  const all = sections();
  assert.ok(all.length >= 2, `too few sections with TypeScript: ${all.map((s) => s.where)}`);
  const failures = [];
  for (const { where, files } of all) {
    if (files.length === 0) continue;
    const dir = mkdtempSync(join(tmpdir(), "fundraising-snippet-"));
    try {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(join(root, "pkg"), join(dir, "node_modules", "fundraising-client"), "dir");
      writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
      for (const [name, text] of files) {
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), text.includes("import ") || text.includes("export ") || name.endsWith(".d.ts") ? text : `${text}\nexport {};\n`);
      }
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            exactOptionalPropertyTypes: true,
            noEmit: true,
            skipLibCheck: false,
            target: "es2022",
            module: "esnext",
            moduleResolution: "bundler",
            lib: ["es2022", "dom", "dom.iterable"],
            types: [],
          },
          include: files.map(([name]) => name),
        }),
      );
      const run = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
      if (run.status !== 0) failures.push(`${where}:\n${run.stdout}${run.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  assert.deepEqual(failures, []);
});
