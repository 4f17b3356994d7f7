"""The fault matrix's first chain: the cells of a run's way to its server (init, load, snapshot,
restore, start), in order on a bundle of their own (tests/faults/matrix.py), then a resume.

Its last test resumes only until a run is done again and stops the sweep: a run that a fault broke
is run again whole, every run done before kept. The resume to the end of a sweep (its report, its
PDF, its tidy-up) is the other chain's last test (test_matrix_from_ramp_up.py), whose bundle has
met the faults of those phases; here it would only repeat it, at the cost of every run left.
"""

from __future__ import annotations

import pytest

from tests.faults import matrix

pytestmark = pytest.mark.server
CELLS = matrix.cells_of(matrix.TO_START)


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    yield from matrix.chain_on_its_own_disk(tmp_path_factory, index=0)


@pytest.mark.parametrize("fault, phase", CELLS, ids=matrix.cell_ids(CELLS))
def test_fault(chain, fault, phase):
    matrix.run(chain, fault, phase)


def test_resume_completes_a_run(chain):
    matrix.resume_until_a_run_is_done(chain)
