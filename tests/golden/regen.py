"""Rewrite the golden files from what the parsers make of the captures today.

    .venv/bin/python tests/golden/regen.py              # every case
    .venv/bin/python tests/golden/regen.py seed002 fio  # cases whose name contains a word

A regenerated golden file is only as right as the parser that wrote it: before committing one,
read the diff (`git diff tests/golden`) and check changed values against the source text by hand.
The golden tests exist to catch a parser that changed its mind; this script makes it agree again.
"""

from __future__ import annotations

import sys

from golden_cases import golden_cases, golden_paths, stored_golden_files


def main(filters: list[str]) -> int:
    written = []
    for name, build in golden_cases():
        if filters and not any(word in name for word in filters):
            continue
        output = build()
        csv_path, side_path = golden_paths(name)
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        csv_path.write_text(output.csv_text(), encoding="utf-8")
        side_path.write_text(output.side_text(), encoding="utf-8")
        warnings = output.side.get("warnings") or [
            w for part in output.side.get("parts", []) for w in part["warnings"]
        ]
        written.append(f"{name}: {len(output.rows)} rows, {len(warnings)} warnings")
    print("\n".join(written))
    if not filters:
        expected = {path for name, _ in golden_cases() for path in golden_paths(name)}
        for stale in sorted(stored_golden_files() - expected):
            print(f"stale golden file (no case writes it any more): {stale}")
    print(f"\n{len(written)} cases written. Review the diff against the source text before committing.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
