// Client speed in headless Chromium (bench section 2), driven with playwright-core.
// Env: BENCH_ORIGIN (static server: /speed.html, /pkg/...), BENCH_JS, BENCH_WASM (paths under the
// origin), BENCH_LIGHT_JS, BENCH_LIGHT_WASM, BENCH_WIDGETS_JS, BENCH_WIDGETS_WASM (the light and
// the widgets' builds, measured the same way when set),
// FUNDRAISING_BASE_URL, BENCH_RUNS (fresh-context loads), BENCH_PAIRS (alternated call
// pairs), BENCH_PLAYWRIGHT (folder holding node_modules/playwright-core),
// CHROMIUM (executable). Prints one JSON line with every sample (milliseconds).
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.BENCH_PLAYWRIGHT, "node_modules", "noop.js"));
const { chromium } = require("playwright-core");

const origin = process.env.BENCH_ORIGIN;
const jsPath = process.env.BENCH_JS;
const wasmPath = process.env.BENCH_WASM;
const lightJs = process.env.BENCH_LIGHT_JS;
const lightWasm = process.env.BENCH_LIGHT_WASM;
const widgetsJs = process.env.BENCH_WIDGETS_JS;
const widgetsWasm = process.env.BENCH_WIDGETS_WASM;
const baseUrl = process.env.FUNDRAISING_BASE_URL;
const runs = Number(process.env.BENCH_RUNS || 30);
const pairs = Number(process.env.BENCH_PAIRS || 100);
const appId = "demo-app";

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
const out = {
  runs, pairs, instantiate: [], coldLoad: [], instantiateLight: [], coldLoadLight: [],
  instantiateWidgets: [], coldLoadWidgets: [],
  eventPagesClient: [], eventPagesPlain: [], campaignClient: [], campaignPlain: [],
};
const builds = [["", jsPath, wasmPath]];
if (lightJs && lightWasm) builds.push(["Light", lightJs, lightWasm]);
if (widgetsJs && widgetsWasm) builds.push(["Widgets", widgetsJs, widgetsWasm]);
try {
  // 1. Module instantiation, each run in a fresh browser context (empty caches):
  //    coldLoad = import of the glue + init() fetching, compiling and instantiating the wasm;
  //    instantiate = init() from bytes already fetched (compile + instantiate + glue start).
  //    Every build, alternated run by run.
  for (let i = 0; i < runs; i++) {
    for (const [suffix, jsPath, wasmPath] of builds) for (const mode of ["bytes", "cold"]) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(`${origin}/speed.html`);
      const ms = await page.evaluate(async ({ jsPath, wasmPath, mode }) => {
        if (mode === "bytes") {
          const m = await import(jsPath);
          const bytes = await (await fetch(wasmPath)).arrayBuffer();
          const t0 = performance.now();
          await m.default({ module_or_path: bytes });
          return performance.now() - t0;
        }
        const t0 = performance.now();
        const m = await import(jsPath);
        await m.default({ module_or_path: wasmPath });
        return performance.now() - t0;
      }, { jsPath, wasmPath, mode });
      out[(mode === "bytes" ? "instantiate" : "coldLoad") + suffix].push(ms);
      await ctx.close();
    }
  }

  // 2. and 3. Calls through the client against plain fetch + JSON.parse of the same URL,
  //    alternated in one page (the order flips every run), after a warm-up.
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  page.on("console", (m) => { if (m.type() === "error") console.error("page:", m.text()); });
  await page.goto(`${origin}/speed.html`);
  const r = await page.evaluate(async ({ jsPath, wasmPath, baseUrl, appId, pairs }) => {
    const m = await import(jsPath);
    await m.default({ module_or_path: wasmPath });
    const client = new m.FundraisingClient({ appId, baseUrl });
    const pagesUrl = `${baseUrl}/${appId}/v1/event/1001/pages?page=1&pagesize=100`;
    const campaignUrl = `${baseUrl}/${appId}/v1/campaign/byshortname/demo-campaign`;
    const time = async (f) => { const t0 = performance.now(); const v = await f(); return [performance.now() - t0, v]; };
    const calls = {
      eventPages: [
        () => client.getEventPages(1001, { page: 1, pageSize: 100 }),
        async () => JSON.parse(await (await fetch(pagesUrl)).text()),
      ],
      campaign: [
        () => client.getCampaign("demo-campaign"),
        async () => JSON.parse(await (await fetch(campaignUrl)).text()),
      ],
    };
    const res = { eventPagesClient: [], eventPagesPlain: [], campaignClient: [], campaignPlain: [], checks: {} };
    for (const [name, [viaClient, plain]] of Object.entries(calls)) {
      for (let i = 0; i < 5; i++) { await viaClient(); await plain(); }
      const a = await viaClient();
      const b = await plain();
      res.checks[name] = name === "eventPages"
        ? { client: a.fundraisingPages.length, plain: b.fundraisingPages.length, clientDateIsDate: a.fundraisingPages[0].createdDate instanceof Date || a.fundraisingPages[0].createdDate === null }
        : { client: a.shortName, plain: b.ShortName ?? b.shortName };
      for (let i = 0; i < pairs; i++) {
        const order = i % 2 ? [[viaClient, "Client"], [plain, "Plain"]] : [[plain, "Plain"], [viaClient, "Client"]];
        for (const [f, tag] of order) {
          const [ms] = await time(f);
          res[name + tag].push(ms);
        }
      }
    }
    return res;
  }, { jsPath, wasmPath, baseUrl, appId, pairs });
  Object.assign(out, r);
  await ctx.close();
} finally {
  await browser.close();
}
console.log("SPEEDJSON " + JSON.stringify(out));
