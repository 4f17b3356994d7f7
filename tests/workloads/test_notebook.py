"""notebooks/random_write_cost.ipynb: committed clean, and it runs under papermill with small parameters."""

from __future__ import annotations

import re

import pytest

from pagelab.workloads.random_writes.run import run_random_write_cost
from tests.notebook_checks import check_committed_clean, check_ran_without_errors, execute, output_count, output_text

NOTEBOOK = "random_write_cost.ipynb"
SMALL_PARAMETERS = dict(page_sizes=[4096, 16384], transactions=200, items_per_transaction=20, seed=3, sqlite=True,
                        workers=1)


def test_committed_without_outputs_with_parameters_and_time_to_run():
    check_committed_clean(NOTEBOOK, "seed 004", set(SMALL_PARAMETERS))


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict:
    return execute(NOTEBOOK, tmp_path_factory.mktemp("notebook"), SMALL_PARAMETERS)


def test_the_notebook_runs_without_errors(executed):
    check_ran_without_errors(executed)
    text = output_text(executed)
    assert "seed (Voron) random" in text and "sqlite random" in text
    assert output_count(executed, "image/png") >= 1  # the plots were drawn


def test_the_notebook_shows_what_the_function_returns(executed):
    expected = run_random_write_cost(page_sizes=(4096,), transactions=200, items_per_transaction=20, seed=3,
                                     key_order="random", workers=1)
    total = int(expected["pages_total"].iloc[0])
    # the same seed gives the same count, shown whole in a table (with or without a thousands separator)
    shown = {int(token.replace(",", "")) for token in re.findall(r"(?<![\d.])\d[\d,]*(?![\d.])", output_text(executed))}
    assert total in shown
