// What a partner's page fetches for the widgets, per kind of page: the package build its elements
// load (every file gzip -9 on its own and summed, the measure of the budgets, with brotli beside
// it: scripts/build-size.mjs) against the page's budget, and the elements' own scripts from www/
// (the same measures; outside the budget, which counts the package). e2e/widget-load.test.mjs
// checks that a browser fetches exactly these files on such a page.
//
//   node scripts/page-size.mjs [PKG_DIR] [--json]     (default: pkg)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotli, BUILDS, gzip, measure } from "./build-size.mjs";

const WWW = fileURLToPath(new URL("../www/", import.meta.url));

/** The pages: the build their elements load, the elements' scripts, and the package's budget in bytes. */
export const PAGES = [
  {
    name: "card",
    label: "a page with one `<fundraising-campaign>`",
    build: "widgets",
    scripts: ["widget.js", "widget-element.js", "widget-giving.js", "widget-text.js", "widget-theme.js"],
    budget: 40 * 1024,
  },
  {
    name: "event",
    label: "a page with `<fundraising-event>` (a card beside it adds widget.js and widget-giving.js, and no build)",
    build: "light",
    scripts: ["event-widget.js", "event-ranking.js", "event-text.js", "widget-element.js", "widget-text.js", "widget-theme.js"],
    budget: 50 * 1024,
  },
];

/** One page's figures: the package's files and the elements' scripts, each gzip -9 and brotli. */
export function measurePage(pkg, page) {
  const build = measure(pkg, BUILDS.find((b) => b.name === page.build));
  const scripts = page.scripts.map((name) => {
    const bytes = readFileSync(join(WWW, name));
    return { path: name, raw: bytes.length, gzip: gzip(bytes), brotli: brotli(bytes, false) };
  });
  const sum = (files, key) => files.reduce((n, f) => n + f[key], 0);
  return {
    ...page,
    package: { files: build.files, gzip: build.gzip, brotli: build.brotli },
    scripts: { files: scripts, gzip: sum(scripts, "gzip"), brotli: sum(scripts, "brotli") },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const pkg = args.find((a) => !a.startsWith("--")) ?? "pkg";
  const results = PAGES.filter((p) => existsSync(join(pkg, BUILDS.find((b) => b.name === p.build).dir))).map((p) => measurePage(pkg, p));
  if (args.includes("--json")) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    for (const r of results) {
      const files = r.package.files.map((f) => `${f.path} ${f.gzip} B`).join(", ");
      console.log(`${r.label}: the package ${r.package.gzip} B gzip -9 (budget ${r.budget} B${r.package.gzip > r.budget ? ", OVER" : ""}): ${files}; ` +
        `the elements' scripts ${r.scripts.gzip} B: ${r.scripts.files.map((f) => `${f.path} ${f.gzip} B`).join(", ")}`);
    }
  }
}
