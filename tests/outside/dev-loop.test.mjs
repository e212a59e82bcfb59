// The dev loops of docs/local-development.md, each started exactly as the page says, in a
// folder outside the workspace: the Vite app the page makes from an empty folder
// (tests/outside/local-development.mjs, DEV_VITE_DIR) with the servers from npm, under
// `npx fundraising-sandbox exec --dev-server --companion -- npm run dev`, and the Leptos example
// on the packaged crates under `fundraising-sandbox exec --dev-server --companion -- ./dev.sh`
// (trunk serve, DEV_LEPTOS_DIR), and the Dioxus example's (trunk serve, DEV_DIOXUS_DIR). In Chromium, a person signs in by pop-up through
// the dev server's origin, reloads and is still signed in; an edit of the page reloads it
// (hot reload) and the session survives that too. Then Ctrl-C stops everything. The same Vite
// app in BFF mode, as the page's "BFF mode" says, also makes a call that needs the session
// through the dev server's `/api` proxy.
//
//   DEV_VITE_DIR=... DEV_LEPTOS_DIR=... DEV_DIOXUS_DIR=... DEV_PLAYWRIGHT=.../playwright-core/index.mjs node --test tests/outside/dev-loop.test.mjs
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const { chromium } = await import(process.env.DEV_PLAYWRIGHT ?? "playwright-core");

const running = new Set();
after(() => {
  for (const child of running) stop(child);
});

/** Ctrl-C in the terminal: SIGINT to the whole foreground process group. */
function stop(child) {
  try {
    process.kill(-child.pid, "SIGINT");
  } catch {}
}

/** Starts `command` in `dir` as a terminal would (its own process group) and resolves with the
 * dev server's address once its output names it. */
function start(dir, command, env = {}) {
  const child = spawn("sh", ["-c", command], {
    cwd: dir,
    detached: true,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let output = "";
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  // Every process writing to the pipes (exec, its servers) has closed them.
  const closed = new Promise((resolve) => child.on("close", resolve));
  const address = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no dev server address within 10 minutes:\n${output}`)), 600_000);
    const read = (chunk) => {
      output += chunk;
      // Vite: "Local:   http://127.0.0.1:PORT/"; trunk: "server listening at:", then the addresses.
      const match = output.replace(/\x1b\[[0-9;]*m/g, "").match(/(?:Local:|listening at:)[\s\S]*?(http:\/\/127\.0\.0\.1:\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    exited.then(({ code, signal }) => reject(new Error(`${command} ended (${code ?? signal}) before serving:\n${output}`)));
  });
  return { child, address, exited, closed, output: () => output };
}

/** Waits for Ctrl-C (sent by `stop`) to end the dev loop started by `start`: a clean stop, with
 * none of a failure's output (the servers' logs) and no warning about a random cookie key. */
async function stopped(dev) {
  stop(dev.child);
  const ended = await Promise.race([dev.closed, new Promise((r) => setTimeout(() => r("still running"), 20_000))]);
  assert.notEqual(ended, "still running", `Ctrl-C did not stop the dev loop:\n${dev.output()}`);
  running.delete(dev.child);
  assert.ok(!dev.output().includes("(last lines)"), `Ctrl-C printed the servers' logs as after a failure:\n${dev.output()}`);
  assert.ok(!dev.output().includes("random cookie key"), `a cookie key warning under exec:\n${dev.output()}`);
}

/** Signs in through the page's pop-up, reloads, and checks the session each time. */
async function signInAndReload(site, { signedIn, signedOut, signInButton }) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    let popups = 0;
    context.on("page", () => popups++);

    await page.goto(`${site}/`);
    await page.getByText(signedOut).waitFor({ timeout: 120_000 });
    const popupOpened = page.waitForEvent("popup");
    await page.click(signInButton);
    const popup = await popupOpened;
    await popup.fill("input[name=username]", "demo@example.org");
    await popup.fill("input[name=password]", "demo-password");
    await popup.press("input[name=password]", "Enter");
    await popup.click("[name=allow]");
    await page.getByText(signedIn).waitFor({ timeout: 30_000 });
    if (!popup.isClosed()) await popup.waitForEvent("close");
    const cookies = await context.cookies(`${site}/auth/session`);
    assert.ok(cookies.some((c) => c.path === "/auth" && c.httpOnly), "the companion's cookie, set on the dev server's origin");

    await page.reload();
    await page.getByText(signedIn).waitFor({ timeout: 30_000 });
    assert.equal(popups, 1, "the reload signed in again");
    assert.deepEqual(errors, []);
    return { page, popups: () => popups, errors };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

test("a Vite app: npm run dev under exec signs in through the dev server's proxy, and a reload and a hot reload keep the session", { skip: !process.env.DEV_VITE_DIR }, async () => {
  const dir = process.env.DEV_VITE_DIR;
  // docs/local-development.md's command, as written.
  const dev = start(dir, "npx fundraising-sandbox exec --dev-server --companion -- npm run dev");
  const site = await dev.address;
  const { page, popups, errors } = await signInAndReload(site, {
    signedIn: "Signed in as Demo Fundraiser",
    signedOut: "Signed out",
    signInButton: "#sign-in",
  });
  try {
    // An edit of the page: Vite reloads it by itself, and the session is restored again.
    const html = join(dir, "index.html");
    const before = readFileSync(html, "utf8");
    try {
      writeFileSync(html, before.replace("</body>", '<p id="edited">Edited while running</p>\n</body>'));
      await page.getByText("Edited while running").waitFor({ timeout: 30_000 });
      await page.getByText("Signed in as Demo Fundraiser").waitFor({ timeout: 30_000 });
    } finally {
      writeFileSync(html, before);
    }
    assert.equal(popups(), 1);
    assert.deepEqual(errors, []);
  } finally {
    await page.context().browser().close();
  }
  await stopped(dev);
});

test("a Vite app in BFF mode: the page holds no token, and a call that needs the session goes through the dev server's /api proxy", { skip: !process.env.DEV_VITE_DIR }, async () => {
  const dir = process.env.DEV_VITE_DIR;
  const doc = readFileSync(new URL("../../docs/local-development.md", import.meta.url), "utf8");
  const bff = doc.split(/^## /m).find((part) => part.startsWith("BFF mode\n"));
  assert.ok(bff, 'docs/local-development.md: no "## BFF mode"');
  const command = bff.match(/^```sh\n(.*)\n```/m)?.[1];
  assert.match(command ?? "", /--companion-arg=--bff/, "the BFF section's command");
  // The page as the section says (`bff: true` on the client), with a button that registers an
  // event: the one call that needs the session.
  const main = join(dir, "src", "main.ts");
  const before = readFileSync(main, "utf8");
  const anchor = "  companionUrl: location.origin,\n";
  assert.ok(before.includes(anchor), "src/main.ts names the companion");
  const call = `
const register = document.createElement("button");
register.id = "register";
register.textContent = "Register an event";
document.querySelector("#app")!.append(register);
register.onclick = async () => {
  const day = new Date(Date.UTC(2031, 5, 1));
  const created = await client.createEvent({ name: "Dev loop run", eventType: "Running_Marathons", startDate: day, completionDate: day, expiryDate: day });
  status.textContent = \`Registered event \${created.id}\`;
};
`;
  writeFileSync(main, before.replace(anchor, `${anchor}  bff: true,\n`) + call);
  try {
    const dev = start(dir, command);
    const site = await dev.address;
    const { page } = await signInAndReload(site, {
      signedIn: "Signed in as Demo Fundraiser",
      signedOut: "Signed out",
      signInButton: "#sign-in",
    });
    try {
      const api = [];
      page.on("request", (request) => {
        if (new URL(request.url()).pathname.startsWith("/api/")) api.push(request);
      });
      await page.click("#register");
      await page.getByText(/^Registered event \d+$/).waitFor({ timeout: 30_000 });
      assert.equal(api.length, 1, "one call, on the dev server's origin under /api");
      assert.equal(new URL(api[0].url()).origin, site);
      assert.equal(api[0].headers().authorization, undefined, "the page sent no token");
    } finally {
      await page.context().browser().close();
    }
    await stopped(dev);
  } finally {
    writeFileSync(main, before);
  }
});

test("the Leptos example: trunk serve under exec signs in through trunk's proxy, and a reload keeps the session", { skip: !process.env.DEV_LEPTOS_DIR }, async () => {
  const dir = process.env.DEV_LEPTOS_DIR;
  // docs/local-development.md's command for trunk, as written (trunk builds the app first).
  const dev = start(dir, "fundraising-sandbox exec --dev-server --companion -- ./dev.sh");
  const site = await dev.address;
  const { page } = await signInAndReload(site, {
    signedIn: "Signed in as Demo Fundraiser",
    signedOut: "Not signed in.",
    signInButton: "#sign-in",
  });
  await page.context().browser().close();
  await stopped(dev);
});

test("the Dioxus example: trunk serve under exec signs in through trunk's proxy, and a reload keeps the session", { skip: !process.env.DEV_DIOXUS_DIR }, async () => {
  const dir = process.env.DEV_DIOXUS_DIR;
  // docs/local-development.md's trunk loop for Dioxus, as written (trunk builds the app's binary).
  const dev = start(dir, "fundraising-sandbox exec --dev-server --companion -- ./dev.sh");
  const site = await dev.address;
  const { page } = await signInAndReload(site, {
    signedIn: "Signed in as Demo Fundraiser",
    signedOut: "Not signed in.",
    signInButton: "#sign-in",
  });
  await page.context().browser().close();
  await stopped(dev);
});
