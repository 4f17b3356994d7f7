"""The sweep checked against itself, in the report: one paragraph after the run-order figure with
the A/A halves and the first round (pagelab.evidence.self_checks, `pagelab stats --checks`)."""

from __future__ import annotations

from pagelab.evidence.self_checks import (a_a_table, compared, false_calls, first_round_p, first_round_table,
                                          pair_false_calls, pair_halves_table, round_scores, splits,
                                          too_few_splits_text)
from pagelab.evidence.runs import RunTable
from pagelab.evidence.wording import pct_text


# The level every check of the sweep is read at.
ALPHA = 0.05

# The paragraph's bold title, as the appendix's flagged runs name it.
SELF_CHECK_TITLE = "The sweep checked against itself"

# What pagelab does with a round or run that stands out, said once in a report: in this paragraph where
# it reports round 1, else under the flagged runs (pagelab.report.appendix.outliers_markdown). The
# verdicts (pagelab.bundle.read_runs) leave out only runs that did not finish: a flagged run stays.
KEPT_SENTENCE = ("pagelab keeps every round and every run, the slow ones included: dropping one after seeing the data "
                 "would bias the interval, and the rounds are blocks, so what moves a whole round cancels in its pairs.")


def self_check_markdown(table: RunTable) -> str:
    """The paragraph; it says so when the sweep has too few rounds to be checked."""
    halves = a_a_table(table)
    counted = compared(halves)
    if counted.empty:
        return (f"**{SELF_CHECK_TITLE}.** It takes two or more rounds on each side of an A/A "
                "comparison (each page size's odd rounds against its even rounds); this sweep has too few."
                + _first_round_text(table))
    wrong = false_calls(counted)
    tpmc = counted[counted["metric"] == "tpmc"]
    text = (f"**{SELF_CHECK_TITLE}.** Each page size's odd rounds against its even rounds (an A/A "
            f"test: the halves ran interleaved and differ only by chance), all {len(counted)} comparisons of "
            f"{counted['metric'].nunique()} metrics one family held at 5% for the sweep (a max-T permutation test over "
            f"the {splits(table):,} splits of the rounds into two halves, every way of choosing which rounds form one half, "
            f"with Bonferroni intervals): "
            f"{len(wrong)} false call{'s' if len(wrong) != 1 else ''}")
    if not tpmc.empty:
        text += (f"; the TpmC halves differ by {pct_text(tpmc['change_pct'].min())} to "
                 f"{pct_text(tpmc['change_pct'].max())}")
    if len(wrong):
        text += (" (" + "; ".join(f"{row['a']}: {row['metric']} {row['verdict']}" for row in wrong.to_dict("records"))
                 + "), so a position or drift effect the design did not cancel may be in this sweep's verdicts too")
    if cannot_call := too_few_splits_text(table):
        text += f"; but {cannot_call}"
    return text + "." + _pair_halves_text(table) + _first_round_text(table)


def says_why_kept(table: RunTable) -> bool:
    """Whether the paragraph says KEPT_SENTENCE (it does where it reports round 1: round 1 and two
    later rounds kept): the report says it once, and the appendix's flagged runs point here then."""
    return bool(_first_round_text(table))


def _first_round_text(table: RunTable) -> str:
    """Round 1 against the later rounds, then why pagelab keeps it and every other run ('' without
    round 1 and two later rounds)."""
    first = first_round_table(table)
    if first.empty:
        return ""
    parts = ", ".join(f"{row['group']} {row['ratio']:.2f} (rank {row['rank']} of {row['runs']})"
                      for row in first.to_dict("records"))
    rounds = len(round_scores(table))
    # the check's p is a rank over the rounds: the lowest rank gives 1/rounds, which may not reach 5%
    floor = (f"; with {rounds} rounds the smallest p this check can give is 1/{rounds} = {1 / rounds:.3g}, above "
             f"5%, so it can never flag round 1 on its own, however low it is: its p is given so that several "
             f"sweeps' can be combined (Fisher's method, as the TPC-C runbook's \"Checking a sweep against itself\" does for six)" if 1 / rounds > ALPHA else "")
    p = first_round_p(table)
    return (f" Round 1, the first runs after the loads, against the median of the later rounds: {parts}; "
            f"round 1 this low or lower by chance, p = {p:.2g}: each round scored as the mean over the page sizes of "
            f"log(its run / that page size's median), round 1's score ranks {round(p * rounds)} of {rounds} from the "
            f"lowest, and p is that rank over {rounds} (the round is the unit since its runs share the machine's "
            f"minute){floor}. {KEPT_SENTENCE}")


def _dof_text(row: dict) -> str:
    """' (t on 4.8 df)': the Welch-Satterthwaite degrees of freedom its method names, '' without."""
    import re

    found = re.search(r"t on [0-9.]+ df", str(row.get("method") or ""))
    return f" ({found.group(0)})" if found else ""


def _pair_halves_text(table: RunTable) -> str:
    """TpmC's pair effects by the two-level model, odd rounds against even rounds ('' when the runs
    kept no series or the halves are too short for the model)."""
    frame = pair_halves_table(table)
    tested = frame[frame["low_pts"].notna()]
    if tested.empty:
        return ""
    wrong = pair_false_calls(tested)
    moves = ", ".join(f"{row['a']} vs {row['b']} {pct_text(row['difference_pts'], ' points')} "
                      f"[{pct_text(row['low_pts'], ' points')}, {pct_text(row['high_pts'], ' points')}]"
                      + _dof_text(row) for row in tested.to_dict("records"))
    level = f"{tested['confidence_pct'].iloc[0]:.4g}% " if "confidence_pct" in tested else ""
    text = (f" TpmC's pair effects, as the verdicts estimate them (the two-level model), in the odd rounds against "
            f"the even rounds (a Welch-Satterthwaite t-test of the difference, with its {level}interval, the "
            f"{len(tested)} pairs one family, Holm): {moves}; {len(wrong)} false call{'s' if len(wrong) != 1 else ''}")
    if len(wrong):
        text += (" (" + "; ".join(f"{row['a']} vs {row['b']}" for row in wrong.to_dict("records"))
                 + "), so the model's verdicts may rest on something the design did not cancel")
    return text + "."
