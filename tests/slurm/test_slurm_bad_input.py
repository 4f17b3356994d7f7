"""A sweep on Slurm whose node cannot see the bundle: the task's first step finds out, nothing runs,
and the job says why (on the private two-node cluster, whose node-b has its own empty directory
over `Cluster.hidden`)."""

from __future__ import annotations

import json

import pytest

from tests.slurm.test_slurm_sweep import job_ids, pagelab, wait_until_gone

pytestmark = [pytest.mark.slurm]


@pytest.mark.timeout(300)
def test_a_node_that_cannot_see_the_bundle_fails_the_job_at_once(slurm_cluster, tmp_path):
    bundle = slurm_cluster.hidden / "unseen"
    submitted = pagelab(slurm_cluster, "sweep", "--profile", "tests/faults/tiny.yaml", "--executor", "slurm",
                        "--out", bundle, "--scratch", tmp_path / "scratch", "--slurm-args=--nodelist=node-b --time=5")
    assert submitted.returncode == 0, submitted.stderr
    array_job, report_job = job_ids(submitted.stdout)
    wait_until_gone(slurm_cluster, [array_job, report_job], timeout=240)
    shown = slurm_cluster.run("scontrol", "show", "job", array_job).stdout
    assert f"Comment=pagelab: node node-b cannot see {bundle / 'plan.json'}" in shown, shown
    assert "JobState=CANCELLED" in slurm_cluster.run("scontrol", "show", "job", report_job).stdout
    record = json.loads((bundle / "sweep.json").read_text())
    assert {entry["status"] for entry in record["runs"]} == {"pending"}
    assert all(entry["started"] is None for entry in record["runs"]), "a run started on a node without the bundle"
    assert not (tmp_path / "scratch").exists() and not (bundle / "instances").exists()
