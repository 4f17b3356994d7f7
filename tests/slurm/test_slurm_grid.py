"""A grid sweep (2 page sizes x 2 pools) through `--executor slurm` on the private test cluster:
the grid's one round (every cell's unit) runs as one array task on one node, the memory budget is measured once for
all of them, and the report job writes the effect across the pool."""

from __future__ import annotations

import json

import pytest

from tests.conftest import servers_under
from tests.slurm.test_slurm_sweep import job_ids, pagelab, wait_until_gone

pytestmark = [pytest.mark.slurm, pytest.mark.server]


@pytest.mark.timeout(1500)
def test_a_grid_runs_through_slurm_to_its_report(slurm_cluster, tmp_path):
    bundle, pdf = tmp_path / "grid", tmp_path / "grid.pdf"
    submitted = pagelab(slurm_cluster, "sweep", "--profile", "smoke", "--set", "buffer_pool=[30%,60%]",
                        "--set", "rampup_s=1", "--set", "measure_s=6", "--set", "interval_s=3", "--set", "sample_interval_s=3",
                        "--executor", "slurm", "--out", bundle, "--pdf", pdf, "--scratch", tmp_path / "scratch",
                        "--slurm-args=--time=30")
    assert submitted.returncode == 0, submitted.stderr
    wait_until_gone(slurm_cluster, list(job_ids(submitted.stdout)))
    record = json.loads((bundle / "sweep.json").read_text())
    assert {(run["page_size"], run["cell"]["buffer_pool"]): run["status"] for run in record["runs"]} == {
        (size, pool): "done" for size in ("4k", "16k") for pool in ("30%", "60%")}
    assert len({run["slurm_job"] for run in record["runs"]}) == 1 and len({run["host"] for run in record["runs"]}) == 1
    assert list(record["memory_budget"]) == ["1"]
    pools = {}
    for run in record["runs"]:
        summary = json.loads((bundle / run["name"] / "summary.json").read_text())
        pools.setdefault(run["cell"]["buffer_pool"], set()).add(summary["buffer_pool_requested_bytes"])
    assert all(len(found) == 1 for found in pools.values()), pools
    assert (bundle / "figures" / "effect_across_levels.svg").exists() and pdf.exists()
    assert not servers_under(bundle)
