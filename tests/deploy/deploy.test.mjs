// docs/deploy.md as an operator follows it: its nginx server blocks and the companion's
// environment file, taken from the page itself with only the addresses, paths and the
// certificate swapped for local ones (a self-signed certificate from openssl, Debian's nginx),
// the key files made with the page's modes; then a user signs in through nginx over TLS in
// Chromium. Runs under `fundraising-sandbox exec` (scripts/outside-tests.sh), which exports the
// sandbox's addresses; DEPLOY_ORIGIN is the https origin nginx serves, DEPLOY_WORK a folder
// holding the site's build (site/), DEPLOY_PLAYWRIGHT the playwright-core module.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { docBlock, freePort, root, start, startNginx, swap, until } from "./helpers.mjs";

const work = process.env.DEPLOY_WORK;
const origin = process.env.DEPLOY_ORIGIN;
const { chromium } = await import(process.env.DEPLOY_PLAYWRIGHT ?? "playwright-core");
const processes = [];
let companionPort;
let httpPort;

before(async () => {
  assert.ok(work && origin && process.env.FUNDRAISING_AUTH_URL, "run under scripts/outside-tests.sh");
  const port = new URL(origin).port;
  companionPort = await freePort();
  httpPort = await freePort();
  const etc = join(work, "etc");
  mkdirSync(etc, { recursive: true, mode: 0o750 });

  // The key files, with the modes the page gives them.
  const secret = join(etc, "client-secret");
  const cookieKey = join(etc, "cookie.key");
  writeFileSync(secret, "partner-secret\n", { mode: 0o640 });
  writeFileSync(cookieKey, execFileSync("head", ["-c", "64", "/dev/urandom"]), { mode: 0o640 });
  for (const file of [secret, cookieKey]) assert.equal(statSync(file).mode & 0o777, 0o640);

  // The companion, from the page's environment file alone.
  const envFile = swap(docBlock("deploy.md", "sh", "# /etc/fundraising-companion/companion.env"), [
    ["127.0.0.1:8080", `127.0.0.1:${companionPort}`],
    ["https://identity.fundraising.example", process.env.FUNDRAISING_AUTH_URL],
    ["https://api.fundraising.example", process.env.FUNDRAISING_BASE_URL],
    ["https://www.partner.example", origin],
    ["/etc/fundraising-companion/client-secret", secret],
    ["/etc/fundraising-companion/cookie.key", cookieKey],
  ]);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("COMPANION_") && k !== "FUNDRAISING_CLIENT_SECRET"),
  );
  for (const line of envFile.split("\n")) {
    const pair = line.match(/^([A-Z_]+)=(.*)$/);
    if (pair) env[pair[1]] = pair[2];
  }
  processes.push(["companion", start("fundraising-companion", [], { env })]);

  // nginx with the page's server blocks, inside the main configuration Debian's nginx.conf
  // would give them.
  const tls = join(work, "tls");
  mkdirSync(tls, { recursive: true });
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
    "-addext", "subjectAltName=DNS:localhost",
    "-keyout", join(tls, "privkey.pem"), "-out", join(tls, "fullchain.pem"),
  ], { stdio: "ignore" });
  const site = swap(docBlock("deploy.md", "nginx", "/etc/nginx/sites-available/partner"), [
    ["listen 443 ssl;", `listen 127.0.0.1:${port} ssl;`],
    ["listen 80;", `listen 127.0.0.1:${httpPort};`],
    ["server_name www.partner.example;", "server_name localhost;"],
    ["/etc/ssl/partner/fullchain.pem", join(tls, "fullchain.pem")],
    ["/etc/ssl/partner/privkey.pem", join(tls, "privkey.pem")],
    ["/srv/partner/site", join(work, "site")],
    ["http://127.0.0.1:8080", `http://127.0.0.1:${companionPort}`],
    ["https://api.fundraising.example", process.env.FUNDRAISING_BASE_URL],
  ]);
  processes.push(["nginx", startNginx(join(work, "nginx"), site)]);

  await until("the companion answering", async () => (await fetch(`http://127.0.0.1:${companionPort}/healthz`)).ok);
  const https = (path) =>
    new Promise((resolve, reject) => {
      import("node:https").then(({ get }) =>
        get(`${origin}${path}`, { rejectUnauthorized: false }, (res) => {
          let body = "";
          res.on("data", (d) => (body += d)).on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
        }).on("error", reject),
      );
    });
  await until("nginx answering over TLS", async () => (await https("/healthz")).status === 200);
  const health = JSON.parse((await https("/healthz")).body);
  assert.equal(health.version, JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8")).version);
  // Readiness through nginx as the page's location gives it: discovery loaded in the background.
  await until("/readyz through nginx answering ready", async () => (await https("/readyz")).status === 200);
  assert.deepEqual(JSON.parse((await https("/readyz")).body), { status: "ready" });
});

after(async () => {
  for (const [name, child] of processes) {
    child.kill("SIGTERM");
    if (process.exitCode) console.error(`---- ${name} ----\n${child.lines.join("").slice(-3000)}`);
  }
});

test("plain http redirects to https", async () => {
  const { get } = await import("node:http");
  const res = await new Promise((resolve, reject) =>
    get({ host: "127.0.0.1", port: httpPort, path: "/", headers: { Host: `localhost:${httpPort}` } }, resolve).on("error", reject),
  );
  res.resume();
  assert.equal(res.statusCode, 301);
  assert.match(res.headers.location, /^https:\/\/localhost\//);
});

test("a user signs in through nginx over TLS, and the session cookie is Secure", async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
  try {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) problems.push(message.text());
    });
    const response = await page.goto(`${origin}/`);
    assert.match(response.headers()["strict-transport-security"] ?? "", /max-age=/);
    assert.match(response.headers()["content-security-policy"] ?? "", /'wasm-unsafe-eval'/);
    await page.getByText("Demo Campaign: Clean Water for Everyone").waitFor({ timeout: 15_000 });

    const popupOpened = page.waitForEvent("popup");
    await page.click("#sign-in");
    const popup = await popupOpened;
    await popup.fill("input[name=username]", "demo@example.org");
    await popup.fill("input[name=password]", "demo-password");
    await popup.press("input[name=password]", "Enter");
    await popup.click("[name=allow]");
    await page.getByText("Signed in as Demo Fundraiser").waitFor({ timeout: 15_000 });

    // Over https the session cookie is `__Host-` prefixed (Secure, Path=/, no Domain).
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "__Host-fundraising_session");
    assert.ok(session, `no session cookie: ${JSON.stringify(cookies)}`);
    assert.equal(session.secure, true);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, "Strict");
    assert.equal(session.path, "/");
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
