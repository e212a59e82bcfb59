// The service's addresses are fixed when the app is built or served: from the environment that
// `fundraising-sandbox exec` sets, or your production values. Only these names are read (never
// FUNDRAISING_CLIENT_SECRET: the secret belongs to the companion alone).
//
// `npm run dev` under `fundraising-sandbox exec --dev-server --companion` (docs/local-development.md):
// the dev server listens on FUNDRAISING_DEV_SERVER_URL, the application's registered home page,
// and passes /auth (and, in BFF mode, /api) to the companion, so the page, the companion and the
// home page share one origin: the session cookie and the pop-up's hand-back work with hot reload.
import { defineConfig } from "vite";

const env = process.env;
const setting = (name: string, fallback: string): string => JSON.stringify(env[name] ?? fallback);

const devServer = env.FUNDRAISING_DEV_SERVER_URL ? new URL(env.FUNDRAISING_DEV_SERVER_URL) : undefined;
const companion = env.FUNDRAISING_COMPANION_URL ?? "http://127.0.0.1:8080";
const server = {
  // Exactly the registered home page's host and port: another port would be another origin.
  ...(devServer && { host: devServer.hostname, port: Number(devServer.port), strictPort: true }),
  proxy: { "/auth": companion, "/api": companion },
};

export default defineConfig({
  define: {
    __APP_ID__: setting("FUNDRAISING_APP_ID", "demo-app"),
    __BASE_URL__: setting("FUNDRAISING_BASE_URL", "http://127.0.0.1:8081"),
    __AUTH_URL__: setting("FUNDRAISING_AUTH_URL", "http://127.0.0.1:8082"),
  },
  server,
  preview: server,
  // The package fetches its .wasm beside its own module (`new URL(..., import.meta.url)`): served
  // from node_modules as it is, not pre-bundled into .vite/deps, where no .wasm is (Vite 8
  // copes without this; Vite 7 and older do not).
  optimizeDeps: { exclude: ["fundraising-client"] },
  build: { target: "es2022" },
});
