"""Groups twiggy's item sizes (CSV of `twiggy top -n 1000000 --format csv`, on stdin) by where
the code comes from: our crates by module (fundraising_client::client, ...), other crates as a
whole (serde_wasm_bindgen, core, alloc, ...), the data segments, the rest of the file. The name
sections twiggy lists (present only because the build kept names) are left out."""

import csv
import re
import sys
from collections import defaultdict

OURS = ("fundraising_client", "fundraising_core")


def origin(name):
    if name.startswith('"') or "subsection" in name:
        return None  # the name section
    if name.startswith("data segment") or name.startswith("data["):
        return "(data segments: string and table constants)"
    # The first crate named in the item: `<a[hash]::b::C as d::E>::f` -> a::b
    match = re.search(r"([a-z_][a-z0-9_]*)\[[0-9a-f]{16}\]((?:::[a-z_][a-z0-9_]*)*)", name)
    if not match:
        return "(other: glue, imports, types, tables)"
    crate, path = match.group(1), match.group(2)
    if crate in OURS:
        modules = [m for m in path.split("::") if m]
        return f"{crate}::{modules[0]}" if modules else crate
    return crate


def main():
    rows = list(csv.DictReader(sys.stdin))
    sizes = defaultdict(int)
    counts = defaultdict(int)
    for r in rows:
        where = origin(r["Name"])
        if where is None or r["Name"].startswith("Σ") or r["Name"].startswith("..."):
            continue
        sizes[where] += int(r["ShallowSize"])
        counts[where] += 1
    total = sum(sizes.values())
    print(f"{'bytes':>8}  {'share':>6}  {'items':>5}  origin")
    for where, size in sorted(sizes.items(), key=lambda kv: -kv[1]):
        print(f"{size:>8}  {100 * size / total:5.1f}%  {counts[where]:>5}  {where}")
    print(f"{total:>8}  100.0%  {sum(counts.values()):>5}  total (code and data, without names)")


if __name__ == "__main__":
    main()
