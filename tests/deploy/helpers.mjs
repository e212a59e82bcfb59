// What the deployment tests share: a docs page's fenced blocks with their placeholders swapped
// for local values, free ports, waiting on a condition, and Debian's nginx run on a
// configuration made of a page's blocks.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../", import.meta.url));

/** The first fenced block of `lang` in docs/`page` that holds `marker` or follows it. */
export function docBlock(page, lang, marker) {
  const doc = readFileSync(join(root, "docs", page), "utf8");
  const at = doc.indexOf(marker);
  assert.ok(at >= 0, `docs/${page} no longer has ${marker}`);
  const block = [...doc.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm"))].find(
    (m) => m.index + m[0].length > at,
  );
  assert.ok(block, `docs/${page}: no ${lang} block at or after ${marker}`);
  return block[1];
}

/** `text` with each [from, to] replaced; every `from` must occur (the page changed otherwise). */
export function swap(text, pairs) {
  for (const [from, to] of pairs) {
    assert.ok(text.includes(from), `the docs' block no longer contains ${from}`);
    text = text.split(from).join(to);
  }
  return text;
}

export function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function until(what, check, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    assert.ok(Date.now() < deadline, `${what} never happened`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A child process whose output is kept, to print when a test failed. */
export function start(command, args, options = {}) {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  child.lines = [];
  child.stdout.on("data", (d) => child.lines.push(String(d)));
  child.stderr.on("data", (d) => child.lines.push(String(d)));
  return child;
}

/** Debian's nginx in the foreground on `servers` (server blocks), inside the main configuration
 * Debian's nginx.conf would give them (its modules and MIME types), with its files in `dir`. */
export function startNginx(dir, servers) {
  mkdirSync(dir, { recursive: true });
  const user = process.getuid?.() === 0 ? "user root;\n" : "";
  writeFileSync(
    join(dir, "nginx.conf"),
    `${user}include /etc/nginx/modules-enabled/*.conf;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\n` +
      `events {}\nhttp {\n  include /etc/nginx/mime.types;\n  default_type application/octet-stream;\n` +
      `  access_log ${dir}/access.log;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n` +
      `  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n\n${servers}}\n`,
  );
  // Debian's prefix, against which its modules-enabled files name the modules.
  return start("/usr/sbin/nginx", ["-p", "/usr/share/nginx", "-e", join(dir, "error.log"), "-c", join(dir, "nginx.conf"), "-g", "daemon off;"]);
}
