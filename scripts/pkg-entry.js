// The package's entry module, of our own: it re-exports wasm-bindgen's glue (the classes,
// `newDonationReference`, `initSync`), adds `FundraisingError` (a JS class from src/js/error.js)
// and `adoptResponse` (src/http/early.js), and wraps the glue's init(). scripts/bundle-pkg.mjs bundles it with the glue and its snippets
// into one module: `wasm-bindgen:glue` is the glue, `wasm-bindgen:snippet/<path>` the snippet of
// the crate's file <path>. The glue is built with `--omit-default-module-path`: the wasm's
// default place is said here.
import glueInit from "wasm-bindgen:glue";
import { FundraisingError } from "wasm-bindgen:snippet/src/js/error.js";

export * from "wasm-bindgen:glue";
export { FundraisingError };
// An answer the page started before the package was loaded (src/http/early.js).
export { adoptResponse } from "wasm-bindgen:snippet/src/http/early.js";

/**
 * wasm-bindgen's init(), with the wasm beside this module unless told otherwise; when it fails,
 * the engine check (engine-check.js, fetched only then) says whether the engine or the page's
 * CSP cannot run the package, as a FundraisingError "unsupported" (docs/browsers.md).
 */
export default async function init(options) {
  const plain = options !== undefined && options !== null && Object.getPrototypeOf(options) === Object.prototype;
  if (options === undefined || (plain && options.module_or_path === undefined)) {
    options = { ...options, module_or_path: new URL("fundraising_client_bg.wasm", import.meta.url) };
  }
  try {
    return await glueInit(options);
  } catch (e) {
    throw await import("./engine-check.js").then((check) => check.explain(e, FundraisingError), () => e);
  }
}
