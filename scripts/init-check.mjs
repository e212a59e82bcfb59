// Why the package cannot run in an engine: what it needs of the engine, each tested directly,
// so an engine without one of them gets a FundraisingError "unsupported" naming what is
// missing, never a cryptic CompileError or a widget left blank. scripts/build-pkg.sh ships this
// file as the package's engine-check.js, which init() imports only when it fails (an engine
// that runs the package never fetches it); tests/node/init-check.test.mjs imports it as it is.
// docs/browsers.md turns the same list into minimum browser versions.

/** The module header: magic number and version 1. Alone, it is the empty module. */
export const WASM_HEADER = [0, 97, 115, 109, 1, 0, 0, 0];

/**
 * A module of one function without parameters: its result types, its code (without `end`),
 * and the sections between the function and code sections (a memory).
 */
function oneFunction(results, code, between = []) {
  return [1, 4 + results.length, 1, 96, 0, results.length, ...results, 3, 2, 1, 0, ...between,
    10, code.length + 4, 1, code.length + 2, 0, ...code, 11];
}

/**
 * The WebAssembly features the build lets rustc and wasm-opt use (scripts/build-pkg.sh's
 * --enable-* flags), each as the smallest module that is valid only with it: the sections
 * after the header, checked with `WebAssembly.validate` (no compilation, so no CSP).
 */
export const WASM_PROBES = [
  // (import "a" "b" (global (mut i32)))
  ["mutable globals", [2, 8, 1, 1, 97, 1, 98, 3, 127, 1]],
  // i32.const 0, i32.extend8_s
  ["sign-extension", oneFunction([127], [65, 0, 192])],
  // f32.const 0, i32.trunc_sat_f32_s
  ["non-trapping float-to-int", oneFunction([127], [67, 0, 0, 0, 0, 252, 0])],
  // (memory 0), i32.const 0 (three times), memory.fill
  ["bulk memory", oneFunction([], [65, 0, 65, 0, 65, 0, 252, 11, 0], [5, 3, 1, 0, 0])],
  // ref.null extern, returned as an externref
  ["reference types", oneFunction([111], [208, 111])],
  // i32.const 0, i32.const 0, returned as two results
  ["multi-value", oneFunction([127, 127], [65, 0, 65, 0])],
];

/**
 * Why the package cannot run here, or null when it can: the engine's missing WebAssembly
 * features, and a Content-Security-Policy that refuses to compile WebAssembly. (APIs the
 * package can do without are not required: without BroadcastChannel, tabs are not kept in step.)
 */
export function unsupportedMessage() {
  const reasons = [];
  const missing = [];
  if (typeof WebAssembly !== "object" || typeof WebAssembly.validate !== "function") {
    missing.push("WebAssembly");
  } else {
    for (const [feature, sections] of WASM_PROBES) {
      if (!WebAssembly.validate(new Uint8Array([...WASM_HEADER, ...sections]))) missing.push(`WebAssembly ${feature}`);
    }
  }
  if (missing.length > 0) reasons.push(`this browser lacks ${missing.join(", ")}`);
  if (typeof WebAssembly === "object") {
    // A page whose Content-Security-Policy lacks 'wasm-unsafe-eval' (or a browser that does not
    // know it) refuses every module, the empty one too: Chromium and Firefox when it is
    // compiled, WebKit when it is instantiated.
    try {
      new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(WASM_HEADER)));
    } catch {
      reasons.push("the page's CSP forbids WebAssembly (script-src needs 'wasm-unsafe-eval')");
    }
  }
  return reasons.length > 0 ? `fundraising-client cannot run here: ${reasons.join("; ")}` : null;
}

/**
 * What init() rejects with when it failed with `error`: a `FundraisingError` "unsupported"
 * saying what the engine lacks, or `error` itself when the engine has everything (the failure
 * has another cause, a network error fetching the module, say).
 */
export function explain(error, FundraisingError) {
  const message = unsupportedMessage();
  return message === null ? error : new FundraisingError("unsupported", message, null);
}
