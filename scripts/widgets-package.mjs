// Writes the npm package `fundraising-widgets`: exactly what dist/widgets/ holds (the elements,
// each one module built from www/widgets/, and the two builds of fundraising-client they load
// (the widgets' build, and the light build for <fundraising-event>), each one module and its
// wasm under content-hashed names, with their .br and .gz copies for hosts that serve them), so that a
// CDN that serves npm packages gives partners an address with no build and no hosting:
// https://cdn.jsdelivr.net/npm/fundraising-widgets@0.2/widget.js (docs/widgets.md).
//
//   node scripts/widgets-package.mjs OUT      (after `make pkg`, which writes dist/widgets/)
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { commonManifest, put, root, startPackage, workspaceMeta } from "./npm-meta.mjs";

const out = process.argv[2];
if (!out) {
  console.error("usage: node scripts/widgets-package.mjs OUT");
  process.exit(2);
}
const from = join(root, "dist", "widgets");
if (!existsSync(join(from, "widget.js"))) {
  console.error("error: dist/widgets/ is missing: run make pkg first");
  process.exit(1);
}

/** Every file under `dir`, as POSIX paths relative to it. */
const walk = (dir) =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [relative(from, path).split("\\").join("/")];
  });

const meta = workspaceMeta();
const dir = join(out, "fundraising-widgets");
startPackage(dir, {
  name: "fundraising-widgets",
  ...commonManifest(meta),
  description:
    "The fundraising service's <fundraising-campaign>, <fundraising-event> and <fundraising-donation> elements: one script tag from a CDN or your own host, under a strict CSP, loading nothing until in view",
  keywords: ["fundraising", "web-components", "custom-elements", "donation", "widget", "webassembly"],
  type: "module",
  // What a CDN serves for the package's bare address.
  jsdelivr: "widget.js",
  unpkg: "widget.js",
  exports: {
    "./widget.js": "./widget.js",
    "./donation-return.js": "./donation-return.js",
    "./event-widget.js": "./event-widget.js",
    "./package.json": "./package.json",
  },
  files: walk(from).sort(),
  sideEffects: true,
});
for (const file of walk(from)) put(dir, file, join(from, file));
put(dir, "README.md", join(root, "npm", "fundraising-widgets", "README.md"));
console.log(dir);
