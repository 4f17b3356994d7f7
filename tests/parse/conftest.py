"""Shared set-up for the parser tests: the golden-case helpers live in tests/golden."""

from __future__ import annotations

import sys
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
if str(GOLDEN_DIR) not in sys.path:
    sys.path.insert(0, str(GOLDEN_DIR))
