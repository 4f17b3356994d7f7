"""Where the project keeps things. pagelab runs from a checkout (`pip install -e .`), so the
notebooks, profiles and data directories are found relative to the package's own location."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[3]
DATA_DIR = PROJECT_ROOT / "data"
CACHE_DIR = DATA_DIR / "cache"  # generated TPC-C data, reused by every page size and sweep
RUNS_DIR = DATA_DIR / "runs"  # run bundles
REFERENCE_DIR = DATA_DIR / "reference"  # the references' published numbers, tracked in git
REPORTS_DIR = PROJECT_ROOT / "reports"
NOTEBOOKS_DIR = PROJECT_ROOT / "notebooks"
PROFILES_DIR = PROJECT_ROOT / "runbooks" / "profiles"
GLOSSARY = PROJECT_ROOT / "runbooks" / "glossary.md"  # the words, once: the README links it, reports print it
