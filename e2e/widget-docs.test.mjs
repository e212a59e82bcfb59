// docs/widgets.md against the code: every text (with its English and Welsh defaults), every
// custom property (with its light and dark defaults) and every part name of the two elements is
// in its table. Plain Node (no browser): the texts and the theme are modules of their own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { TEXTS } from "../www/widget-text.js";
import { PALETTES, SHAPE } from "../www/widget-theme.js";

const docs = readFileSync(new URL("../docs/widgets.md", import.meta.url), "utf8");
const rows = docs.split("\n").filter((line) => line.startsWith("| "));
const rowOf = (first) => rows.find((line) => line.startsWith(`| \`${first}\` |`));
const cell = (value) => (typeof value === "object"
  ? Object.entries(value).map(([category, text]) => `${category}: \`${text}\``).join("<br>")
  : `\`${value}\``);

test("every text is in the docs with its English and Welsh defaults", () => {
  for (const key of Object.keys(TEXTS.en)) {
    const row = rowOf(`text-${key}`);
    assert.ok(row, `text-${key} has no row in docs/widgets.md`);
    assert.equal(row, `| \`text-${key}\` | ${cell(TEXTS.en[key])} | ${cell(TEXTS.cy[key])} |`);
  }
  for (const language of Object.keys(TEXTS)) {
    assert.deepEqual(Object.keys(TEXTS[language]).sort(), Object.keys(TEXTS.en).sort(), `${language} has every text`);
  }
});

test("every custom property is in the docs with its defaults", () => {
  for (const name of Object.keys(PALETTES.light)) {
    assert.equal(rowOf(`--fundraising-${name}`),
      `| \`--fundraising-${name}\` | \`${PALETTES.light[name]}\` | \`${PALETTES.dark[name]}\` |`);
  }
  for (const [name, value] of Object.entries(SHAPE)) {
    assert.equal(rowOf(`--fundraising-${name}`), `| \`--fundraising-${name}\` | \`${value}\` | same |`);
  }
  const documented = rows.map((line) => /^\| `--fundraising-([a-z-]+)`/.exec(line)?.[1]).filter(Boolean);
  assert.deepEqual(documented.sort(), [...Object.keys(PALETTES.light), ...Object.keys(SHAPE)].sort());
});

test("every part name is in the docs", () => {
  for (const [element, file] of [["fundraising-campaign", "widget.js"], ["fundraising-donation", "donation-return.js"]]) {
    const source = readFileSync(new URL(`../www/${file}`, import.meta.url), "utf8");
    const parts = [...new Set([...source.matchAll(/part: "([a-z-]+)"/g)].map((m) => m[1]))].sort();
    const row = rows.find((line) => line.startsWith(`| \`<${element}>\` |`));
    assert.ok(row, `no parts row for <${element}>`);
    const documented = [...row.split("|")[2].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort();
    assert.deepEqual(documented, parts, `<${element}>`);
  }
});
