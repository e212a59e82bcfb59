// Makes one build's files of the npm package from wasm-bindgen's output (<stage>, after
// scripts/short-names.mjs): the entry module of our own (scripts/pkg-entry.js) bundled by rollup
// with the glue and the snippets it imports into one module, minified by terser; the wasm; the
// declarations; the engine check init() imports when it fails. wasm-bindgen's files are read,
// never edited: the entry re-exports the glue and wraps its init().
//
//   node scripts/bundle-pkg.mjs <stage dir> <out dir> <name>
//
// One module instead of the glue and a file per snippet: each file a browser fetches is
// compressed on its own, and the snippets are small (0.44 KB gzip less for the full build).
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { applyEdits } from "./js-modules.mjs";

const require = createRequire(fileURLToPath(new URL("../tools/package.json", import.meta.url)));
const { rollup } = require("rollup");
const { minify } = require("terser");
const ts = require("typescript");

const [stage, out, name] = process.argv.slice(2);
if (!stage || !out || !name) {
  console.error("usage: node scripts/bundle-pkg.mjs <stage dir> <out dir> <name>");
  process.exit(2);
}
const fail = (message) => {
  console.error(`error: bundle-pkg: ${message}`);
  process.exit(1);
};
const entry = fileURLToPath(new URL("pkg-entry.js", import.meta.url));
const CHECK = "./engine-check.js";

/** The snippet of the crate's file `path` (`src/js/error.js`) in wasm-bindgen's output. */
function snippet(path) {
  const root = join(stage, "snippets");
  const found = readdirSync(root)
    .map((crate) => join(root, crate, ...path.split("/")))
    .filter((file) => existsSync(file));
  if (found.length !== 1) fail(`expected one snippet ${path} in ${root}, found ${found.length}`);
  return found[0];
}

/** The entry's names for wasm-bindgen's files; the engine check stays a file of its own. */
const wasmBindgen = {
  name: "wasm-bindgen",
  resolveId(source) {
    if (source === "wasm-bindgen:glue") return join(stage, `${name}.js`);
    if (source.startsWith("wasm-bindgen:snippet/")) return snippet(source.slice("wasm-bindgen:snippet/".length));
    if (source === CHECK) return { id: CHECK, external: true };
    return null;
  },
};

const bundle = await rollup({
  input: entry,
  plugins: [wasmBindgen],
  makeAbsoluteExternalsRelative: false,
  onwarn: (warning) => fail(`rollup: ${warning.message}`),
});
// The pointer to the declarations (Deno and JSR read it), first, as wasm-bindgen writes it.
const banner = `/* @ts-self-types="./${name}.d.ts" */`;
const { output } = await bundle.generate({ format: "es", banner });
await bundle.close();
if (output.length !== 1) fail(`expected one module, rollup made ${output.length}`);
const bundled = output[0].code;

// The same minification as every script of the package: class names kept (FundraisingClient.name,
// FundraisingError's constructor name), comments dropped but the pointer to the declarations.
const terse = async (code, what) => {
  const result = await minify(code, {
    module: true,
    ecma: 2020,
    compress: { passes: 2 },
    mangle: true,
    keep_classnames: true,
    format: { comments: (_, comment) => comment.value.includes("@ts-self-types") },
  });
  if (!result.code) fail(`terser made nothing of ${what}`);
  return result.code;
};

mkdirSync(out, { recursive: true });
writeFileSync(join(out, `${name}.js`), await terse(bundled, "the bundle"));
copyFileSync(join(stage, `${name}_bg.wasm`), join(out, `${name}_bg.wasm`));
const check = readFileSync(fileURLToPath(new URL("init-check.mjs", import.meta.url)), "utf8");
writeFileSync(join(out, "engine-check.js"), await terse(check, "the engine check"));

// The declarations are wasm-bindgen's (after short names). Read by TypeScript's parser: no
// `any` anywhere (wasm-bindgen's `any` of the raw exports became `unknown`), and, when a class
// declares `[Symbol.dispose]()`, the `esnext.disposable` lib it needs is loaded by the file itself
// (an app whose `lib` is es2022 + dom lacks it).
const dts = readFileSync(join(stage, `${name}.d.ts`), "utf8");
const file = ts.createSourceFile(`${name}.d.ts`, dts, ts.ScriptTarget.Latest, true);
const anys = [];
let dispose = false;
const visit = (node) => {
  if (node.kind === ts.SyntaxKind.AnyKeyword) {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    anys.push(`${name}.d.ts:${line + 1}`);
  }
  if (ts.isComputedPropertyName(node) && node.expression.getText(file) === "Symbol.dispose") dispose = true;
  ts.forEachChild(node, visit);
};
visit(file);
if (anys.length > 0) fail(`'any' in the TypeScript declarations: ${anys.join(", ")}`);
// init() is the entry's: its declaration (scripts/pkg-entry.d.ts) takes the place of the glue's.
const glueInit = file.statements.filter(
  (s) => ts.isFunctionDeclaration(s) && s.modifiers?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword),
);
if (glueInit.length !== 1) fail(`expected one default export in wasm-bindgen's declarations, found ${glueInit.length}`);
const entryDtsPath = fileURLToPath(new URL("pkg-entry.d.ts", import.meta.url));
const entryDts = ts.createSourceFile("pkg-entry.d.ts", readFileSync(entryDtsPath, "utf8"), ts.ScriptTarget.Latest, true);
const [ownInit] = entryDts.statements;
const edits = [
  {
    start: glueInit[0].getStart(file, true),
    end: glueInit[0].end,
    text: entryDts.text.slice(ownInit.getStart(entryDts, true), ownInit.end),
  },
];
if (dispose) edits.push({ start: 0, end: 0, text: '/// <reference lib="esnext.disposable" />\n' });
const declarations = applyEdits(dts, edits);
writeFileSync(join(out, `${name}.d.ts`), declarations);

console.log(
  `bundle-pkg: ${relative(process.cwd(), join(out, `${name}.js`))}: the entry, the glue and ` +
    `${Object.keys(output[0].modules).filter((id) => id.startsWith(join(stage, "snippets"))).length} snippet(s) in one module`,
);
