// A Rust app that depends on fundraising-client gets neither the npm package's JS exports nor its
// allocator: tests/rust-app (the crate without its `js` feature, with an allocator of its own,
// which would not link beside another) is built for wasm32; its wasm exports its own function and
// none of the package's, and that function works against the sandbox.
// Runs inside scripts/with-servers.sh (FUNDRAISING_BASE_URL).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const app = join(root, "tests/rust-app");
const target = join(root, "target/rust-app");

/** The export names of the wasm that wasm-bindgen makes of `wasmFile`. */
function bindgenExports(wasmFile, out, stem) {
  execFileSync("wasm-bindgen", ["--target", "nodejs", "--out-dir", out, wasmFile]);
  const bytes = readFileSync(join(out, `${stem}_bg.wasm`));
  return WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name);
}

test("a Rust app's wasm exports its own function and none of the package's JS names", async () => {
  execFileSync("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown"], {
    cwd: app,
    env: { ...process.env, CARGO_TARGET_DIR: target },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const out = mkdtempSync(join(tmpdir(), "rust-app-"));
  try {
    // The npm package's JS surface, as wasm-bindgen exports it (`fundraisingclient_getcampaign`,
    // `newDonationReference`, ...), from the package's own build (`make pkg`, before its names
    // are minified).
    const pkgWasm = join(root, "target/pkg-raw/full.wasm");
    const jsNames = bindgenExports(pkgWasm, join(out, "pkg"), "full")
      .filter((name) => /^(fundraisingclient|eventpagesiterator)_|^newDonationReference$/.test(name));
    // The full build: at least the constructor, the resource calls, sign-in, the iterator and
    // newDonationReference.
    for (const name of ["fundraisingclient_new", "fundraisingclient_getEventPages", "fundraisingclient_signInWithPopup",
      "eventpagesiterator_next", "newDonationReference"]) {
      assert.ok(jsNames.includes(name), `${name} is not among the package's JS names: ${jsNames}`);
    }

    const appWasm = join(target, "wasm32-unknown-unknown/release/fundraising_rust_app_check.wasm");
    const exports = bindgenExports(appWasm, join(out, "app"), "fundraising_rust_app_check");
    assert.ok(exports.includes("campaignTitle"), `the app's own export is missing: ${exports}`);
    const leaked = exports.filter((name) => jsNames.includes(name) || /^(fundraisingclient|eventpagesiterator)_/.test(name));
    assert.deepEqual(leaked, [], "the app exports the package's JS surface");

    // And it works: the app's glue, in Node, against the sandbox.
    const glue = await import(pathToFileURL(join(out, "app", "fundraising_rust_app_check.js")));
    const baseUrl = process.env.FUNDRAISING_BASE_URL;
    assert.ok(baseUrl, "FUNDRAISING_BASE_URL is not set: run inside scripts/with-servers.sh");
    assert.equal(await glue.campaignTitle(baseUrl), "Demo Campaign: Clean Water for Everyone");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
