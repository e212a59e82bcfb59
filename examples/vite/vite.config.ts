// The service's addresses are fixed when the app is built: from the environment that
// `fundraising-sandbox exec` sets in a test run, or your production values. Only these names
// are read (never FUNDRAISING_CLIENT_SECRET: the secret belongs to the companion alone).
import { defineConfig } from "vite";

const setting = (name: string, fallback: string): string => JSON.stringify(process.env[name] ?? fallback);

export default defineConfig({
  define: {
    __APP_ID__: setting("FUNDRAISING_APP_ID", "demo-app"),
    __BASE_URL__: setting("FUNDRAISING_BASE_URL", "http://127.0.0.1:8081"),
    __AUTH_URL__: setting("FUNDRAISING_AUTH_URL", "http://127.0.0.1:8082"),
    // The companion serves this app's build (one origin: its session cookie is SameSite=Strict),
    // and its "/" is the application's registered home page.
    __COMPANION_URL__: setting("FUNDRAISING_COMPANION_URL", "http://127.0.0.1:8080"),
  },
  build: { target: "es2022" },
});
