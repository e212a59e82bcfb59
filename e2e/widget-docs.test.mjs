// docs/widgets.md against the code: every text (with its English and Welsh defaults), every
// custom property (with its light and dark defaults) and every part name of the three elements is
// in its table, and the list of parameters a card may carry. Plain Node (no browser): the texts,
// the theme and the card's giving rules are modules of their own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { EVENT_TEXTS } from "../www/widgets/event-text.js";
import { ATTRIBUTION } from "../www/widgets/widget-giving.js";
import { CAMPAIGN_TEXTS, DONATION_TEXTS } from "../www/widgets/widget-text.js";
import { DONATION_PALETTES, PALETTES, SHAPE } from "../www/widgets/widget-theme.js";

const docs = readFileSync(new URL("../docs/widgets.md", import.meta.url), "utf8");
const lines = docs.split("\n");
const rows = lines.filter((line) => line.startsWith("| "));
const rowOf = (first, within = rows) => within.find((line) => line.startsWith(`| \`${first}\` |`));
/** The rows of the first table after the line that begins with `caption`. */
function tableAfter(caption) {
  const start = lines.findIndex((line) => line.startsWith(caption));
  assert.ok(start >= 0, `docs/widgets.md has no line beginning "${caption}"`);
  const table = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("|")) table.push(line);
    else if (table.length > 0) break;
  }
  return table;
}
const cell = (value) => (typeof value === "object"
  ? Object.entries(value).map(([category, text]) => `${category}: \`${text}\``).join("<br>")
  : `\`${value}\``);

/** Each table of texts: the line before it, and the texts it documents. */
const TEXT_TABLES = [
  { caption: "The campaign card's texts", texts: CAMPAIGN_TEXTS },
  { caption: "The donation element's texts", texts: DONATION_TEXTS },
  { caption: "The event element's texts", texts: EVENT_TEXTS },
];

test("every text is in the docs with its English and Welsh defaults", () => {
  for (const { caption, texts } of TEXT_TABLES) {
    const table = tableAfter(caption);
    for (const key of Object.keys(texts.en)) {
      const row = rowOf(`text-${key}`, table);
      assert.ok(row, `text-${key} has no row in docs/widgets.md's ${caption}`);
      assert.equal(row, `| \`text-${key}\` | ${cell(texts.en[key])} | ${cell(texts.cy[key])} |`);
    }
    for (const language of Object.keys(texts)) {
      assert.deepEqual(Object.keys(texts[language]).sort(), Object.keys(texts.en).sort(), `${language} has every text`);
    }
    // Each table documents its element's texts and nothing else.
    const documented = table.slice(2).map((line) => /^\| `text-([a-z-]+)`/.exec(line)?.[1]);
    assert.deepEqual(documented.sort(), Object.keys(texts.en).sort(), caption);
  }
});

test("every custom property is in the docs with its defaults", () => {
  for (const palettes of [PALETTES, DONATION_PALETTES]) {
    assert.deepEqual(Object.keys(palettes.dark).sort(), Object.keys(palettes.light).sort(), "a dark default for each light one");
    for (const name of Object.keys(palettes.light)) {
      assert.equal(rowOf(`--fundraising-${name}`),
        `| \`--fundraising-${name}\` | \`${palettes.light[name]}\` | \`${palettes.dark[name]}\` |`);
    }
  }
  for (const [name, value] of Object.entries(SHAPE)) {
    assert.equal(rowOf(`--fundraising-${name}`), `| \`--fundraising-${name}\` | \`${value}\` | same |`);
  }
  const documented = rows.map((line) => /^\| `--fundraising-([a-z-]+)`/.exec(line)?.[1]).filter(Boolean);
  assert.deepEqual(documented.sort(), [...Object.keys(PALETTES.light), ...Object.keys(DONATION_PALETTES.light), ...Object.keys(SHAPE)].sort());
});

test("every part name is in the docs", () => {
  for (const [element, file] of [
    ["fundraising-campaign", "widget.js"], ["fundraising-event", "event-widget.js"], ["fundraising-donation", "donation-return.js"],
  ]) {
    const source = readFileSync(new URL(`../www/widgets/${file}`, import.meta.url), "utf8");
    const named = new Set([...source.matchAll(/part: "([a-z-]+)"/g)].map((m) => m[1]));
    // The loading and error states widget.js draws for every element that uses them.
    if (/\b(loadingState|renderLoading)\(/.test(source)) named.add("loading");
    if (/\b(errorState|renderError)\(/.test(source)) named.add("error");
    const parts = [...named].sort();
    const row = rows.find((line) => line.startsWith(`| \`<${element}>\` |`));
    assert.ok(row, `no parts row for <${element}>`);
    const documented = [...row.split("|")[2].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort();
    assert.deepEqual(documented, parts, `<${element}>`);
  }
});

test("the attribution list of the docs is the card's", async () => {
  const paragraph = docs.slice(docs.indexOf("Only these names are ever carried"));
  const list = paragraph.slice(paragraph.indexOf("console):"), paragraph.indexOf("A value longer"));
  const names = [...list.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
  assert.deepEqual(names, ATTRIBUTION);
});
