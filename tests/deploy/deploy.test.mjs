// docs/deploy.md as an operator follows it: its nginx server blocks and the companion's
// environment file, taken from the page itself with only the addresses, paths and the
// certificate swapped for local ones (a self-signed certificate from openssl, Debian's nginx),
// the key files made with the page's modes; then a user signs in through nginx over TLS in
// Chromium. Runs under `fundraising-sandbox exec` (scripts/outside-tests.sh), which exports the
// sandbox's addresses; DEPLOY_ORIGIN is the https origin nginx serves, DEPLOY_WORK a folder
// holding the site's build (site/), DEPLOY_PLAYWRIGHT the playwright-core module.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const work = process.env.DEPLOY_WORK;
const origin = process.env.DEPLOY_ORIGIN;
const { chromium } = await import(process.env.DEPLOY_PLAYWRIGHT ?? "playwright-core");
const processes = [];
let companionPort;
let httpPort;

/** The first fenced block of `lang` in docs/deploy.md that holds `marker` or follows it. */
function docBlock(lang, marker) {
  const doc = readFileSync(join(root, "docs", "deploy.md"), "utf8");
  const at = doc.indexOf(marker);
  assert.ok(at >= 0, `docs/deploy.md no longer has ${marker}`);
  const block = [...doc.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm"))].find(
    (m) => m.index + m[0].length > at,
  );
  assert.ok(block, `docs/deploy.md: no ${lang} block at or after ${marker}`);
  return block[1];
}

/** `text` with each [from, to] replaced; every `from` must occur (the page changed otherwise). */
function swap(text, pairs) {
  for (const [from, to] of pairs) {
    assert.ok(text.includes(from), `docs/deploy.md's block no longer contains ${from}`);
    text = text.split(from).join(to);
  }
  return text;
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function until(what, check, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    assert.ok(Date.now() < deadline, `${what} never happened`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function start(command, args, options, log) {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const lines = [];
  child.stdout.on("data", (d) => lines.push(String(d)));
  child.stderr.on("data", (d) => lines.push(String(d)));
  processes.push({ child, lines, log });
  return child;
}

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
  const envFile = swap(docBlock("sh", "# /etc/fundraising-companion/companion.env"), [
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
  start("fundraising-companion", [], { env }, "companion");

  // nginx with the page's server blocks, inside the main configuration Debian's nginx.conf
  // would give them.
  const tls = join(work, "tls");
  mkdirSync(tls, { recursive: true });
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
    "-addext", "subjectAltName=DNS:localhost",
    "-keyout", join(tls, "privkey.pem"), "-out", join(tls, "fullchain.pem"),
  ], { stdio: "ignore" });
  const site = swap(docBlock("nginx", "/etc/nginx/sites-available/partner"), [
    ["listen 443 ssl;", `listen 127.0.0.1:${port} ssl;`],
    ["listen 80;", `listen 127.0.0.1:${httpPort};`],
    ["server_name www.partner.example;", "server_name localhost;"],
    ["/etc/ssl/partner/fullchain.pem", join(tls, "fullchain.pem")],
    ["/etc/ssl/partner/privkey.pem", join(tls, "privkey.pem")],
    ["/srv/partner/site", join(work, "site")],
    ["http://127.0.0.1:8080", `http://127.0.0.1:${companionPort}`],
    ["https://api.fundraising.example", process.env.FUNDRAISING_BASE_URL],
  ]);
  const nginxDir = join(work, "nginx");
  mkdirSync(nginxDir, { recursive: true });
  const user = process.getuid?.() === 0 ? "user root;\n" : "";
  writeFileSync(
    join(nginxDir, "nginx.conf"),
    `${user}worker_processes 1;\npid ${nginxDir}/nginx.pid;\nerror_log ${nginxDir}/error.log;\n` +
      `events {}\nhttp {\n  include /etc/nginx/mime.types;\n  default_type application/octet-stream;\n` +
      `  access_log ${nginxDir}/access.log;\n  client_body_temp_path ${nginxDir}/body;\n  proxy_temp_path ${nginxDir}/proxy;\n` +
      `  fastcgi_temp_path ${nginxDir}/fastcgi;\n  uwsgi_temp_path ${nginxDir}/uwsgi;\n  scgi_temp_path ${nginxDir}/scgi;\n\n${site}}\n`,
  );
  start("/usr/sbin/nginx", ["-p", nginxDir, "-c", join(nginxDir, "nginx.conf"), "-g", "daemon off;"], {}, "nginx");

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
});

after(async () => {
  for (const { child, lines, log } of processes) {
    child.kill("SIGTERM");
    if (process.exitCode) console.error(`---- ${log} ----\n${lines.join("").slice(-3000)}`);
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

    // The cookie's path is the companion's (/auth), so ask for every cookie of the context.
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "fundraising_session");
    assert.ok(session, `no session cookie: ${JSON.stringify(cookies)}`);
    assert.equal(session.secure, true);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, "Strict");
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
