"""One memory budget per sweep: a buffer pool given as a percentage is resolved once, against the
largest loaded database of the sweep's page sizes, so every page size gets the same bytes. Real
loads of 1 warehouse at 4k and 16k on real MariaDB."""

from __future__ import annotations

import json
import shutil

import pytest

from pagelab.common.paths import CACHE_DIR
from pagelab.sweep.experiment import MEMORY_BUDGET_KEY, memory_budget, run_plan
from pagelab.sweep.orchestrator import create_sweep
from pagelab.sweep.profiles import load_profile
from tests.conftest import servers_under


@pytest.mark.server
@pytest.mark.timeout(600)
def test_a_percentage_pool_gives_every_page_size_the_same_bytes(tmp_path):
    profile = load_profile("smoke", ["buffer_pool=30%"])
    sweep_dir = create_sweep(profile, tmp_path / "budget", "smoke")
    run_dir = sweep_dir / "4k-r1"
    try:
        budget = memory_budget(sweep_dir, profile, CACHE_DIR, run_dir)
    finally:
        assert not servers_under(tmp_path)
    loaded = budget["loaded_db_bytes"]
    assert set(loaded) == {"4k", "16k"}
    # The two page sizes load databases of different sizes: that is what a per-page-size pool confounds.
    assert loaded["4k"] != loaded["16k"]
    largest = max(loaded, key=loaded.get)
    assert budget["reference_page_size"] == largest and budget["reference_db_bytes"] == loaded[largest]
    pools = {size: run_plan(profile, size, 1, budget["reference_db_bytes"]).server_settings.buffer_pool_bytes
             for size in ("4k", "16k")}
    assert pools["4k"] == pools["16k"]
    assert abs(pools["4k"] - 0.30 * loaded[largest]) <= 1 << 20  # whole MiB
    recorded = json.loads((sweep_dir / "sweep.json").read_text())[MEMORY_BUDGET_KEY]
    assert recorded[str(profile.warehouses)] == budget
    # A later run reads the recorded budget: with the instances gone it cannot have measured them again.
    shutil.rmtree(sweep_dir / "instances")
    assert memory_budget(sweep_dir, profile, CACHE_DIR, sweep_dir / "16k-r1") == budget
    assert not (sweep_dir / "instances").exists()
