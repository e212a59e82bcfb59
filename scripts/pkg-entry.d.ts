// The declaration of scripts/pkg-entry.js's own export; scripts/bundle-pkg.mjs puts it in the
// package's declarations in place of wasm-bindgen's for the glue's init(), which it wraps.
/**
 * Loads and instantiates the package's WebAssembly module, once: from `module_or_path` (a URL,
 * a `Request`, a `Response`, bytes or a compiled `WebAssembly.Module`, or a promise of one), or
 * else `fundraising_client_bg.wasm` beside this module. When the engine or the page's CSP
 * cannot run the package, it rejects with a `FundraisingError` whose code is `unsupported`.
 *
 * @param module_or_path - `{ module_or_path }`; passing it directly is deprecated.
 */
export default function init(module_or_path?: { module_or_path?: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
