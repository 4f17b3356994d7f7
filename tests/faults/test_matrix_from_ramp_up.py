"""The fault matrix's second chain: the cells from a run's ramp-up on (ramp-up, measurement, record,
the report, the PDF, the tidy-up), in order on a bundle of their own (tests/faults/matrix.py), then
a resume that finishes the sweep. Its first cell starts the sweep, which passes through a run's
first load without a fault on the way to its phase.
"""

from __future__ import annotations

import pytest

from tests.faults import matrix

pytestmark = pytest.mark.server
CELLS = matrix.cells_of(matrix.FROM_RAMP_UP)


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    yield from matrix.chain_on_its_own_disk(tmp_path_factory, index=1)


@pytest.mark.parametrize("fault, phase", CELLS, ids=matrix.cell_ids(CELLS))
def test_fault(chain, fault, phase):
    matrix.run(chain, fault, phase)


def test_resume_finishes_the_sweep(chain):
    matrix.resume_to_the_end(chain)
