"""The private two-node Slurm cluster the tests in this folder share (tests/slurm/cluster.py):
started once, stopped at the end, and checked to have left no daemon, namespace or bridge behind."""

from __future__ import annotations

import pytest

from tests.slurm.cluster import Cluster, leftover_daemons, require_slurm


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    require_slurm()
    # A short path: slurmd's spool holds unix sockets, whose paths are limited to 107 bytes.
    cluster = Cluster(tmp_path_factory.mktemp("slurm")).start()
    try:
        yield cluster
    finally:
        cluster.stop()
    assert leftover_daemons(cluster.directory) == [], "a Slurm or munge daemon outlived the test cluster"
    assert cluster.leftover_network() == [], "the test cluster's namespaces or bridge outlived it"
