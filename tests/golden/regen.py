"""Write what the parsers make of the captures today beside the golden files, for review.

    .venv/bin/python tests/golden/regen.py                # every case
    .venv/bin/python tests/golden/regen.py week4_lab fio  # cases whose name contains a word

A golden file is never overwritten: where the parser's output differs, it goes to NAME.csv.new /
NAME.json.new next to it, and the script prints the difference. A person then checks the changed
values against the source text by hand and moves the new file over the old one (or deletes it);
until then tests/parse/test_parse_golden.py fails, naming the files waiting for review.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from golden_cases import golden_cases, golden_paths, stored_golden_files


def main(filters: list[str]) -> int:
    written = []
    for name, build in golden_cases():
        if filters and not any(word in name for word in filters):
            continue
        output = build()
        csv_path, side_path = golden_paths(name)
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        changed = [path for path, text in ((csv_path, output.csv_text()), (side_path, output.side_text()))
                   if write_beside(path, text)]
        if changed:
            written.append(f"{name}: {len(output.rows)} rows, new: {', '.join(p.name + '.new' for p in changed)}")
    print("\n".join(written))
    if not filters:
        expected = {path for name, _ in golden_cases() for path in golden_paths(name)}
        for stale in sorted(stored_golden_files() - expected):
            print(f"stale golden file (no case writes it any more): {stale}")
    print(f"\n{len(written)} cases differ from their golden files. Check each difference against the source "
          "text, then move NAME.new over NAME (or delete it).")
    return 0


def write_beside(golden: Path, text: str) -> bool:
    """Write `text` to GOLDEN.new if it differs from the golden file, and print the difference."""
    new = golden.with_name(golden.name + ".new")
    old = golden.read_text(encoding="utf-8") if golden.exists() else ""
    if old == text:
        new.unlink(missing_ok=True)
        return False
    new.write_text(text, encoding="utf-8")
    print("\n".join(difflib.unified_diff(old.splitlines(), text.splitlines(), str(golden), str(new),
                                         lineterm="", n=0)))
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
