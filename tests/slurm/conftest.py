"""The private two-node Slurm cluster the tests in this folder share (tests/slurm/cluster.py):
started once, stopped at the end with a job still running, and checked to have left no daemon,
namespace or bridge behind (checks first seen to find the running cluster's, so that they can fail)."""

from __future__ import annotations

import pytest

from tests.slurm.cluster import Cluster, leftover_daemons, require_slurm


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    require_slurm()
    # A short path: slurmd's spool holds unix sockets, whose paths are limited to 107 bytes.
    cluster = Cluster(tmp_path_factory.mktemp("slurm")).start()
    try:
        assert leftover_daemons(cluster.directory), "the cluster's daemons are not seen while they run"
        assert cluster.leftover_network(), "the cluster's namespaces are not seen while they exist"
        yield cluster
        # stopped with a job running, as a test that fails part-way leaves it
        job = cluster.run("sbatch", "--parsable", "--wrap", "sleep 60", f"--output={cluster.directory}/job.out")
        assert job.stdout.strip().isdigit(), job.stderr
    finally:
        cluster.stop()
    assert all(process.poll() is not None for process in cluster.processes.values()), "a daemon outlived stop()"
    assert leftover_daemons(cluster.directory) == [], "a Slurm or munge daemon outlived the test cluster"
    assert cluster.leftover_network() == [], "the test cluster's namespaces or bridge outlived it"
