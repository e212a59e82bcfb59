"""The figures table of docs/performance.md, made from bench/REPORT.md's rows: each figure's value
as the report has it, beside its budget or target, so that the guide never holds a second copy
to drift. bench/run.py writes it after each report; tests/docs/docs.test.mjs fails when the
guide's table is not what this makes of the report.

    python3 bench/figures.py            writes the table into docs/performance.md
    python3 bench/figures.py --check    exits 1, saying what differs, when it is not the table
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORT = os.path.join(ROOT, "bench", "REPORT.md")
GUIDE = os.path.join(ROOT, "docs", "performance.md")
BEGIN = "<!-- figures: written by bench/figures.py from bench/REPORT.md; edit that, not this -->"
END = "<!-- /figures -->"

# (what the guide calls it, the report's section, how the report's measure begins, the budget or target)
FIGURES = [
    ("the full package (`pkg/`), gzip -9 per file", "1 size", "fundraising-client (pkg/), gzip -9 per file",
     "≤ 72 KB (73,728 B): **over**, see [below](#where-the-full-package-stands)"),
    ("the light build (`pkg/light/`, no sign-in)", "1 size", "light build (pkg/light/", "≤ 50 KB (51,200 B)"),
    ("the widgets' build (`pkg/widgets/`: a campaign, a donation and its wait)", "1 size", "widgets' build (pkg/widgets/", "≤ 40 KB (40,960 B)"),
    ("the card's build (`pkg/card/`: a campaign only)", "1 size", "card's build (pkg/card/", "≤ 40 KB (40,960 B)"),
    ("a partner page with one card: `widget.js` and the card's build, gzip -9 per file", "1 size",
     "a page with one `<fundraising-campaign>`", "≤ 46,000 B, in 5 requests at most"),
    ("a partner page with `<fundraising-event>`: `event-widget.js` and the light build", "1 size",
     "a page with `<fundraising-event>`", "≤ 60,000 B"),
    ("the client's own work for `getEventPages` of 100 summaries, answer served from memory (Node)", "2 client speed",
     "getEventPages(1001, 100 summaries) vs fetch + JSON.parse, the same answer served from memory", "≤ 1.0 ms"),
    ("`getEventPages` of 100 summaries against `fetch` + `JSON.parse`, in Chromium", "2 client speed",
     "getEventPages(1001, 100 summaries) vs fetch + JSON.parse (", "≤ 1.5×"),
    ("`init()` from fetched bytes", "2 client speed", "module instantiation: init() from fetched bytes", "≤ 5 ms"),
    ("companion `POST /auth/token` against the token endpoint called directly", "3 companion",
     "code exchange: companion /auth/token vs token endpoint direct", "≤ 1.10×"),
    ("a campaign card painted on a throttled phone, against a hand-written card", "9 page load", "a campaign card, title painted", "≤ 1.25×"),
    ("an event's 100 fundraisers painted, against a hand-written list", "9 page load", "an event's 100 fundraisers painted", "≤ 1.4×"),
    ("the event element as documented (`limit` 500), against a hand-written list", "9 page load", "the event element as documented", "≤ 1.6×"),
    ("the card's API request, sent before (−) or after (+) its wasm is compiled", "9 page load", "the card's API request", "before"),
    ("an app page's session restored, signed out / signed in, against `fetch` by hand", "9 page load",
     "an app page's restored session with the full package, signed", ""),
]


def cells(line):
    """A report row's cells (`| a | b \\| c |` is `a`, `b | c`)."""
    out, cur, i = [], "", 2
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line) and line[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if line[i] == "|":
            out.append(cur.strip())
            cur = ""
        else:
            cur += line[i]
        i += 1
    return out


def report_rows(path=REPORT):
    with open(path) as f:
        return [cells(line) for line in f if line.startswith("| ") and not line.startswith("| section |")]


def table(path=REPORT):
    rows = report_rows(path)
    lines = [
        f"| figure | now ([bench/REPORT.md](../bench/REPORT.md)) | budget or target |",
        "|---|---|---|",
    ]
    for label, section, measure, budget in FIGURES:
        found = [r for r in rows if r[0] == section and r[1].startswith(measure)]
        if not found:
            value = "not in the report: run `make bench`"
        else:
            value = " / ".join(f"**{r[2]}**" for r in found)
        lines.append(f"| {label} | {value} | {budget} |")
    return "\n".join(lines)


def written(guide_text, path=REPORT):
    start, end = guide_text.index(BEGIN), guide_text.index(END)
    return guide_text[: start + len(BEGIN)] + "\n" + table(path) + "\n" + guide_text[end:]


def main(argv):
    with open(GUIDE) as f:
        text = f.read()
    want = written(text)
    if "--check" in argv:
        if want != text:
            print(f"{os.path.relpath(GUIDE, ROOT)}'s figures are not bench/REPORT.md's: run python3 bench/figures.py\n{table()}", file=sys.stderr)
            return 1
        return 0
    with open(GUIDE, "w") as f:
        f.write(want)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
