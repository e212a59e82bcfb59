// JavaScript read and rewritten through a parser (acorn, locked in tools/), never by pattern:
// the modules a script loads, and edits made at the places the syntax tree names. The package
// build (short names, hashed copies, the widgets' folder) changes generated code only this way.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(fileURLToPath(new URL("../tools/package.json", import.meta.url)));
const acorn = require("acorn");

/** The syntax tree of an ES module (every node with its `start` and `end` in `source`). */
export function parseModule(source, what = "a module") {
  try {
    return acorn.parse(source, { ecmaVersion: "latest", sourceType: "module" });
  } catch (e) {
    throw new Error(`${what} does not parse: ${e.message}`);
  }
}

/** Calls `visit(node, parent)` for every node of `tree`, parents first. */
export function walk(tree, visit, parent = null) {
  visit(tree, parent);
  for (const key of Object.keys(tree)) {
    const value = tree[key];
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item.type === "string") walk(item, visit, tree);
    } else if (value && typeof value.type === "string") {
      walk(value, visit, tree);
    }
  }
}

/** True for `import.meta.url`. */
const isImportMetaUrl = (node) =>
  node?.type === "MemberExpression" &&
  node.object.type === "MetaProperty" &&
  node.object.meta.name === "import" &&
  node.property.name === "url";

/**
 * The files a module loads, as written: static imports, re-exports, `import("...")` with a
 * literal (`kind` "import"), and `new URL("...", import.meta.url)` ("url"). Each is
 * `{ specifier, start, end, kind }`, with the place of its string literal in `source`.
 */
export function references(source, what) {
  const found = [];
  const literal = (node, kind) => {
    if (node?.type === "Literal" && typeof node.value === "string") {
      found.push({ specifier: node.value, start: node.start, end: node.end, kind });
    }
  };
  walk(parseModule(source, what), (node) => {
    switch (node.type) {
      case "ImportDeclaration":
      case "ExportAllDeclaration":
      case "ExportNamedDeclaration":
      case "ImportExpression":
        literal(node.source, "import");
        break;
      case "NewExpression":
        if (node.callee.type === "Identifier" && node.callee.name === "URL" && isImportMetaUrl(node.arguments[1])) {
          literal(node.arguments[0], "url");
        }
        break;
      default:
    }
  });
  return found;
}

/** True for a reference to a file beside the module: `./x`, `../x`, or a URL's bare `x`. */
const isRelative = ({ specifier, kind }) =>
  specifier.startsWith("./") ||
  specifier.startsWith("../") ||
  (kind === "url" && !specifier.startsWith("/") && !specifier.includes(":"));

/** The references of `references` to files beside the module (those a build must follow). */
export const relativeReferences = (source, what) => references(source, what).filter(isRelative);

/**
 * `source` with `edits` made: each `{ start, end, text }` replaces that range. The ranges come
 * from a syntax tree; two that overlap are a bug of the caller.
 */
export function applyEdits(source, edits) {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const edit of sorted) {
    if (edit.start < at) throw new Error(`overlapping edits at ${edit.start}`);
    out += source.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + source.slice(at);
}

/** `source` with the references `map` names (specifier -> new specifier) rewritten. */
export function rewriteReferences(source, map, what) {
  const edits = references(source, what)
    .filter((r) => map.has(r.specifier))
    .map((r) => ({ start: r.start, end: r.end, text: JSON.stringify(map.get(r.specifier)) }));
  return applyEdits(source, edits);
}

/** True when `name` may stand as an identifier (a property name written bare). */
export function isIdentifier(name) {
  try {
    const tree = acorn.parse(`({${name}: 0})`, { ecmaVersion: "latest" });
    return tree.body[0].expression.properties[0].key.type === "Identifier";
  } catch {
    return false;
  }
}
