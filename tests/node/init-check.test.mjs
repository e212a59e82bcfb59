// The engine check in front of the package's init() (scripts/init-check.mjs, inlined into the
// glue by scripts/build-pkg.sh): each WebAssembly probe is valid exactly when its feature is on
// (checked with binaryen, which knows every feature), each missing feature or API is named, and
// the built package's init() and initSync() reject with a FundraisingError "unsupported" that
// says what is missing, then work once it is there. Needs pkg/ (`make pkg`) and tools/ (npm ci).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WASM_HEADER, WASM_PROBES, unsupportedMessage } from "../../scripts/init-check.mjs";

const pkgUrl = new URL("../../pkg/", import.meta.url);
const wasmOpt = new URL("../../tools/node_modules/.bin/wasm-opt", import.meta.url).pathname;

/** binaryen's flag for each probe's feature. */
const BINARYEN_FLAGS = {
  "mutable globals": "--enable-mutable-globals",
  "sign-extension": "--enable-sign-ext",
  "non-trapping float-to-int": "--enable-nontrapping-float-to-int",
  "bulk memory": "--enable-bulk-memory",
  "reference types": "--enable-reference-types",
  "multi-value": "--enable-multivalue",
};

/** Whether binaryen validates `bytes` with only the MVP and `flags` on. */
function binaryenAccepts(bytes, flags) {
  const dir = mkdtempSync(join(tmpdir(), "init-check-"));
  try {
    const file = join(dir, "probe.wasm");
    writeFileSync(file, bytes);
    execFileSync(wasmOpt, [file, "--mvp-features", ...flags, "-o", join(dir, "out.wasm")], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `body` with `WebAssembly.validate` refusing exactly the probe of `feature`. */
function withoutFeature(feature, body) {
  const probe = WASM_PROBES.find(([name]) => name === feature)[1];
  const refused = new Uint8Array([...WASM_HEADER, ...probe]);
  const validate = WebAssembly.validate;
  WebAssembly.validate = (bytes) => {
    const same = bytes.length === refused.length && bytes.every((b, i) => b === refused[i]);
    return !same && validate.call(WebAssembly, bytes);
  };
  try {
    return body();
  } finally {
    WebAssembly.validate = validate;
  }
}

/** Runs `body` (sync or async) with the global `name` hidden. */
async function withoutGlobal(name, body) {
  const saved = Object.getOwnPropertyDescriptor(globalThis, name);
  delete globalThis[name];
  try {
    return await body();
  } finally {
    Object.defineProperty(globalThis, name, saved);
  }
}

test("every probe the build's features cover is valid with its feature alone and invalid without it", () => {
  // The same features scripts/build-pkg.sh passes to wasm-opt.
  const built = readFileSync(new URL("../../scripts/build-pkg.sh", import.meta.url), "utf8");
  const enabled = built.match(/^features=\(([^)]*)\)/m)[1].split(/\s+/).filter(Boolean).sort();
  assert.deepEqual([...Object.values(BINARYEN_FLAGS)].sort(), enabled, "a feature of the build has no probe, or a probe no feature");
  for (const [feature, sections] of WASM_PROBES) {
    const bytes = new Uint8Array([...WASM_HEADER, ...sections]);
    assert.equal(binaryenAccepts(bytes, [BINARYEN_FLAGS[feature]]), true, `${feature}: invalid even with its feature`);
    assert.equal(binaryenAccepts(bytes, []), false, `${feature}: valid without its feature`);
    assert.equal(WebAssembly.validate(bytes), true, `${feature}: Node's engine refuses it`);
  }
});

test("an engine with everything passes; each missing WebAssembly feature is named", () => {
  assert.equal(unsupportedMessage(), null);
  for (const [feature] of WASM_PROBES) {
    const message = withoutFeature(feature, unsupportedMessage);
    assert.equal(message, `fundraising-client cannot run here: this browser lacks WebAssembly ${feature}`);
  }
});

test("missing APIs, a missing WebAssembly and a CSP without 'wasm-unsafe-eval' are named", async () => {
  assert.match(await withoutGlobal("BroadcastChannel", unsupportedMessage), /lacks BroadcastChannel$/);
  assert.match(await withoutGlobal("AbortController", unsupportedMessage), /lacks AbortController$/);
  assert.equal(await withoutGlobal("WebAssembly", unsupportedMessage), "fundraising-client cannot run here: this browser lacks WebAssembly");
  // What a page's CSP does to every module, the empty one too: Chromium and Firefox refuse to
  // compile it, WebKit to instantiate it.
  for (const step of ["Module", "Instance"]) {
    const real = WebAssembly[step];
    WebAssembly[step] = function refused() {
      throw new WebAssembly.CompileError("Refused to create a WebAssembly object because 'unsafe-eval' or 'wasm-unsafe-eval' is not an allowed source of script");
    };
    try {
      assert.equal(unsupportedMessage(),
        "fundraising-client cannot run here: the page's CSP forbids WebAssembly (script-src needs 'wasm-unsafe-eval')", step);
    } finally {
      WebAssembly[step] = real;
    }
  }
});

test("the built package's init() and initSync() reject with FundraisingError 'unsupported', then work once the engine has what they need", async () => {
  const manifest = JSON.parse(readFileSync(new URL("package.json", pkgUrl), "utf8"));
  const pkg = await import(new URL(manifest.module, pkgUrl));
  const bytes = readFileSync(new URL("fundraising_client_bg.wasm", pkgUrl));

  const error = await withoutGlobal("BroadcastChannel", () => pkg.default({ module_or_path: bytes }).then(() => null, (e) => e));
  assert.ok(error instanceof pkg.FundraisingError, `not a FundraisingError: ${error}`);
  assert.equal(error.code, "unsupported");
  assert.equal(error.status, null);
  assert.equal(error.message, "fundraising-client cannot run here: this browser lacks BroadcastChannel");

  const syncError = withoutFeature("reference types", () => {
    try {
      pkg.initSync({ module: bytes });
      return null;
    } catch (e) {
      return e;
    }
  });
  assert.ok(syncError instanceof pkg.FundraisingError);
  assert.equal(syncError.code, "unsupported");
  assert.match(syncError.message, /lacks WebAssembly reference types$/);

  // Nothing was left half-done: with the engine whole again, init() works and the client runs.
  await pkg.default({ module_or_path: bytes });
  const client = new pkg.FundraisingClient({ appId: "demo-app", baseUrl: "http://127.0.0.1:9" });
  assert.equal(client.session, null);
});
