"""A sweep checked against itself (pagelab.evidence.self_checks): the A/A halves and the first round,
on run tables laid out as read_runs lays them out, with answers known by construction."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from pagelab.evidence.self_checks import (a_a_table, check_lines, combined_first_round_p, false_calls, first_round_p,
                                          first_round_table)
from pagelab.evidence.runs import RunTable

# 10 rounds of a few percent's wobble, the same multiset in the odd and in the even rounds
WOBBLE = [0.97, 1.01, 1.03, 0.99, 1.00, 0.98, 0.99, 1.03, 1.01, 0.97]


def table(tpmc_by_size: dict[str, list[float]]) -> RunTable:
    rows = [{"run": f"{size}-r{r}", "page_size": size, "repeat": r, "tpmc": value, "read_iops": 100.0 * value,
             "write_iops": 50.0, "hit_ratio": 990.0, "new_order_p95_ms": 10.0}
            for size, values in tpmc_by_size.items() for r, value in enumerate(values, start=1)]
    return RunTable(pd.DataFrame(rows), [], {"equivalence_pct": 3.0}, list(tpmc_by_size))


def test_halves_drawn_alike_give_no_false_call():
    found = a_a_table(table({"4k": [10_000 * w for w in WOBBLE], "16k": [8_000 * w for w in WOBBLE]}))
    tpmc = found[found["metric"] == "tpmc"]
    assert list(tpmc["a"]) == ["4k odd rounds", "16k odd rounds"] and list(tpmc["b"]) == ["4k even rounds", "16k even rounds"]
    assert set(tpmc["runs_a"]) == {5} and set(tpmc["runs_b"]) == {5}
    assert set(found["family_size"]) == {10}, "every group's and metric's halves are one family"
    assert false_calls(found).empty
    assert (found[found["metric"] == "write_iops"]["verdict"] == "equivalent").all()


def test_halves_that_differ_are_called_a_false_difference():
    # the odd rounds 20% above the even ones: what an undone drift or a position effect would leave
    drifting = [10_000 * w * (1.2 if r % 2 else 1.0) for r, w in enumerate(WOBBLE, start=1)]
    found = a_a_table(table({"4k": drifting, "16k": [8_000 * w for w in WOBBLE]}))
    wrong = false_calls(found)
    assert {(row["a"], row["metric"], row["verdict"]) for row in wrong.to_dict("records")} == {
        ("4k odd rounds", "tpmc", "faster"), ("4k odd rounds", "read_iops", "higher")}
    assert "A/A false calls: 2 of 10 comparisons" in "\n".join(check_lines(table({"4k": drifting, "16k": WOBBLE})))


def test_max_t_adjusts_each_row_by_the_familys_largest_statistic():
    # 4 rounds, halves {1, 3} against {2, 4}, two rows; by hand over the 6 splits, with
    # T = |median difference| / pooled MAD of the halves (MAD of two values: half their distance):
    #   row A 1 2 3 4: splits {1,2} 4, {1,3} 1, {1,4} 0, {2,3} 0, {2,4} 1, {3,4} 4
    #   row B 1 3 2 4: splits {1,2} 1, {1,3} 4, {1,4} 0, {2,3} 0, {2,4} 4, {3,4} 1
    #   the family's largest per split: 4, 4, 0, 0, 4, 4
    # A (T 1): 4 of 6 splits reach 1; B (T 4): 4 of 6 reach 4, where B alone would give 2 of 6.
    from pagelab.evidence.self_checks import max_t_p_values

    assert max_t_p_values([[1, 2, 3, 4], [1, 3, 2, 4]], [0, 2]).tolist() == pytest.approx([4 / 6, 4 / 6])
    assert max_t_p_values([[1, 3, 2, 4]], [0, 2]).tolist() == pytest.approx([2 / 6])


def test_one_group_out_of_line_is_called_in_a_family_of_fifteen_from_nine_rounds():
    # 9 rounds, 3 page sizes x 5 metrics: Holm over 15 exact rank tests (smallest p 1/63) could call nothing
    nine = WOBBLE[:9]
    lifted = [10_000 * w * (1.15 if r % 2 else 1.0) for r, w in enumerate(nine, start=1)]
    found = a_a_table(table({"4k": lifted, "8k": [9_000 * w for w in nine], "16k": [8_000 * w for w in nine]}))
    assert set(found["family_size"]) == {15}
    wrong = false_calls(found)
    assert {(row["a"], row["metric"]) for row in wrong.to_dict("records")} == {("4k odd rounds", "tpmc"),
                                                                              ("4k odd rounds", "read_iops")}
    # 126 splits of 9 rounds into 5 and 4, the observed one among them: no p below 1/126
    assert ((wrong["p_adjusted"] >= 1 / 126 - 1e-9) & (wrong["p_adjusted"] < 0.05)).all()


def test_a_first_round_lowest_everywhere_is_ranked_and_combined():
    low_first = {size: [0.8 * base] + [base * w for w in WOBBLE[1:9]] for size, base in
                 (("4k", 10_000), ("8k", 9_000), ("16k", 8_000))}
    first = first_round_table(table(low_first))
    assert list(first["rank"]) == [1, 1, 1] and set(first["runs"]) == {9}
    # the later rounds 1.01, 1.03, 0.99, 1.00, 0.98, 0.99, 1.03, 1.01: a median of 1.005
    assert first["later_median"].tolist() == pytest.approx([base * 1.005 for base in (10_000, 9_000, 8_000)])
    # the round is the unit: round 1 lowest of 9 rounds, p = 1/9, however many page sizes moved with it
    assert first_round_p(table(low_first)) == pytest.approx(1 / 9)
    # three independent sweeps so: Fisher by hand, x = -2 * 3 * ln(1/9), 6 degrees of freedom,
    # P(chi2 > x) = e^(-x/2) (1 + x/2 + (x/2)^2 / 2)
    half = 3 * math.log(9)
    assert combined_first_round_p([table(low_first)] * 3) == pytest.approx(
        math.exp(-half) * (1 + half + half ** 2 / 2), rel=1e-6)


def test_a_tie_is_ranked_against_the_first_round():
    tied = {"4k": [1.0, 1.0, 1.2, 1.3, 1.1]}
    assert first_round_table(table(tied)).iloc[0]["rank"] == 2
    assert first_round_p(table(tied)) == pytest.approx(2 / 5)


def test_a_first_round_in_the_middle_is_not_singled_out():
    middle = {"4k": [1.0] + [0.9, 1.1, 0.95, 1.05, 0.92, 1.08, 0.97, 1.03]}
    assert first_round_table(table(middle)).iloc[0]["rank"] == 5
    assert first_round_p(table(middle)) == pytest.approx(5 / 9)


def test_the_reports_paragraph_counts_the_false_calls_and_names_them():
    from pagelab.report.self_check import self_check_markdown

    drifting = [10_000 * w * (1.2 if r % 2 else 1.0) for r, w in enumerate(WOBBLE, start=1)]
    text = self_check_markdown(table({"4k": drifting, "16k": [8_000 * w for w in WOBBLE]}))
    assert "all 10 comparisons of 5 metrics one family held at 5%" in text and "the 252 splits" in text
    assert ": 2 false calls" in text
    assert "4k odd rounds: tpmc faster" in text and "Round 1, the first runs after the loads" in text
    clean = self_check_markdown(table({"4k": [10_000 * w for w in WOBBLE], "16k": [8_000 * w for w in WOBBLE]}))
    assert ": 0 false calls" in clean and "may be in this sweep's verdicts" not in clean
    assert "may be in this sweep's verdicts" in text
    five_rounds = self_check_markdown(table({"4k": [10_000 * w for w in WOBBLE[:5]], "16k": [8_000 * w for w in WOBBLE[:5]]}))
    assert "with 10 splits of the rounds no p can be below 1/10, so this check cannot call" in five_rounds
    assert "cannot call" not in clean
    one_round = self_check_markdown(table({"4k": [10_000.0], "16k": [8_000.0]}))
    assert "this sweep has too few" in one_round
