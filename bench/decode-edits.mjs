// How the decoder drops the members a model does not keep (renamed casings, unknown members),
// measured (bench section 2, docs/performance.md): `delete` on the JSON.parse tree's object,
// which ships, against a fresh object made of the members kept, setting them to undefined, and
// leaving them. Each variant is the built package with src/json/tape.js's `apply` changed
// there alone: wasm-bindgen's output of the build (its stage, which scripts/build-pkg.sh keeps in
// target/pkg-stage/full/) with the variant's tape.js, bundled and minified into one module by
// scripts/bundle-pkg.mjs as the package's own is (the shipped variant must come out byte for byte
// the package's module, or the stage is not the package's). Each decodes the same answers and
// then reads every field of the result, as a page rendering it does (an object `delete` turned
// into a dictionary is slower to read). Alternated batches, medians in ms per call.
//   node bench/decode-edits.mjs [PKG_DIR]        (or BENCH_EDITS_PKG) prints EDITSJSON {...}
//   BENCH_EDITS_STAGE=DIR                        the build's stage (default target/pkg-stage/full)
import { execFileSync } from "node:child_process";
import { cp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pkg = path.resolve(process.argv[2] ?? process.env.BENCH_EDITS_PKG ?? path.join(root, "pkg"));
const stage = path.resolve(process.env.BENCH_EDITS_STAGE ?? path.join(root, "target", "pkg-stage", "full"));
const NAME = "fundraising_client";
const work = path.join(root, "bench", "work", "edits");
const source = await readFile(path.join(root, "src", "json", "tape.js"), "utf8");
const shipped = "      case Op.Delete: delete containers[a][keys[a][b]]; break;";

/** `text` with `from` replaced by `to`; throws when `from` is not there (tape.js changed). */
function swap(text, from, to) {
  if (!text.includes(from)) throw new Error(`src/json/tape.js no longer holds: ${from}`);
  return text.replace(from, to);
}

// The fresh-object variant: the members to drop are noted, then each object that loses some is
// copied without them (inner ones first) into the place its parent holds it; `scan` notes each
// container's parent.
const fresh = [
  ["export function scan(root, arrays, maxDepth) {", "let parents = [];\nexport function scan(root, arrays, maxDepth) {\n  parents = [-1];"],
  ["const idOf = (v, depth) => {", "const idOf = (v, depth, parent) => {"],
  ["      containers.push(v);", "      containers.push(v);\n      parents[id] = parent;"],
  ["const payload = (v, k, depth) => {", "const payload = (v, k, depth, parent) => {"],
  ["idOf(v, depth) : 0", "idOf(v, depth, parent) : 0"],
  ["      body.push(k, payload(v, k, depth));", "      body.push(k, payload(v, k, depth, c));"],
  [shipped, "      case Op.Delete: (dropped[a] ??= new Set()).add(keys[a][b]); break;"],
  ["  const fresh = [];", "  const fresh = [];\n  const dropped = [];"],
  ["  return value(result[0], result[1], result[2]);", `  let out = value(result[0], result[1], result[2]);
  for (let c = dropped.length - 1; c >= 0; c--) {
    if (dropped[c] === undefined) continue;
    const old = containers[c];
    const copy = {};
    for (const key of Object.keys(old)) if (!dropped[c].has(key)) copy[key] = old[key];
    if (c === 0) { if (out === old) out = copy; continue; }
    const holder = containers[parents[c]];
    for (const key of Object.keys(holder)) if (holder[key] === old) holder[key] = copy;
  }
  return out;`],
].reduce((text, [from, to]) => swap(text, from, to), source);
const variants = {
  delete: source,
  fresh,
  undefined: swap(source, shipped, "      case Op.Delete: containers[a][keys[a][b]] = undefined; break;"),
  leave: swap(source, shipped, "      case Op.Delete: break;"),
};

/** Where wasm-bindgen put tape.js among the build's snippets (relative to the stage). */
async function findTape(dir) {
  for (const entry of await readdir(path.join(dir, "snippets"), { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isFile() && file.endsWith(path.join("src", "json", "tape.js"))) return path.relative(dir, file);
  }
  throw new Error(`${dir}: no src/json/tape.js snippet (run make pkg)`);
}

// Answers as the service sends them: 100 page summaries (inMemoryPerson in PascalCase), and the
// PascalCase campaign.
const pagesFixture = JSON.parse(await readFile(path.join(root, "tests", "fixtures", "event-pages.json"), "utf8"));
const summaries = Array.from({ length: 100 }, (_, i) => {
  const s = structuredClone(pagesFixture.fundraisingPages[i % pagesFixture.fundraisingPages.length]);
  s.pageId = 900000 + i;
  if (i % 2 === 0) s.inMemoryPerson = { FirstName: "Ada", LastName: "Lovelace", PersonId: i, RelationShip: null, dateOfBirth: "/Date(-4852137600000+0000)/", dateOfDeath: "/Date(-3694723200000+0000)/" };
  return s;
});
const answers = {
  pages: JSON.stringify({ ...pagesFixture, fundraisingPages: summaries }).replaceAll("/", "\\/"),
  campaign: await readFile(path.join(root, "tests", "fixtures", "campaign.json"), "utf8"),
};
let body = "";
globalThis.fetch = async () => new Response(body, { status: 200, headers: { "content-type": "application/json" } });

// Every field, as a page reads it.
function readAll(v) {
  if (Array.isArray(v)) return v.reduce((n, x) => n + readAll(x), 0);
  if (v === null || typeof v !== "object" || v instanceof Date) return 1;
  let n = 0;
  for (const key in v) n += readAll(v[key]);
  return n;
}

const tape = await findTape(stage);
if (!(await readFile(path.join(stage, `${NAME}_bg.wasm`))).equals(await readFile(path.join(pkg, `${NAME}_bg.wasm`)))) {
  throw new Error(`${stage} is not the stage of ${pkg} (their wasm differ): run make pkg`);
}
await rm(work, { recursive: true, force: true });
const clients = {};
for (const [name, text] of Object.entries(variants)) {
  const dir = path.join(work, name);
  await mkdir(dir, { recursive: true });
  await cp(stage, path.join(dir, "stage"), { recursive: true });
  await writeFile(path.join(dir, "stage", tape), text);
  execFileSync("node", [path.join(root, "scripts", "bundle-pkg.mjs"), path.join(dir, "stage"), path.join(dir, "pkg"), NAME], { stdio: ["ignore", "ignore", "inherit"] });
  const module = path.join(dir, "pkg", `${NAME}.js`);
  if (name === "delete" && !(await readFile(module)).equals(await readFile(path.join(pkg, `${NAME}.js`)))) {
    throw new Error(`the shipped tape.js bundled from ${stage} is not ${pkg}'s module: run make pkg`);
  }
  const m = await import(pathToFileURL(module).href);
  await m.default({ module_or_path: await readFile(path.join(dir, "pkg", `${NAME}_bg.wasm`)) });
  clients[name] = new m.FundraisingClient({ appId: "demo-app", baseUrl: "http://127.0.0.1:9" });
}

const calls = {
  pages: (client) => client.getEventPages(1001, { page: 1, pageSize: 100 }),
  campaign: (client) => client.getCampaign("spring-appeal"),
};
// What each variant leaves behind (checked once): no variant may change a kept value.
const checks = {};
for (const [name, client] of Object.entries(clients)) {
  body = answers.campaign;
  const c = await calls.campaign(client);
  body = answers.pages;
  const p = await calls.pages(client);
  const person = p.fundraisingPages[0].inMemoryPerson;
  if (c.shortName !== "spring-appeal" || person.firstName !== "Ada" || p.fundraisingPages.length !== 100) {
    throw new Error(`${name}: decoded wrongly`);
  }
  checks[name] = { campaignKeys: Object.keys(c).length, personKeys: Object.keys(person).length, pascalLeft: "CampaignGuid" in c };
}

const out = Object.fromEntries(Object.keys(clients).map((name) => [name, { pages: [], campaign: [] }]));
const names = Object.keys(clients);
for (let i = 0; i < 200; i++) for (const name of names) for (const a of ["pages", "campaign"]) { body = answers[a]; readAll(await calls[a](clients[name])); }
for (let batch = 0; batch < 15; batch++) {
  for (const a of ["pages", "campaign"]) {
    body = answers[a];
    const order = names.map((_, i) => names[(i + batch) % names.length]);
    for (const name of order) {
      const t0 = performance.now();
      for (let i = 0; i < 50; i++) readAll(await calls[a](clients[name]));
      out[name][a].push((performance.now() - t0) / 50);
    }
  }
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const result = Object.fromEntries(names.map((name) => [name, { pages: median(out[name].pages), campaign: median(out[name].campaign), ...checks[name] }]));
console.log("EDITSJSON " + JSON.stringify(result));
process.exit(0);
