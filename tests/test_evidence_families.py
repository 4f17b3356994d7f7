"""Families of pairs: Holm's adjusted p-values, the Bonferroni-level intervals each verdict line
states, A/A sweeps that must call no difference, and the floor below which a family's exact rank
tests can call nothing. The series are synthetic (tests/test_evidence.py's runs and _steady_table,
seeded log-normal runs around set medians), so the answer is known; the p-value floors quoted in
the comments (2/252 x 10, 2/792 ...) and Holm's hand-worked example are worked by hand."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from pagelab.evidence.intervals import compare
from tests.test_evidence import _steady_table, runs


def test_holm_against_a_hand_worked_example():
    from pagelab.evidence import holm

    # Sorted, 0.005, 0.01, 0.03, 0.04 are multiplied by 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04; each may not
    # fall below the one before it (step-down), so the last is raised to 0.06.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, math.nan, 0.01]) == pytest.approx([0.5, math.nan, 0.02], nan_ok=True)


def test_a_family_widens_the_intervals_and_raises_the_p_values():
    from pagelab.evidence import compare_family

    sides = [(runs(10_400, 0.03, 9, 30 + k), runs(10_000, 0.03, 9, 40 + k)) for k in range(4)]
    alone = [compare(a, b) for a, b in sides]
    family = compare_family(sides)
    for single, judged in zip(alone, family):
        assert judged.family_size == 4 and judged.confidence == pytest.approx(1 - 0.05 / 4)
        assert judged.high - judged.low > single.high - single.low
        assert judged.p_adjusted >= judged.p_value == pytest.approx(single.p_value)


def test_each_verdict_line_says_its_own_intervals_level():
    """A line read alone gives its level: a family's pairs at the Bonferroni level, a declared
    primary at the full 95% and the pairs after it at the Bonferroni level of the two left."""
    from pagelab.evidence.pairs import pairwise_table
    from pagelab.evidence.wording import verdict_line
    from pagelab.evidence.stats_text import evidence_text

    table = _steady_table({"4k": 10_000, "8k": 10_500, "16k": 9_000}, seed=3)
    lines = [verdict_line(row) for row in pairwise_table(table).query("metric == 'tpmc'").to_dict("records")]
    assert len(lines) == 3 and all("] (98.33% CI), " in line for line in lines), lines
    table.profile["primary"] = "16k vs 4k"
    table.runs["host"] = "one machine"
    found = {line.split(":")[0]: line for line in evidence_text(table).splitlines() if ": TpmC " in line}
    assert "] (95% CI), " in found["  16k vs 4k"] and "primary, declared before the sweep" in found["  16k vs 4k"]
    assert "] (97.5% CI), " in found["  8k vs 4k"] and "] (97.5% CI), " in found["  16k vs 8k"], found


def test_a_sweep_of_many_alike_page_sizes_calls_no_false_difference():
    """A/A: five labels of one condition, 10 pairs in the family; no pair may be called faster or slower."""
    from pagelab.evidence.pairs import pairwise_table

    table = _steady_table({size: 10_000 for size in ("4k", "8k", "16k", "32k", "64k")}, seed=5, n=9, spread=0.06)
    pairs = pairwise_table(table)
    tpmc = pairs[pairs["metric"] == "tpmc"]
    assert len(tpmc) == 10 and set(tpmc["family_size"]) == {10}
    assert set(tpmc["verdict"]) <= {"equivalent", "not resolved"}
    assert list(tpmc["confidence_pct"]) == pytest.approx([99.5] * 10)


@pytest.mark.parametrize("sizes, n, says", [
    # 5 page sizes 20% apart: 10 pairs, whose exact tests over 5 runs a side cannot go below
    # 2/252 x 10 = 0.079 (worked by hand) -- the floor, not the data, leaves them unresolved
    (("4k", "8k", "16k", "32k", "64k"), 5, True),
    (("4k", "8k", "16k", "32k", "64k"), 9, False),  # 2/512 x 10 = 0.039: room
    (("4k", "8k", "16k"), 6, True),  # round by round: 2/64 x 3 = 0.094
    (("4k", "8k", "16k"), 7, False),  # 2/128 x 3 = 0.047
])
def test_stats_say_when_a_family_has_no_room_for_a_verdict(sizes, n, says):
    from pagelab.evidence.pairs import pairwise_table
    from pagelab.evidence.wording import floor_note
    from pagelab.evidence.stats_text import evidence_text

    table = _steady_table({size: 10_000 * 1.2 ** k for k, size in enumerate(sizes)}, seed=7, n=n)
    table.runs["host"] = "one machine"
    tpmc = pairwise_table(table)
    tpmc = tpmc[tpmc["metric"] == "tpmc"]
    assert (floor_note(tpmc) is not None) == says
    called = set(tpmc["verdict"]) & {"faster", "slower"}
    assert bool(called) != says, tpmc[["a", "b", "verdict", "p_adjusted"]]  # every effect is 20% or more
    text = evidence_text(table)
    assert ("no pair here can be called faster or slower" in text) == says
    from types import SimpleNamespace

    from pagelab.report.model_report import family_sentence

    method = family_sentence(SimpleNamespace(pairs=pairwise_table(table)))  # the report's Method says it too
    assert ("no pair here can be called faster or slower" in method) == says, method


def test_after_failed_runs_the_floor_is_that_of_the_runs_each_pair_had():
    """Unequal sides have a lower floor than equal ones, and a pair keeps its pairing by the rounds
    both sides finished. 7 rounds, 3 page sizes 20% apart; 4k lost rounds 1 and 2, 8k round 3: two
    pairs drop to run by run (5 vs 6: 2/462, 5 vs 7: 2/792, by hand), 16k vs 8k keeps 6 rounds
    (2/64). 3 x 2/792 = 0.0076: there is room, and the pairs are called."""
    from pagelab.evidence.pairs import pairwise_table
    from pagelab.evidence.wording import floor_note

    table = _steady_table({"4k": 10_000, "8k": 12_000, "16k": 14_400}, seed=8, n=7)
    lost = {("4k", 1), ("4k", 2), ("8k", 3)}
    kept = [(size, repeat) not in lost for size, repeat in zip(table.runs["page_size"], table.runs["repeat"])]
    table = replace(table, runs=table.runs[kept])
    tpmc = pairwise_table(table)
    tpmc = tpmc[tpmc["metric"] == "tpmc"]
    assert sorted(zip(tpmc["runs_a"], tpmc["runs_b"])) == [(6, 5), (6, 6), (7, 5)]
    assert set(tpmc["verdict"]) == {"faster"}, tpmc[["a", "b", "verdict", "p_adjusted"]]
    assert floor_note(tpmc) is None


def test_one_pair_of_three_runs_against_five_has_room():
    """3 runs against 5: the rank-sum floor is 2/56 = 0.036 (by hand), under 0.05."""
    from pagelab.evidence.pairs import pairwise_table
    from pagelab.evidence.wording import floor_note

    table = _steady_table({"4k": 10_000, "16k": 12_000}, seed=9, n=5)
    table = replace(table, runs=table.runs[~((table.runs["page_size"] == "4k") & (table.runs["repeat"] > 3))])
    tpmc = pairwise_table(table)
    tpmc = tpmc[tpmc["metric"] == "tpmc"]
    assert list(tpmc["verdict"]) == ["faster"] and floor_note(tpmc) is None
