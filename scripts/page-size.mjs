// What a partner's page fetches for the widgets, per kind of page, against the page's budget: the
// element (its one file, from the built folder dist/widgets/) and the package build it loads
// (the build's module and wasm, scripts/build-size.mjs), each file gzip -9 on its own and summed,
// with brotli beside it, and how many requests a card's page makes in all (the page, the element,
// the build's two files, the campaign). e2e/widget-load.test.mjs checks that a browser fetches
// exactly these files on such a page, and no more requests.
//
//   node scripts/page-size.mjs [PKG_DIR] [WIDGETS_DIR] [--json] [--check]
//                                  (defaults: pkg, dist/widgets; --check exits 1 over a budget)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { brotli, BUILDS, gzip, measure } from "./build-size.mjs";

/** The pages: the element and the build it loads, the page's budget in bytes and its requests at most (null: as many as its answers). */
export const PAGES = [
  {
    name: "card",
    label: "a page with one `<fundraising-campaign>`",
    element: "widget.js",
    build: "card",
    budget: 46_000,
    // the page, widget.js, the build's module and wasm, the campaign
    requests: 5,
  },
  {
    name: "event",
    label: "a page with `<fundraising-event>`",
    element: "event-widget.js",
    build: "light",
    budget: 60_000,
    // the page, event-widget.js, the build's module and wasm, and one answer per 100 fundraisers
    requests: null,
  },
];

/** One page's figures: the element and the package's files, each gzip -9 and brotli, and their sums. */
export function measurePage(pkg, widgets, page) {
  const build = measure(pkg, BUILDS.find((b) => b.name === page.build));
  const bytes = readFileSync(join(widgets, page.element));
  const element = { path: page.element, raw: bytes.length, gzip: gzip(bytes), brotli: brotli(bytes, false) };
  return {
    ...page,
    element,
    package: { files: build.files, gzip: build.gzip, brotli: build.brotli },
    gzip: element.gzip + build.gzip,
    brotli: element.brotli + build.brotli,
  };
}

/** The pages whose build and element are built. */
export function measurePages(pkg = "pkg", widgets = "dist/widgets") {
  return PAGES.filter((p) => existsSync(join(pkg, BUILDS.find((b) => b.name === p.build).dir)) && existsSync(join(widgets, p.element)))
    .map((p) => measurePage(pkg, widgets, p));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const [pkg = "pkg", widgets = "dist/widgets"] = args.filter((a) => !a.startsWith("--"));
  const results = measurePages(pkg, widgets);
  if (args.includes("--json")) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    for (const r of results) {
      const files = [r.element, ...r.package.files].map((f) => `${f.path} ${f.gzip} B`).join(", ");
      console.log(`page: ${r.label}: ${r.gzip} B gzip -9 (budget ${r.budget} B${r.gzip > r.budget ? ", OVER" : ""}; brotli ${r.brotli} B): ${files}`);
    }
  }
  if (args.includes("--check") && results.some((r) => r.gzip > r.budget)) process.exit(1);
}
