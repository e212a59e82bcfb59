// A minimal browser over Node's fetch for the identity servers' pages: it follows redirects
// by hand, keeps cookies per host, and sends HTML forms as a browser does (a same-origin form
// post carries `Origin` and `Sec-Fetch-Site: same-origin`). It stops at the redirect URI and
// hands back that address, which holds the code.

/** A cookie jar for one test: name=value per host (paths and expiry do not matter here). */
export class Browser {
  #cookies = new Map();

  #cookieHeader(url) {
    const jar = this.#cookies.get(url.host);
    return jar && jar.size > 0 ? [...jar].map(([n, v]) => `${n}=${v}`).join("; ") : undefined;
  }

  #remember(url, response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const i = pair.indexOf("=");
      const [name, value] = [pair.slice(0, i).trim(), pair.slice(i + 1).trim()];
      const jar = this.#cookies.get(url.host) ?? new Map();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
      this.#cookies.set(url.host, jar);
    }
  }

  /** One request, no redirect followed. */
  async request(url, { method = "GET", form, headers = {} } = {}) {
    url = new URL(url);
    const h = new Headers(headers);
    const cookie = this.#cookieHeader(url);
    if (cookie) h.set("cookie", cookie);
    let body;
    if (form) {
      h.set("content-type", "application/x-www-form-urlencoded");
      h.set("origin", url.origin);
      h.set("sec-fetch-site", "same-origin");
      body = new URLSearchParams(form).toString();
    }
    const response = await fetch(url, { method, headers: h, body, redirect: "manual" });
    this.#remember(url, response);
    return response;
  }

  /**
   * Goes to `start` and follows redirects; on each HTML form page calls `fill(html, url)`,
   * which returns `{ action, fields }` to submit (or throws). Resolves with the first address
   * starting with `until` (the redirect URI), without requesting it.
   */
  async navigate(start, until, fill) {
    let url = new URL(start);
    let response = await this.request(url);
    for (let step = 0; step < 20; step += 1) {
      if (response.status >= 300 && response.status < 400) {
        const next = new URL(response.headers.get("location"), url);
        if (next.href.startsWith(until)) return next;
        url = next;
        response = await this.request(url);
        continue;
      }
      const html = await response.text();
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${html.slice(0, 500)}`);
      const { action, fields } = fill(html, url);
      url = new URL(action, url);
      response = await this.request(url, { method: "POST", form: fields });
    }
    throw new Error(`no redirect to ${until} after 20 steps`);
  }
}

/** Decodes the few HTML entities the pages use in attribute values. */
function unescape(text) {
  return text
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&#x2F;", "/")
    .replaceAll("&amp;", "&");
}

/** The first form of a page: its action and its hidden inputs. */
export function formOf(html) {
  const form = html.match(/<form\b[^>]*>/i);
  if (!form) throw new Error(`no form on the page: ${html.slice(0, 500)}`);
  const action = unescape(form[0].match(/action="([^"]*)"/i)?.[1] ?? "");
  const fields = {};
  for (const input of html.matchAll(/<input\b[^>]*>/gi)) {
    const tag = input[0];
    if (!/type="hidden"/i.test(tag)) continue;
    const name = tag.match(/name="([^"]*)"/i)?.[1];
    const value = tag.match(/value="([^"]*)"/i)?.[1] ?? "";
    if (name) fields[unescape(name)] = unescape(value);
  }
  return { action, fields };
}

/**
 * What the user does on the sandbox's pages: the login form with `username` and
 * `password`, then Allow on the consent page.
 */
export function sandboxUser(username, password) {
  return (html) => {
    const { action, fields } = formOf(html);
    if (/name="password"/.test(html)) return { action, fields: { ...fields, username, password } };
    if (/name="allow"/.test(html)) return { action, fields: { ...fields, allow: "1" } };
    throw new Error(`an unexpected page: ${html.slice(0, 500)}`);
  };
}
