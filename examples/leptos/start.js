// Loads the app's WebAssembly (built by scripts/leptos-example.sh into pkg/) and starts it.
import init, { start } from "./pkg/fundraising_leptos_example.js";

await init();
start();
