// Gives the wasm's imports, exports and import modules one- or two-letter names, in the wasm
// (binaryen's --minify-imports-and-exports-and-modules) and in wasm-bindgen's JS glue (here).
//
// wasm-bindgen names every import `__wbg_<name>_<16 hex digits>` under the module
// "./fundraising_client_bg.js", and exports closure shims by their full Rust type: about 10 KB
// of names, a third of which no compressor can shrink (the hashes). Nothing reads these names
// but the glue, so both sides are renamed from binaryen's map, and the result is checked
// against the wasm itself: every import the wasm asks for is provided, every export the glue
// calls exists. Any surprise in the glue's shape (wasm-bindgen is pinned) fails the build.
//
//   node scripts/minify-names.mjs <wasm-opt> <dir> <name> [wasm-opt feature flags...]
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { execFileSync } from "node:child_process";

const [wasmOpt, dir, name, ...features] = process.argv.slice(2);
const wasmPath = `${dir}/${name}_bg.wasm`;
const jsPath = `${dir}/${name}.js`;
const dtsPath = `${dir}/${name}.d.ts`;
const wasmDtsPath = `${dir}/${name}_bg.wasm.d.ts`;

const fail = (message) => {
  console.error(`error: minify-names: ${message}`);
  process.exit(1);
};
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Replaces `pattern` (whose group 1, if any, is kept in front) by `replacement`, and checks
// the count when `times` is given: any other count means the glue is not what this script knows.
function replaceCounted(text, pattern, replacement, times, what) {
  let count = 0;
  const result = text.replace(pattern, (_, kept) => {
    count += 1;
    return (typeof kept === "string" ? kept : "") + replacement;
  });
  if (times !== undefined && count !== times) fail(`${what}: expected ${times} match(es), found ${count}`);
  return result;
}

const map = JSON.parse(
  execFileSync(wasmOpt, [wasmPath, ...features, "--minify-imports-and-exports-and-modules", "-o", `${wasmPath}.min`], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
  }),
);
const module = new WebAssembly.Module(readFileSync(`${wasmPath}.min`));
const imports = WebAssembly.Module.imports(module);
const exports = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
const modules = new Set(imports.map((i) => i.module));
if (modules.size !== 1) fail(`expected one import module after minifying, found ${[...modules].join(", ")}`);
const [newModule] = modules;

let js = readFileSync(jsPath, "utf8");
let dts = readFileSync(dtsPath, "utf8");
let wasmDts = readFileSync(wasmDtsPath, "utf8");

// Exports: every `wasm.<name>` of the glue, and their declarations (InitOutput, _bg.wasm.d.ts).
for (const [old, renamed] of map.exports) {
  js = replaceCounted(js, new RegExp(`\\bwasm\\.${escape(old)}\\b`, "g"), `wasm.${renamed}`, undefined, old);
  dts = replaceCounted(dts, new RegExp(`(\\breadonly )${escape(old)}:`, "g"), `${renamed}:`, undefined, old);
  wasmDts = replaceCounted(wasmDts, new RegExp(`(\\bexport const )${escape(old)}:`, "g"), `${renamed}:`, undefined, old);
}

// The import object: `import0` holds the glue's own functions, by their wasm names; other
// modules (the snippets imported whole) are listed in the object `__wbg_get_imports` returns.
const ret = /return \{\s*__proto__: null,\s*((?:"[^"]+": import\d+,\s*)+)\};/;
const found = js.match(ret);
if (!found) fail("the import object of __wbg_get_imports was not found");
const moduleVariables = new Map([...found[1].matchAll(/"([^"]+)": (import\d+)/g)].map((m) => [m[1], m[2]]));
const own = "./fundraising_client_bg.js";
if (moduleVariables.get(own) !== "import0") fail(`expected ${own} to be import0`);

const fromSnippets = [];
for (const [mod, old, renamed] of map.imports) {
  if (mod === own) {
    js = replaceCounted(js, new RegExp(`^(\\s+)${escape(old)}:`, "m"), `${renamed}:`, 1, old);
  } else {
    const variable = moduleVariables.get(mod);
    if (!variable) fail(`no module object for ${mod}`);
    fromSnippets.push(`import0.${renamed} = ${variable}.${old};`);
  }
}
js = js.replace(
  ret,
  () => `${fromSnippets.join("\n    ")}\n    return { __proto__: null, ${JSON.stringify(newModule)}: import0 };`,
);

// Check against the wasm: every import is provided, and the glue calls no missing export.
for (const { name: imported } of imports) {
  if (!new RegExp(`(^\\s+|import0\\.)${escape(imported)}(:| =)`, "m").test(js)) fail(`import ${imported} is not provided`);
}
for (const [, called] of js.matchAll(/\bwasm\.([A-Za-z_$][\w$]*)/g)) {
  if (!exports.has(called)) fail(`the glue calls wasm.${called}, which the wasm does not export`);
}

writeFileSync(jsPath, js);
writeFileSync(dtsPath, dts);
writeFileSync(wasmDtsPath, wasmDts);
renameSync(`${wasmPath}.min`, wasmPath);
