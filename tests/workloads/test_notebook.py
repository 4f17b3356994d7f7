"""notebooks/random_write_cost.ipynb: committed clean, and it runs under papermill with small parameters."""

from __future__ import annotations

import re

import pytest

from tests.notebook_checks import (check_committed_clean, check_ran_without_errors, execute, internal_labels,
                                  output_count, output_text, table_headers)

NOTEBOOK = "random_write_cost.ipynb"
SMALL_PARAMETERS = dict(page_sizes=[4096, 16384], transactions=200, items_per_transaction=20, seed=3, sqlite=True,
                        workers=1)


def test_committed_without_outputs_with_parameters_and_time_to_run():
    check_committed_clean(NOTEBOOK, "the cost of random writes", set(SMALL_PARAMETERS))


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict:
    return execute(NOTEBOOK, tmp_path_factory.mktemp("notebook"), SMALL_PARAMETERS)


def test_the_notebook_runs_without_errors(executed):
    check_ran_without_errors(executed)
    assert not internal_labels(table_headers(executed)), "a table shows an internal name"
    text = output_text(executed)
    assert "Voron (the post) random" in text and "sqlite random" in text
    assert output_count(executed, "image/png") >= 1  # the plots were drawn


# Journal page images of the random-order runs with SMALL_PARAMETERS (seed 3): 4k 3,879 and 16k
# 2,733. Written down from a run on 2026-11-26 rather than computed by the code under test: seed 3
# always gives these counts, so a changed count is a changed workload or prototype, to be looked at.
RANDOM_PAGES_TOTAL = {4096: 3879, 16384: 2733}


def test_the_notebook_shows_the_page_counts_of_its_seed(executed):
    # shown whole in a table (with or without a thousands separator)
    shown = {int(token.replace(",", "")) for token in re.findall(r"(?<![\d.])\d[\d,]*(?![\d.])", output_text(executed))}
    assert set(RANDOM_PAGES_TOTAL.values()) <= shown, sorted(shown)
