// Gives the wasm's imports, exports and import modules one- or two-letter names: in the wasm by
// binaryen (--minify-imports-and-exports-and-modules, which prints the map of old to new names),
// and in wasm-bindgen's JS glue and declarations from that map, through their parsers (acorn
// for the glue, TypeScript's for the declarations). Nothing is matched by pattern.
//
// wasm-bindgen names every import `__wbg_<name>_<16 hex digits>` and exports closure shims by
// their full Rust type: about 4.5 KB gzip of names in the full build that no compressor can
// shrink. Nothing reads these names but the glue.
//
// The glue is checked against the wasm itself: every name of the map is applied where the glue
// has it, every import the wasm asks for is provided, every export the glue calls exists. A
// glue of another shape (a wasm-bindgen upgrade) fails the build, naming what it did not find.
//
//   node scripts/short-names.mjs <wasm-opt> <dir> <name> [wasm-opt feature flags...]
//
// In <dir> (wasm-bindgen's output): <name>_bg.wasm and <name>.js are rewritten, <name>.d.ts's
// `InitOutput` takes the new names (and `unknown` for wasm-bindgen's `any`); names.json keeps
// the map and <name>.glue.js the glue as wasm-bindgen wrote it (tests/package/glue.test.mjs).
import { copyFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { applyEdits, isIdentifier, parseModule, walk } from "./js-modules.mjs";

/** A property key or member name as written in the glue: bare when it can be. */
const key = (name) => (isIdentifier(name) ? name : JSON.stringify(name));

/** The name a property key stands for (`a`, `"a"`), or null for a computed one. */
const keyName = (property) =>
  property.computed ? null : property.key.type === "Identifier" ? property.key.name : String(property.key.value);

/**
 * The glue with the map's names: `exports` as [old, new] pairs, `imports` as [module, old, new]
 * triples, every import module becoming `module`. `wasmImports` and `wasmExports` are the
 * minified wasm's own lists, which the result is checked against. Throws when the glue is not of
 * the shape this knows, or when a name is left out.
 */
export function shortenGlue(glue, { exports, imports, module }, wasmImports, wasmExports) {
  const tree = parseModule(glue, "the glue");
  const edits = [];
  const fail = (message) => {
    throw new Error(`short names: ${message}`);
  };

  // The import object: `__wbg_get_imports` builds `import0` (the glue's own functions, by their
  // wasm names) and returns one object per import module; modules the glue imports whole (a
  // snippet's functions the wasm calls directly) are namespace imports.
  let getImports = null;
  walk(tree, (node) => {
    if (node.type === "FunctionDeclaration" && node.id?.name === "__wbg_get_imports") getImports = node;
  });
  if (!getImports) fail("no function __wbg_get_imports in the glue");
  const objects = new Map(); // variable -> ObjectExpression declared in __wbg_get_imports
  let returned = null;
  for (const statement of getImports.body.body) {
    if (statement.type === "VariableDeclaration") {
      for (const d of statement.declarations) {
        if (d.init?.type === "ObjectExpression") objects.set(d.id.name, d.init);
      }
    } else if (statement.type === "ReturnStatement" && statement.argument?.type === "ObjectExpression") {
      returned = statement.argument;
    }
  }
  if (!returned) fail("__wbg_get_imports returns no object literal");
  const moduleVariables = new Map();
  for (const property of returned.properties) {
    const name = keyName(property);
    if (name === "__proto__") continue;
    if (property.value.type !== "Identifier") fail(`the import module ${name} is not a variable`);
    moduleVariables.set(name, property.value.name);
  }
  const namespaces = new Set();
  walk(tree, (node) => {
    if (node.type === "ImportNamespaceSpecifier") namespaces.add(node.local.name);
  });

  // The object every import goes into: the one that holds the glue's own functions.
  const ownVariables = [...moduleVariables.values()].filter((v) => objects.has(v));
  if (ownVariables.length !== 1) fail(`expected one import object of the glue's own, found ${ownVariables.length}`);
  const [own] = ownVariables;
  const ownObject = objects.get(own);
  const ownProperties = new Map(ownObject.properties.map((p) => [keyName(p), p]));

  const provided = new Set();
  const added = [];
  for (const [mod, old, renamed] of imports) {
    const variable = moduleVariables.get(mod);
    if (!variable) fail(`the wasm imports ${mod}, which __wbg_get_imports does not provide`);
    if (variable === own) {
      const property = ownProperties.get(old);
      if (!property) fail(`import ${old} of ${mod} is not in the import object`);
      edits.push({ start: property.key.start, end: property.key.end, text: key(renamed) });
    } else if (namespaces.has(variable)) {
      added.push(`${key(renamed)}: ${variable}[${JSON.stringify(old)}]`);
    } else {
      fail(`the import module ${mod} is neither the glue's object nor a namespace import`);
    }
    provided.add(renamed);
  }
  // The snippets' functions join the one object; the wasm has one import module now.
  if (added.length > 0) {
    // Right after the last property (before its trailing comma, if it has one).
    const last = ownObject.properties.at(-1);
    edits.push({ start: last.end, end: last.end, text: `,\n        ${added.join(",\n        ")}` });
  }
  edits.push({
    start: returned.start,
    end: returned.end,
    text: `{ __proto__: null, ${JSON.stringify(module)}: ${own} }`,
  });

  // Exports: every `wasm.<name>` (the instance's exports, in the module's one `wasm` variable).
  const renamedExports = new Map(exports);
  const declaredWasm = [];
  walk(tree, (node) => {
    if (node.type === "VariableDeclarator" && node.id.type === "Identifier" && node.id.name === "wasm") {
      declaredWasm.push(node);
    }
    if ((node.type === "FunctionDeclaration" || node.type === "FunctionExpression" || node.type === "ArrowFunctionExpression")) {
      for (const param of node.params) {
        if (param.type === "Identifier" && param.name === "wasm") fail("a function's parameter shadows `wasm`");
      }
    }
    if (node.type !== "MemberExpression" || node.object.type !== "Identifier" || node.object.name !== "wasm") return;
    if (node.computed) fail("the glue reads an export of `wasm` by a computed name");
    const old = node.property.name;
    const renamed = renamedExports.get(old);
    if (renamed === undefined) fail(`the glue calls wasm.${old}, which binaryen's map does not name`);
    if (!wasmExports.has(renamed)) fail(`wasm.${old} is ${renamed}, which the wasm does not export`);
    edits.push({
      start: node.start,
      end: node.end,
      text: isIdentifier(renamed) ? `wasm.${renamed}` : `wasm[${JSON.stringify(renamed)}]`,
    });
  });
  if (declaredWasm.length !== 1) fail(`expected one variable \`wasm\`, found ${declaredWasm.length}`);

  // Every import the wasm asks for is provided, under the one module.
  for (const { module: mod, name } of wasmImports) {
    if (mod !== module) fail(`the wasm imports from ${mod}, not the one module ${module}`);
    if (!provided.has(name)) fail(`the wasm imports ${name}, which the glue does not provide`);
  }
  return applyEdits(glue, edits);
}

/** The declarations with the map's export names in `InitOutput`, and `unknown` for its `any`. */
export function shortenDeclarations(dts, exports) {
  const require = createRequire(fileURLToPath(new URL("../tools/package.json", import.meta.url)));
  const ts = require("typescript");
  const file = ts.createSourceFile("glue.d.ts", dts, ts.ScriptTarget.Latest, true);
  const renamed = new Map(exports);
  const edits = [];
  const init = file.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === "InitOutput");
  if (!init) throw new Error("short names: no InitOutput in the declarations");
  for (const member of init.members) {
    if (!ts.isPropertySignature(member)) continue;
    const name = member.name.getText(file);
    const to = renamed.get(name);
    if (to === undefined) throw new Error(`short names: InitOutput.${name} is not in binaryen's map`);
    edits.push({ start: member.name.getStart(file), end: member.name.end, text: key(to) });
    const visit = (node) => {
      if (node.kind === ts.SyntaxKind.AnyKeyword) edits.push({ start: node.getStart(file), end: node.end, text: "unknown" });
      ts.forEachChild(node, visit);
    };
    if (member.type) visit(member.type);
  }
  return applyEdits(dts, edits);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [wasmOpt, dir, name, ...features] = process.argv.slice(2);
  const wasmPath = `${dir}/${name}_bg.wasm`;
  const map = JSON.parse(
    execFileSync(wasmOpt, [wasmPath, ...features, "--minify-imports-and-exports-and-modules", "-o", `${wasmPath}.min`], {
      encoding: "utf8",
      maxBuffer: 1 << 24,
    }),
  );
  const wasm = new WebAssembly.Module(readFileSync(`${wasmPath}.min`));
  const wasmImports = WebAssembly.Module.imports(wasm);
  const wasmExports = new Set(WebAssembly.Module.exports(wasm).map((e) => e.name));
  const modules = new Set(wasmImports.map((i) => i.module));
  if (modules.size !== 1) {
    console.error(`error: short names: expected one import module after minifying, found ${[...modules].join(", ")}`);
    process.exit(1);
  }
  const [module] = modules;
  try {
    const glue = readFileSync(`${dir}/${name}.js`, "utf8");
    const shortGlue = shortenGlue(glue, { exports: map.exports, imports: map.imports, module }, wasmImports, wasmExports);
    const dts = shortenDeclarations(readFileSync(`${dir}/${name}.d.ts`, "utf8"), map.exports);
    copyFileSync(`${dir}/${name}.js`, `${dir}/${name}.glue.js`);
    writeFileSync(`${dir}/names.json`, `${JSON.stringify({ ...map, module }, null, 1)}\n`);
    writeFileSync(`${dir}/${name}.js`, shortGlue);
    writeFileSync(`${dir}/${name}.d.ts`, dts);
    renameSync(`${wasmPath}.min`, wasmPath);
  } catch (e) {
    console.error(`error: ${e.message}`);
    process.exit(1);
  }
}
