// wasm-bindgen's generated code in the package (`make pkg`): wrapped by our own entry module and
// read by parsers, never edited by pattern. Each of binaryen's short names reaches the glue (one
// left out fails the build, naming it), every build instantiates from its one module with the
// imports it gives the wasm, and no build script rewrites generated code with regular
// expressions, `replace`, split-join or sed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseModule, relativeReferences, walk } from "../../scripts/js-modules.mjs";
import { shortenGlue } from "../../scripts/short-names.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const name = "fundraising_client";

/** wasm-bindgen's output of a build as scripts/build-pkg.sh left it in target/pkg-stage/. */
function stage(build) {
  const dir = join(root, "target", "pkg-stage", build);
  assert.ok(existsSync(join(dir, "names.json")), `${dir} is missing: run make pkg`);
  const wasm = new WebAssembly.Module(readFileSync(join(dir, `${name}_bg.wasm`)));
  return {
    raw: readFileSync(join(dir, `${name}.glue.js`), "utf8"),
    short: readFileSync(join(dir, `${name}.js`), "utf8"),
    map: JSON.parse(readFileSync(join(dir, "names.json"), "utf8")),
    imports: WebAssembly.Module.imports(wasm),
    exports: new Set(WebAssembly.Module.exports(wasm).map((e) => e.name)),
  };
}

for (const build of ["full", "light", "widgets", "card"]) {
  test(`${build}: every short name reaches the glue, and one left out fails`, () => {
    const s = stage(build);
    assert.equal(shortenGlue(s.raw, s.map, s.imports, s.exports), s.short, "the glue as built");

    // An import the map leaves out is one the wasm asks for and the glue no longer provides.
    const [mod, oldImport, newImport] = s.map.imports.find(([m]) => m.endsWith("_bg.js"));
    const noImport = { ...s.map, imports: s.map.imports.filter((i) => i[1] !== oldImport || i[0] !== mod) };
    assert.throws(
      () => shortenGlue(s.raw, noImport, s.imports, s.exports),
      (e) => e.message.includes(`the wasm imports ${newImport}, which the glue does not provide`),
    );

    // An export the map leaves out is one the glue calls by a name the wasm no longer has.
    const called = s.map.exports.find(([old]) => s.raw.includes(`wasm.${old}(`));
    const noExport = { ...s.map, exports: s.map.exports.filter(([old]) => old !== called[0]) };
    assert.throws(
      () => shortenGlue(s.raw, noExport, s.imports, s.exports),
      (e) => e.message.includes(`wasm.${called[0]}, which binaryen's map does not name`),
    );

    // A renamed wasm (the names out of step with the glue) is refused too.
    const shifted = { ...s.map, exports: s.map.exports.map(([old, n]) => [old, n === called[1] ? `${n}_` : n]) };
    assert.throws(() => shortenGlue(s.raw, shifted, s.imports, s.exports), /does not export/);
  });

  test(`${build}: the package's one module instantiates its wasm (every import given)`, async () => {
    const dir = join(root, "pkg", build === "full" ? "." : build);
    const pkg = await import(`${pathToFileURL(join(dir, `${name}.js`)).href}?glue-test`);
    const bytes = readFileSync(join(dir, `${name}_bg.wasm`));
    // A missing import is a LinkError here; a missing export, a TypeError at the first call.
    pkg.initSync({ module: bytes });
    assert.equal(typeof pkg.newDonationReference(), "string");
    // The entry's own module loads nothing but the engine check and the wasm beside it.
    const loads = relativeReferences(readFileSync(join(dir, `${name}.js`), "utf8")).map((r) => r.specifier);
    assert.deepEqual(loads.sort(), ["./engine-check.js", `${name}_bg.wasm`]);
  });
}

/** The scripts scripts/build-pkg.sh runs with node, by name. */
function buildScripts() {
  const shell = readFileSync(join(root, "scripts", "build-pkg.sh"), "utf8");
  const found = new Set();
  for (const line of shell.split("\n")) {
    const words = line.trim().split(/\s+/);
    const at = words.indexOf("node");
    if (at >= 0 && words[at + 1]?.startsWith("scripts/")) found.add(words[at + 1].slice("scripts/".length));
  }
  return [...found].sort();
}

/** Scripts build-pkg.sh runs that never read generated code: why each may use patterns. */
const NOT_ON_GENERATED_CODE = {
  "package-meta.mjs": "writes package.json and the README from Cargo.toml and docs/*.md",
  "build-size.mjs": "measures files by name and bytes; edits nothing",
  "page-size.mjs": "measures a page's files (through build-size.mjs) by name and bytes; edits nothing",
};

test("no build script edits generated code by pattern", () => {
  const scripts = buildScripts();
  assert.ok(scripts.includes("short-names.mjs") && scripts.includes("bundle-pkg.mjs"), scripts.join(", "));
  // The scripts that read generated code, with the local modules they import.
  const checked = new Set();
  const queue = scripts.filter((s) => !(s in NOT_ON_GENERATED_CODE));
  while (queue.length > 0) {
    const file = queue.shift();
    if (checked.has(file)) continue;
    checked.add(file);
    const source = readFileSync(join(root, "scripts", file), "utf8");
    for (const { specifier } of relativeReferences(source, file)) {
      if (specifier.startsWith("./") && specifier.endsWith(".mjs")) queue.push(specifier.slice(2));
    }
    const found = [];
    walk(parseModule(source, file), (node) => {
      const line = source.slice(0, node.start).split("\n").length;
      if (node.type === "Literal" && node.regex) found.push(`${file}:${line}: a regular expression /${node.regex.pattern}/`);
      if ((node.type === "NewExpression" || node.type === "CallExpression") && node.callee.name === "RegExp") {
        found.push(`${file}:${line}: RegExp()`);
      }
      if (node.type === "CallExpression" && node.callee.type === "MemberExpression" && !node.callee.computed) {
        const method = node.callee.property.name;
        if (method === "replace" || method === "replaceAll") found.push(`${file}:${line}: .${method}()`);
        if (method === "join" && node.callee.object.type === "CallExpression" && node.callee.object.callee.property?.name === "split") {
          found.push(`${file}:${line}: .split().join()`);
        }
      }
    });
    assert.deepEqual(found, [], `${file} edits by pattern`);
  }
  assert.ok(checked.has("js-modules.mjs"), "the parser helpers are checked too");

  // The shell script itself: no stream editor, no appending to what it built.
  const shell = readFileSync(join(root, "scripts", "build-pkg.sh"), "utf8");
  const commands = shell.split("\n").filter((line) => !line.trim().startsWith("#"));
  const edits = commands.filter((line) => /(^|[\s|;(])(sed|awk|perl|ed)\s|>>|grep -v/.test(line));
  assert.deepEqual(edits, [], "build-pkg.sh edits files by pattern");
});
