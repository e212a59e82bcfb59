// The engine check behind the package's init() (scripts/init-check.mjs, shipped as
// pkg/engine-check.js and imported by init() only when it fails): each WebAssembly probe is
// valid exactly when its feature is on (checked with binaryen, which knows every feature); in an
// engine without a feature the package needs, the built package's init() rejects with a
// FundraisingError "unsupported" naming it; a page's CSP without 'wasm-unsafe-eval' is named;
// an init() that fails for another reason rejects with its own error; BroadcastChannel is not
// required.
//
// An engine without a feature is emulated in full: its WebAssembly.validate and every way to
// compile (Module, compile, instantiate, instantiateStreaming, compileStreaming) accept only
// what binaryen validates with the build's features but that one, so the package's own module
// fails to compile exactly when it uses the feature, as in a real engine.
//
// Needs pkg/ (`make pkg`), tools/ (npm ci) and the servers of scripts/with-servers.sh (the
// sandbox for a resource call, the companion for a wrong path).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { WASM_HEADER, WASM_PROBES, unsupportedMessage } from "../../scripts/init-check.mjs";

const pkgUrl = new URL("../../pkg/", import.meta.url);
const wasmOpt = new URL("../../tools/node_modules/.bin/wasm-opt", import.meta.url).pathname;
const packageBytes = readFileSync(new URL("fundraising_client_bg.wasm", pkgUrl));

/** The servers of scripts/with-servers.sh. */
function server(name) {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: run this under scripts/with-servers.sh`);
  return value;
}

/** binaryen's flag for each probe's feature. */
const BINARYEN_FLAGS = {
  "mutable globals": "--enable-mutable-globals",
  "sign-extension": "--enable-sign-ext",
  "non-trapping float-to-int": "--enable-nontrapping-float-to-int",
  "bulk memory": "--enable-bulk-memory",
  "reference types": "--enable-reference-types",
  "multi-value": "--enable-multivalue",
};

/** The features scripts/build-pkg.sh passes to wasm-opt (its `features=(...)`). */
const BUILD_FLAGS = readFileSync(new URL("../../scripts/build-pkg.sh", import.meta.url), "utf8")
  .match(/^features=\(([^)]*)\)/m)[1].split(/\s+/).filter(Boolean).sort();

const binaryenAnswers = new Map();

/** Whether binaryen validates `bytes` with only the MVP and `flags` on (answers kept). */
function binaryenAccepts(bytes, flags) {
  const key = `${createHash("sha256").update(bytes).digest("hex")} ${[...flags].sort().join(" ")}`;
  if (binaryenAnswers.has(key)) return binaryenAnswers.get(key);
  const dir = mkdtempSync(join(tmpdir(), "init-check-"));
  let accepted;
  try {
    const file = join(dir, "probe.wasm");
    writeFileSync(file, bytes);
    execFileSync(wasmOpt, [file, "--mvp-features", ...flags], { stdio: "ignore" });
    accepted = true;
  } catch {
    accepted = false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  binaryenAnswers.set(key, accepted);
  return accepted;
}

/** The build's features without `feature`'s flag: what an engine lacking it validates. */
function flagsWithout(feature) {
  return BUILD_FLAGS.filter((flag) => flag !== BINARYEN_FLAGS[feature]);
}

/** The bytes of a BufferSource. */
function bytesOf(source) {
  return ArrayBuffer.isView(source)
    ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
    : new Uint8Array(source);
}

/**
 * Runs `body` (sync or async) in an emulated engine: Node's WebAssembly, but
 * - `validates(bytes)`: what its validator accepts. WebAssembly.validate answers with it, and
 *   compiling anything else throws a CompileError (every way to compile);
 * - `compiles: false`: compiling anything throws a CompileError (a page's CSP without
 *   'wasm-unsafe-eval' in Chromium and Firefox); `instantiates: false`: compiling works,
 *   instantiating throws one (the same in WebKit).
 * Records every error it throws in `thrown`.
 */
async function inEngine({ validates = () => true, compiles = true, instantiates = true, why }, body) {
  const real = { ...Object.fromEntries(Object.getOwnPropertyNames(WebAssembly).map((name) => [name, WebAssembly[name]])) };
  const thrown = [];
  const refuse = (message) => {
    const error = new WebAssembly.CompileError(message);
    thrown.push(error);
    return error;
  };
  const checkCompile = (source) => {
    if (!compiles) throw refuse(`Refused to compile a WebAssembly module: ${why}`);
    if (!validates(bytesOf(source))) throw refuse(`WebAssembly.Module doesn't parse: ${why}`);
  };
  const checkInstantiate = () => {
    if (!instantiates) throw refuse(`Refused to create a WebAssembly object: ${why}`);
  };
  const streamed = async (source) => new Uint8Array(await (await source).arrayBuffer());
  const emulated = {
    validate: (source) => real.validate(source) && validates(bytesOf(source)),
    Module: class Module extends real.Module {
      constructor(source) {
        checkCompile(source);
        super(source);
      }
    },
    Instance: class Instance extends real.Instance {
      constructor(module, imports) {
        checkInstantiate();
        super(module, imports);
      }
    },
    compile: async (source) => {
      checkCompile(source);
      return real.compile(source);
    },
    instantiate: async (source, imports) => {
      if (!(source instanceof real.Module)) checkCompile(source);
      checkInstantiate();
      return real.instantiate(source, imports);
    },
    compileStreaming: async (source) => emulated.compile(await streamed(source)),
    instantiateStreaming: async (source, imports) => emulated.instantiate(await streamed(source), imports),
  };
  Object.assign(WebAssembly, emulated);
  try {
    return await body(thrown);
  } finally {
    Object.assign(WebAssembly, real);
  }
}

/** An engine whose WebAssembly lacks `feature` (and has the build's other features). */
function engineWithout(feature) {
  return { validates: (bytes) => binaryenAccepts(bytes, flagsWithout(feature)), why: `no WebAssembly ${feature}` };
}

/** Runs `body` (sync or async) with the global `name` hidden. */
async function withoutGlobal(name, body) {
  const saved = Object.getOwnPropertyDescriptor(globalThis, name);
  assert.ok(saved, `Node has no ${name} to hide`);
  delete globalThis[name];
  try {
    return await body();
  } finally {
    Object.defineProperty(globalThis, name, saved);
  }
}

let fresh = 0;

/**
 * A fresh copy of the package's JS entry (its own module instance: not initialised yet, as on
 * a page that has just loaded it), from `dir` (default pkg/).
 */
async function freshPackage(dir = pkgUrl) {
  const manifest = JSON.parse(readFileSync(new URL("package.json", dir), "utf8"));
  fresh += 1;
  return import(new URL(`${manifest.module}?copy=${fresh}`, dir));
}

/** What `promise` rejects with (fails the test if it resolves). */
async function rejection(promise) {
  return promise.then((value) => assert.fail(`resolved with ${value}`), (error) => error);
}

/** The package's wasm as a fetch Response (init() then goes through instantiateStreaming). */
function wasmResponse() {
  return new Response(packageBytes, { headers: { "Content-Type": "application/wasm" } });
}

/** Which of the build's features the package's module needs: binaryen refuses it without them. */
function featuresThePackageNeeds() {
  return Object.keys(BINARYEN_FLAGS).filter((feature) => !binaryenAccepts(packageBytes, flagsWithout(feature)));
}

test("every probe the build's features cover is valid with its feature alone and invalid without it", () => {
  assert.deepEqual([...Object.values(BINARYEN_FLAGS)].sort(), BUILD_FLAGS, "a feature of the build has no probe, or a probe no feature");
  assert.equal(binaryenAccepts(packageBytes, BUILD_FLAGS), true, "binaryen refuses the package with the build's features");
  for (const [feature, sections] of WASM_PROBES) {
    const bytes = new Uint8Array([...WASM_HEADER, ...sections]);
    assert.equal(binaryenAccepts(bytes, [BINARYEN_FLAGS[feature]]), true, `${feature}: invalid even with its feature`);
    assert.equal(binaryenAccepts(bytes, []), false, `${feature}: valid without its feature`);
    assert.equal(binaryenAccepts(bytes, flagsWithout(feature)), false, `${feature}: valid with the build's other features`);
    assert.equal(WebAssembly.validate(bytes), true, `${feature}: Node's engine refuses it`);
  }
});

test("an engine with everything passes; an engine without one WebAssembly feature gets it named", async () => {
  assert.equal(unsupportedMessage(), null);
  for (const [feature] of WASM_PROBES) {
    const message = await inEngine(engineWithout(feature), unsupportedMessage);
    assert.equal(message, `fundraising-client cannot run here: this browser lacks WebAssembly ${feature}`);
  }
});

test("a missing WebAssembly and a CSP without 'wasm-unsafe-eval' are named; BroadcastChannel and AbortController are not required", async () => {
  assert.equal(await withoutGlobal("WebAssembly", unsupportedMessage), "fundraising-client cannot run here: this browser lacks WebAssembly");
  const csp = "fundraising-client cannot run here: the page's CSP forbids WebAssembly (script-src needs 'wasm-unsafe-eval')";
  // Chromium and Firefox refuse to compile a module under such a policy, the empty one too;
  // WebKit compiles it and refuses to instantiate it.
  assert.equal(await inEngine({ compiles: false, why: "CSP" }, unsupportedMessage), csp);
  assert.equal(await inEngine({ instantiates: false, why: "CSP" }, unsupportedMessage), csp);
  assert.equal(await withoutGlobal("BroadcastChannel", unsupportedMessage), null);
  assert.equal(await withoutGlobal("AbortController", unsupportedMessage), null);
});

test("in an engine without a WebAssembly feature the package uses, init() rejects with FundraisingError 'unsupported' naming it, then works in a whole engine", async (t) => {
  const needed = featuresThePackageNeeds();
  t.diagnostic(`the package's module needs: ${needed.join(", ")}`);
  // wasm-bindgen keeps every JS value the wasm holds in an externref table.
  assert.ok(needed.includes("reference types"), "binaryen takes the package without reference types");
  for (const feature of needed) {
    for (const [how, source] of [["bytes", () => packageBytes], ["a fetch Response", wasmResponse]]) {
      const pkg = await freshPackage();
      const [error, thrown] = await inEngine(engineWithout(feature),
        async (thrown) => [await rejection(pkg.default({ module_or_path: source() })), thrown]);
      assert.ok(thrown.length > 0 && thrown.every((e) => e instanceof WebAssembly.CompileError), `${feature}, ${how}: the emulated engine compiled the package`);
      assert.ok(error instanceof pkg.FundraisingError, `${feature}, ${how}: not a FundraisingError: ${error}`);
      assert.equal(error.code, "unsupported");
      assert.equal(error.status, null);
      assert.equal(error.message, `fundraising-client cannot run here: this browser lacks WebAssembly ${feature}`, `${feature}, ${how}`);

      // Nothing was left half-done: in a whole engine, the same module's init() works.
      await pkg.default({ module_or_path: source() });
      assert.equal(new pkg.FundraisingClient({ appId: "demo-app", baseUrl: "http://127.0.0.1:9" }).session, null);
    }
  }
});

test("a feature of the build the package's module does not use is not needed: init() works in an engine without it", async (t) => {
  const needed = featuresThePackageNeeds();
  const unused = Object.keys(BINARYEN_FLAGS).filter((feature) => !needed.includes(feature));
  t.diagnostic(`enabled but not used by the package's module: ${unused.join(", ") || "none"}`);
  for (const feature of unused) {
    const pkg = await freshPackage();
    await inEngine(engineWithout(feature), () => pkg.default({ module_or_path: packageBytes }));
    assert.equal(new pkg.FundraisingClient({ appId: "demo-app", baseUrl: "http://127.0.0.1:9" }).session, null);
  }
});

test("initSync() is wasm-bindgen's own: in an engine without a feature it throws the engine's CompileError", async () => {
  const pkg = await freshPackage();
  const error = await inEngine(engineWithout("reference types"), () => {
    try {
      pkg.initSync({ module: packageBytes });
      return null;
    } catch (e) {
      return e;
    }
  });
  assert.ok(error instanceof WebAssembly.CompileError, `not a CompileError: ${error}`);
  pkg.initSync({ module: packageBytes });
});

test("under a CSP without 'wasm-unsafe-eval', init() rejects with FundraisingError 'unsupported' saying what the policy needs", async () => {
  for (const engine of [{ compiles: false, why: "CSP (Chromium, Firefox)" }, { instantiates: false, why: "CSP (WebKit)" }]) {
    const pkg = await freshPackage();
    const error = await inEngine(engine, () => rejection(pkg.default({ module_or_path: wasmResponse() })));
    assert.ok(error instanceof pkg.FundraisingError, `${engine.why}: not a FundraisingError: ${error}`);
    assert.equal(error.code, "unsupported");
    assert.equal(error.message, "fundraising-client cannot run here: the page's CSP forbids WebAssembly (script-src needs 'wasm-unsafe-eval')");
  }
});

test("an init() that fails for another reason rejects with its own error, not 'unsupported'", async () => {
  // A network error: the module's fetch rejects.
  let pkg = await freshPackage();
  const lost = new TypeError("Failed to fetch");
  assert.equal(await rejection(pkg.default({ module_or_path: Promise.reject(lost) })), lost);

  // A wrong path: the companion answers 404.
  pkg = await freshPackage();
  const wrongPath = `${server("FUNDRAISING_COMPANION_URL")}/pkg/no-such-module.wasm`;
  const notFound = await rejection(pkg.default({ module_or_path: wrongPath }));
  assert.ok(!(notFound instanceof pkg.FundraisingError), `became a FundraisingError: ${notFound.message}`);
  assert.match(notFound.message, /^failed to fetch Wasm: 404 .*no-such-module\.wasm/);

  // Nobody listening: the connection is refused.
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  pkg = await freshPackage();
  const refused = await rejection(pkg.default({ module_or_path: `http://127.0.0.1:${port}/fundraising_client_bg.wasm` }));
  assert.ok(refused instanceof TypeError && !(refused instanceof pkg.FundraisingError), `${refused}`);

  // Not a module at all: a CompileError the engine is not to blame for stays what it is.
  pkg = await freshPackage();
  const garbage = await rejection(pkg.default({ module_or_path: new Uint8Array([...WASM_HEADER, 99]) }));
  assert.ok(garbage instanceof WebAssembly.CompileError, `${garbage}`);
});

test("without engine-check.js (a bundler that left it out), init() still works, and a failing one rejects with its own error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pkg-without-check-"));
  try {
    cpSync(new URL(".", pkgUrl), dir, { recursive: true, filter: (path) => !path.endsWith("engine-check.js") });
    const copy = pathToFileURL(`${dir}/`);
    let pkg = await freshPackage(copy);
    const [error, thrown] = await inEngine(engineWithout("reference types"),
      async (thrown) => [await rejection(pkg.default({ module_or_path: packageBytes })), thrown]);
    assert.ok(thrown.includes(error), `not the engine's CompileError: ${error}`);
    pkg = await freshPackage(copy);
    await pkg.default({ module_or_path: packageBytes });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without BroadcastChannel, init() works and so do a sign-in client and a resource call (tabs are just not kept in step)", async () => {
  const baseUrl = server("FUNDRAISING_BASE_URL");
  const companionUrl = server("FUNDRAISING_COMPANION_URL");
  const campaign = await withoutGlobal("BroadcastChannel", async () => {
    const pkg = await freshPackage();
    await pkg.default({ module_or_path: wasmResponse() });
    // A client that can sign in opens the tabs' channel where there is one.
    const client = new pkg.FundraisingClient({
      appId: server("FUNDRAISING_APP_ID"),
      baseUrl,
      authUrl: server("FUNDRAISING_AUTH_URL"),
      redirectUri: `${companionUrl}/`,
      companionUrl,
    });
    assert.equal(client.session, null);
    return client.getCampaign("demo-campaign");
  });
  assert.equal(campaign.shortName, "demo-campaign");
  assert.equal(campaign.currency.currencyCode, "GBP");
});
