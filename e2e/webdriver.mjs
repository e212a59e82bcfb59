// Shared set-up of the end-to-end tests in the engines Playwright cannot drive here: Firefox
// (Debian's firefox-esr through geckodriver) and WebKit (WebKitGTK's MiniBrowser through
// WebKitWebDriver, on a private Xvfb display), over plain WebDriver with selenium-webdriver.
// Nothing is downloaded: the drivers are started from the machine's own binaries
// (scripts/ensure-tools.sh engines installs them) and selenium only connects to them.
//
// Each test gets a fresh browser session (a new profile: no cookies, no storage) and on failure
// leaves test-artifacts/<engine>-<test>.png (every window) and <engine>-<test>.txt (the address
// and text of every window). The engines run are E2E_ENGINES (comma-separated; default
// "firefox,webkit"); an engine that is missing fails its tests with the command that installs it.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Builder, Key } from "selenium-webdriver";
import { ARTIFACTS, USER, freePort } from "./harness.mjs";

/** The engines these tests run in. */
export const ENGINES = (process.env.E2E_ENGINES ?? "firefox,webkit").split(",").map((s) => s.trim()).filter(Boolean);

/** Longest wait for any one condition. */
const WAIT_MS = 20_000;

/** A program on PATH (or an absolute path that exists), or null. */
function which(name) {
  if (name.includes("/")) return existsSync(name) ? name : null;
  const dirs = [...(process.env.PATH ?? "").split(delimiter), `${process.env.HOME}/.cargo/bin`];
  for (const dir of dirs) {
    const path = join(dir, name);
    if (dir && existsSync(path)) return path;
  }
  return null;
}

/** WebKitGTK's MiniBrowser (the browser WebKitWebDriver drives), or null. */
function miniBrowser() {
  if (process.env.MINIBROWSER_PATH) return existsSync(process.env.MINIBROWSER_PATH) ? process.env.MINIBROWSER_PATH : null;
  for (const lib of ["/usr/lib", "/usr/libexec"]) {
    const candidates = lib === "/usr/libexec"
      ? [`${lib}/webkit2gtk-4.1/MiniBrowser`]
      : readdirSync(lib).map((arch) => `${lib}/${arch}/webkit2gtk-4.1/MiniBrowser`);
    const found = candidates.find((path) => existsSync(path));
    if (found) return found;
  }
  return null;
}

/** What each engine needs, and how its sessions are asked for. */
const ENGINE_SPECS = {
  firefox: {
    name: "Firefox",
    find() {
      const driver = which(process.env.GECKODRIVER || "geckodriver");
      const browser = which(process.env.FIREFOX_PATH || "firefox-esr") ?? which("firefox");
      const missing = [!driver && "geckodriver", !browser && "firefox-esr"].filter(Boolean);
      return { driver, browser, missing };
    },
    args: (port) => [`--port=${port}`],
    capabilities: ({ browser }) => ({
      browserName: "firefox",
      "moz:firefoxOptions": {
        binary: browser,
        args: ["-headless", "-width=1280", "-height=900"],
        prefs: {
          // geckodriver turns the pop-up blocker off; a donor's Firefox has it on. A real click
          // may open a pop-up, a script without a user gesture may not.
          "dom.disable_open_during_load": true,
          "intl.accept_languages": "en-GB",
        },
      },
    }),
  },
  webkit: {
    name: "WebKit",
    find() {
      const driver = which(process.env.WEBKIT_WEBDRIVER || "WebKitWebDriver");
      const browser = miniBrowser();
      const xvfb = which("Xvfb");
      const missing = [!driver && "WebKitWebDriver", !browser && "MiniBrowser", !xvfb && "Xvfb"].filter(Boolean);
      return { driver, browser, missing };
    },
    args: (port) => [`--port=${port}`],
    needsDisplay: true,
    // MiniBrowser's own defaults, as a donor's WebKit browser has them: its pop-up blocker
    // (javascript-can-open-windows-automatically) stays on.
    capabilities: ({ browser }) => ({
      browserName: "MiniBrowser",
      "webkitgtk:browserOptions": { binary: browser, args: ["--automation"] },
    }),
  },
};

/** Waits until `check()` resolves truthy (polled every 100 ms) or fails after `timeout` ms. */
export async function waitUntil(check, { timeout = WAIT_MS, message = "condition" } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${message}${last ? ` (last error: ${last.message})` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts Xvfb on a display it picks (-displayfd); resolves with {display, stop()}. */
function startXvfb() {
  return new Promise((resolve, reject) => {
    const child = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"], {
      stdio: ["ignore", "ignore", "pipe", "pipe"],
    });
    let text = "";
    let errors = "";
    const timer = setTimeout(() => { child.kill(); reject(new Error(`Xvfb did not start within 20 s: ${errors}`)); }, 20_000);
    child.stderr.on("data", (d) => { errors = (errors + d).slice(-2000); });
    child.stdio[3].on("data", (d) => {
      text += d;
      const match = /^(\d+)\n/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve({ display: `:${match[1]}`, stop: () => child.kill() });
      }
    });
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`Xvfb exited (${code}): ${errors}`)); });
  });
}

/**
 * Starts the engine's WebDriver server (and, for WebKit, a display for it); resolves with
 * `{engine, url, capabilities, stop()}`. Throws, naming what is missing and how to install
 * it, when the engine is not on this machine.
 */
export async function startEngine(engine) {
  const spec = ENGINE_SPECS[engine];
  if (!spec) throw new Error(`unknown engine "${engine}" (firefox or webkit)`);
  const found = spec.find();
  if (found.missing.length > 0) {
    throw new Error(`${spec.name} cannot run: ${found.missing.join(", ")} missing (install: scripts/ensure-tools.sh engines)`);
  }
  const xvfb = spec.needsDisplay ? await startXvfb() : null;
  const port = await freePort();
  const log = [];
  const child = spawn(found.driver, spec.args(port), {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...(xvfb ? { DISPLAY: xvfb.display } : {}), LANG: "en_GB.UTF-8", LANGUAGE: "en_GB" },
  });
  const keep = (d) => { log.push(String(d)); if (log.length > 200) log.shift(); };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = null;
  child.once("exit", (code) => { exited = code; });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill();
    xvfb?.stop();
  };
  try {
    await waitUntil(async () => {
      if (exited !== null) throw new Error(`the driver exited (${exited}): ${log.join("").slice(-1000)}`);
      const response = await fetch(`${url}/status`);
      return response.ok;
    }, { timeout: 20_000, message: `${found.driver} to listen on ${url}` });
  } catch (error) {
    await stop();
    throw error;
  }
  return { engine, name: spec.name, url, capabilities: spec.capabilities(found), log, stop };
}

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 80);
}

/** Saves a screenshot and the address and text of every window of the session. */
async function saveArtifacts(driver, base, notes) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const lines = [...notes];
  let handles = [];
  try {
    handles = await driver.getAllWindowHandles();
  } catch (error) {
    lines.push(`no window list: ${error.message}`);
  }
  for (const [index, handle] of handles.entries()) {
    try {
      await driver.switchTo().window(handle);
      const file = `${base}${index === 0 ? "" : `.window${index}`}.png`;
      writeFileSync(file, await driver.takeScreenshot(), "base64");
      lines.push(`window ${index}: ${await driver.getCurrentUrl()}`);
      lines.push(await driver.executeScript("return document.body ? document.body.innerText : ''"));
    } catch (error) {
      lines.push(`window ${index}: ${error.message}`);
    }
  }
  writeFileSync(`${base}.txt`, `${lines.join("\n")}\n`);
}

/**
 * Registers the engine's tests: its WebDriver server starts before them and stops after, and
 * `it(name, body)` runs `body({driver, engine, t})` in a fresh session with a time limit.
 */
export function engineTests(engine, { timeout = 120_000 } = {}) {
  let started = null;
  let failure = null;
  before(async () => {
    try {
      started = await startEngine(engine);
    } catch (error) {
      failure = error;
    }
  });
  after(async () => { await started?.stop(); });
  // A new session, on a driver that answers: WebKitWebDriver at times never answers a new
  // session asked for just after the last one quit (its browser still going away). Such a
  // driver is stopped and a fresh one started, once; the test itself is not run again.
  const newSession = async (note) => {
    for (let attempt = 1; ; attempt += 1) {
      const build = new Builder().usingServer(started.url).withCapabilities(started.capabilities).build();
      try {
        return await within(build, SESSION_MS);
      } catch (error) {
        build.then((late) => late.quit(), () => {}).catch(() => {});
        if (attempt === 2) throw new Error(`no ${started.name} session twice: ${error.message}`);
        note(`the driver gave no session within ${SESSION_MS} ms (${error.message}); started a new driver`);
        await started.stop();
        started = await startEngine(engine);
      }
    }
  };
  return (name, body) => test(name, { timeout }, async (t) => {
    if (failure) throw failure;
    const base = `${ARTIFACTS}${engine}-${slug(name)}`;
    for (const suffix of [".png", ".txt"]) rmSync(`${base}${suffix}`, { force: true });
    const notes = [];
    const driver = await newSession((line) => { notes.push(line); t.diagnostic(line); });
    const commands = recordCommands(driver);
    // The test's own deadline comes before node:test's, which would abandon the body with
    // nothing saved: a WebDriver command that never answers fails the test with its name, the
    // commands before it, and the windows as they are.
    let overrun;
    const deadline = new Promise((_, reject) => {
      overrun = setTimeout(() => reject(new Error(`the test ran past ${timeout - DEADLINE_MARGIN_MS} ms; ${commands.pending()}`)),
        timeout - DEADLINE_MARGIN_MS);
    });
    try {
      await Promise.race([(async () => {
        await driver.manage().setTimeouts({ script: 30_000, pageLoad: 30_000 });
        await driver.manage().window().setRect({ width: 1280, height: 900 }).catch(() => {});
        await body({ driver, engine, t, notes });
      })(), deadline]);
    } catch (error) {
      notes.push(`error: ${error.stack ?? error}`, "WebDriver commands, the last first:", ...commands.recent());
      await within(saveArtifacts(driver, base, notes), ARTIFACTS_MS).catch(() => writeFileSync(`${base}.txt`, `${notes.join("\n")}\n`));
      error.message += `\n  (screenshot and page text: ${base}.png, ${base}.txt)`;
      throw error;
    } finally {
      clearTimeout(overrun);
      await within(driver.quit(), ARTIFACTS_MS).catch(() => {});
    }
  });
}

/** Longest wait for a new session (a cold browser starts in a few seconds). */
const SESSION_MS = 30_000;
/** How long before node:test's timeout a test's own deadline falls. */
const DEADLINE_MARGIN_MS = 20_000;
/** Longest wait for the artifacts of a failed test, or for its session to end. */
const ARTIFACTS_MS = 8_000;

/** `promise`, or a rejection once `ms` have passed. */
function within(promise, ms) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}

/**
 * Keeps the session's last WebDriver commands (name, when sent, how long it took) and the ones
 * still waiting for an answer, for the notes of a failed test.
 */
function recordCommands(driver) {
  const started = Date.now();
  const log = [];
  const waiting = new Set();
  const execute = driver.execute.bind(driver);
  driver.execute = (command, ...rest) => {
    const entry = { name: command.getName(), at: Date.now() - started, took: null };
    log.push(entry);
    if (log.length > 60) log.shift();
    waiting.add(entry);
    const done = () => { entry.took = Date.now() - started - entry.at; waiting.delete(entry); };
    const result = execute(command, ...rest);
    result.then(done, done);
    return result;
  };
  const show = (e) => `${e.name} at ${e.at} ms${e.took === null ? ", no answer yet" : `, ${e.took} ms`}`;
  return {
    recent: () => log.slice().reverse().map(show),
    pending: () => (waiting.size === 0
      ? "no WebDriver command was waiting"
      : `waiting for the WebDriver command ${[...waiting].map(show).join("; ")}`),
  };
}

/** `describe("<Engine>: <title>")` with its tests, for each engine of E2E_ENGINES. */
export function forEachEngine(title, define, options) {
  for (const engine of ENGINES) {
    describe(`${ENGINE_SPECS[engine]?.name ?? engine}: ${title}`, () => define(engineTests(engine, options), engine));
  }
}

/**
 * Runs `fn` in the page (a function; its source is sent) with `args`, through shadow roots and
 * all, and returns its JSON-able result.
 */
export function inPage(driver, fn, ...args) {
  return driver.executeScript(`return (${fn}).apply(null, arguments)`, ...args);
}

/**
 * The element `selectors` leads to: each selector after the first is looked up in the shadow
 * root of the element before (so ["fundraising-campaign", "[role=progressbar]"] is the bar
 * inside the widget). Resolves with a WebElement or null.
 */
export function deepFind(driver, ...selectors) {
  return inPage(driver, (selectors) => {
    let node = document.querySelector(selectors[0]);
    for (const selector of selectors.slice(1)) node = node?.shadowRoot?.querySelector(selector) ?? null;
    return node;
  }, selectors);
}

/** What `deepFind` finds, as {text, attributes, visible}, or null. */
export function deepRead(driver, ...selectors) {
  return inPage(driver, (selectors) => {
    let node = document.querySelector(selectors[0]);
    for (const selector of selectors.slice(1)) node = node?.shadowRoot?.querySelector(selector) ?? null;
    if (!node) return null;
    const attributes = {};
    for (const a of node.attributes) attributes[a.name] = a.value;
    const box = node.getBoundingClientRect();
    return { text: node.textContent, attributes, visible: !node.closest("[hidden]") && box.width > 0 && box.height > 0 };
  }, selectors);
}

/** Waits until `deepRead` finds the element and `accept(read)` holds; resolves with the read. */
export function waitForElement(driver, selectors, accept = () => true, timeout = WAIT_MS) {
  const list = Array.isArray(selectors) ? selectors : [selectors];
  return waitUntil(async () => {
    const read = await deepRead(driver, ...list);
    return read && accept(read) ? read : null;
  }, { timeout, message: list.join(" >>> ") });
}

/** A real click (WebDriver Element Click: the browser treats it as the user's). */
export async function click(driver, ...selectors) {
  const element = await waitUntil(() => deepFind(driver, ...selectors), { message: selectors.join(" >>> ") });
  await element.click();
}

/**
 * Clicks from script, as a page's own timer would: no user gesture, so the browser's pop-up
 * blocker refuses `window.open` (a WebDriver script is not a user action in either engine).
 */
export function clickWithoutUserGesture(driver, selector) {
  return inPage(driver, (selector) => { document.querySelector(selector).click(); }, selector);
}

/**
 * Starts recording the page's Content-Security-Policy violations (from now on). They are kept
 * in an attribute of the document element: Firefox runs each WebDriver script in a sandbox of
 * its own, where globals set by one script are gone for the next.
 */
export function watchCsp(driver) {
  return inPage(driver, () => {
    const root = document.documentElement;
    root.dataset.e2eCsp = "[]";
    document.addEventListener("securitypolicyviolation", (e) => {
      const seen = JSON.parse(root.dataset.e2eCsp);
      seen.push({ directive: e.effectiveDirective, blockedURI: e.blockedURI, sourceFile: e.sourceFile });
      root.dataset.e2eCsp = JSON.stringify(seen);
    }, true);
  });
}

/** The violations recorded since `watchCsp` on this document (throws when it was not called). */
export async function cspViolations(driver) {
  const seen = await inPage(driver, () => document.documentElement.dataset.e2eCsp ?? null);
  if (seen === null) throw new Error("watchCsp was not called on this document");
  return JSON.parse(seen);
}

/** Opens the demo page and waits until every section is wired to the client. */
export async function openDemo(driver, companionUrl, path = "/") {
  await driver.get(`${companionUrl}${path}`);
  await waitForElement(driver, "body[data-ready=true]", () => true, 30_000);
}

/** Fills in the sandbox's login page (unless its session cookie skips it) and answers the consent page. */
export async function loginAndConsent(driver, answer = "allow") {
  const first = await waitUntil(async () => {
    const login = await deepRead(driver, "input[name=username]");
    if (login) return "login";
    return (await deepRead(driver, "[name=allow]")) ? "consent" : null;
  }, { message: "the login or consent page" });
  if (first === "login") {
    const username = await deepFind(driver, "input[name=username]");
    await username.clear();
    await username.sendKeys(USER.email);
    const password = await deepFind(driver, "input[name=password]");
    await password.sendKeys(USER.password, Key.ENTER);
  }
  await click(driver, `[name=${answer}]`);
}

/** The handle of a window opened after `known` (a list of handles), once there is one. */
export function newWindow(driver, known, timeout = WAIT_MS) {
  return waitUntil(async () => (await driver.getAllWindowHandles()).find((h) => !known.includes(h)), {
    timeout, message: "a new window",
  });
}
