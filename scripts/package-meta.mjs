// Writes the npm package's package.json and README.md into the package folder (pkg/).
//
//   node scripts/package-meta.mjs OUT_DIR
//
// One source for each fact: the version, description, license, repository and homepage come
// from Cargo.toml (the crate's [package] and [workspace.package]); the README is the JS API
// reference, docs/api.md, and the guides it links to (transitively) ship in docs/ beside it, so
// every link of the README leads to a file of the package (a link that would leave the package
// keeps its text, without the link).
// `files` lists what a user needs: each build's one JS module, its declarations, the wasm and
// the engine check; not the raw wasm exports' declarations (*_bg.wasm.d.ts), which the
// package's own declarations do not use.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error("usage: node scripts/package-meta.mjs OUT_DIR");
  process.exit(2);
}

const NAME = "fundraising-client";
const ENTRY = "fundraising_client";
const KEYWORDS = ["fundraising", "oauth", "openid-connect", "pkce", "webassembly", "wasm", "sign-in"];

/** `key = "value"` lines of one `[section]` of a TOML file (the subset Cargo.toml uses here). */
function tomlSection(text, section) {
  const values = {};
  let inside = false;
  for (const line of text.split("\n")) {
    const header = line.match(/^\s*\[([^\]]+)\]\s*$/);
    if (header) {
      inside = header[1].trim() === section;
      continue;
    }
    const pair = inside && line.match(/^\s*([A-Za-z0-9_-]+)\s*=\s*"([^"]*)"\s*$/);
    if (pair) values[pair[1]] = pair[2];
  }
  return values;
}

const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
const crate = tomlSection(cargo, "package");
const workspace = tomlSection(cargo, "workspace.package");
const meta = {
  version: crate.version ?? workspace.version,
  description: crate.description,
  license: crate.license ?? workspace.license,
  repository: crate.repository ?? workspace.repository,
  homepage: crate.homepage ?? workspace.homepage,
};
for (const [key, value] of Object.entries(meta)) {
  if (!value) {
    console.error(`error: Cargo.toml gives no ${key} for the npm package`);
    process.exit(1);
  }
}

/** Every file under `dir`, as POSIX paths relative to it. */
function walk(dir, base = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path, base) : [relative(base, path).split("\\").join("/")];
  });
}

// The guides: docs/api.md's links to other pages of docs/, followed from page to page.
/** Relative Markdown links of `text` (outside code), as [whole match, text, target]. */
const links = (text) => [...text.matchAll(/\[([^\]]*)\]\(([^)\s]+)\)/g)];
const guides = new Set();
const queue = ["api.md"];
while (queue.length > 0) {
  const page = queue.shift();
  for (const [, , target] of links(readFileSync(join(root, "docs", page), "utf8"))) {
    const path = target.split("#")[0];
    if (/^[a-z]+:/i.test(target) || !path.endsWith(".md") || path.includes("/")) continue;
    if (path !== "api.md" && !guides.has(path) && existsSync(join(root, "docs", path))) {
      guides.add(path);
      queue.push(path);
    }
  }
}
/** A page's text with its links kept where they stay inside the package: `#anchors`,
 * absolute addresses, and the shipped guides (`prefix` + name); any other link is reduced to
 * its text. */
function packaged(text, prefix) {
  return text.replace(/\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, label, target) => {
    if (/^[a-z]+:|^#/i.test(target)) return whole;
    const [path, anchor] = target.split("#");
    if (path === "api.md") return `[${label}](${prefix === "" ? "../README.md" : "README.md"}${anchor ? `#${anchor}` : ""})`;
    if (guides.has(path)) return `[${label}](${prefix}${path}${anchor ? `#${anchor}` : ""})`;
    return label;
  });
}
rmSync(join(out, "docs"), { recursive: true, force: true });
mkdirSync(join(out, "docs"));
for (const page of guides) {
  writeFileSync(join(out, "docs", page), packaged(readFileSync(join(root, "docs", page), "utf8"), ""));
}

const files = walk(out)
  .filter((file) => !["package.json", "README.md", ".gitignore"].includes(file))
  .filter((file) => !file.endsWith("_bg.wasm.d.ts"))
  .sort();

const manifest = {
  name: NAME,
  version: meta.version,
  description: meta.description,
  keywords: KEYWORDS,
  license: meta.license,
  homepage: meta.homepage,
  repository: { type: "git", url: `git+${meta.repository}.git` },
  type: "module",
  main: `${ENTRY}.js`,
  module: `${ENTRY}.js`,
  types: `${ENTRY}.d.ts`,
  exports: {
    ".": { types: `./${ENTRY}.d.ts`, default: `./${ENTRY}.js` },
    [`./${ENTRY}_bg.wasm`]: `./${ENTRY}_bg.wasm`,
    // The build without sign-in (scripts/build-pkg.sh's pkg/light/), the widgets' build (a
    // campaign and a donation's wait: pkg/widgets/) and the card's (a campaign: pkg/card/), each
    // with its own declarations.
    ...Object.fromEntries(
      ["light", "widgets", "card"]
        .filter((build) => existsSync(join(out, build, `${ENTRY}.js`)))
        .flatMap((build) => [
          [`./${build}`, { types: `./${build}/${ENTRY}.d.ts`, default: `./${build}/${ENTRY}.js` }],
          [`./${build}/${ENTRY}_bg.wasm`, `./${build}/${ENTRY}_bg.wasm`],
        ]),
    ),
    "./package.json": "./package.json",
  },
  files,
  sideEffects: false,
  engines: { node: ">=20" },
};
writeFileSync(join(out, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);

// The README: docs/api.md below its title, its links to other guides pointing at docs/.
const api = readFileSync(join(root, "docs", "api.md"), "utf8");
const body = packaged(api.replace(/^# .*\n+/, ""), "docs/");
const readme = [
  `# ${NAME}`,
  "",
  body.trimEnd(),
  "",
  "More guides (the companion, deploying it, the sandbox and testing your app, the sign-in flows, the widgets) are in this package's docs/ folder.",
  "",
].join("\n");
writeFileSync(join(out, "README.md"), readme);
