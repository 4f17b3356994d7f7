"""notebooks/btree_block_size_model.ipynb runs end to end under papermill with tiny parameters."""

from __future__ import annotations

import platform
import shutil
from pathlib import Path

import pytest

from pagelab.machine.device_profile import DeviceProfile
from pagelab.machine.fio import PROFILE_MAX_AGE_DAYS, profile_cache_path
from tests.notebook_checks import (REPO_ROOT, check_committed_clean, check_ran_without_errors, execute,
                                  internal_labels, output_text, table_headers)

NOTEBOOK = "btree_block_size_model.ipynb"


def _fio_parameters(tmp_path: Path) -> dict:
    """The cached fio profile of the data disk when it is fresh (the notebook's defaults reuse
    it); otherwise a tiny fio run (4k and 16k, 0.5 s each, a 64 MiB file) cached under tmp_path,
    so the project's real profile is never replaced by a tiny one."""
    cached = profile_cache_path(REPO_ROOT / "data")
    try:
        profile = DeviceProfile.load(cached)
        fresh = profile.age_days() is not None and 0 <= profile.age_days() < PROFILE_MAX_AGE_DAYS - 1
        if fresh and profile.host == (platform.node() or None) and {4096, 16384} <= set(profile.block_sizes):
            return {"block_sizes": list(profile.block_sizes)}
    except (OSError, ValueError, TypeError, KeyError):
        pass
    if shutil.which("fio") is None:
        pytest.fail("no fresh cached fio profile of the data disk, and fio is not installed: run `make setup`")
    return {"block_sizes": [4096, 16384], "fio_cache_dir": str(tmp_path / "fio-cache"), "fio_runtime_s": 0.5,
            "fio_size": "64M", "fio_directory": str(tmp_path)}  # fmt: skip


def test_the_notebook_is_committed_clean():
    check_committed_clean(NOTEBOOK, "rethinking b-tree block sizes on ssds")


def test_the_notebook_runs_with_tiny_parameters(tmp_path):
    parameters = {
        "fill_keys": 3_000,
        "fill_steps": 2,
        "prototype_keys": 20_000,
        "n_lookups": 300,
        "cache_sizes": ["0", "1M", "1G"],
        "work_dir": str(tmp_path / "trees"),
        "fio_beside_s": 0.5,
        "fio_rounds": 2,
        **_fio_parameters(tmp_path),
    }
    executed = execute(NOTEBOOK, tmp_path, parameters)
    check_ran_without_errors(executed)
    assert not internal_labels(table_headers(executed)), "a table shows an internal name"
    text = output_text(executed)
    assert "Recommended page size" in text  # the advisor's last line
    assert "reads per lookup" in text and "the goal >= 0.8" in text  # the prototype check
    assert "against fio on the same file in the same minutes" in text
    assert "each of 2 slices against the fio runs either side of it" in text
    assert "queries/s, the post" in text  # the model beside the post's table, in words
    assert sorted(path.name for path in (tmp_path / "trees").glob("*.db")) == ["lookups-16k.db", "lookups-4k.db"]
