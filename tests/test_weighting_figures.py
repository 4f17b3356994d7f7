"""The figures the TPC-C runbook's "Precision weights checked" gives for the two weightings of
TpmC's blocks, from the planner: course as shipped and the best 2-hour design on the 2026-11-28
sweep's bundle (tests/fixtures/captured/course-2026-11-28, `pagelab plan --from BUNDLE --profile
course --budget 2h --resolve 5%`, and the same with `block_weights: precision` added), and the
planned column of its table of planned against simulated power, which pagelab.evidence.planner's
module comment gives too (the simulated column comes from bench/bench_block_weights.py --only
planner, minutes of CPU, not run here: the two places must agree on it)."""

from __future__ import annotations

import math
import re

from tests.test_measured_figures import COURSE, PLAN, RUNBOOK, SWEEP, _design, find, plain


def _plan_with(profile, monkeypatch, capsys) -> str:
    from pagelab.cli import main

    capsys.readouterr()  # --as-made, as test_measured_figures._plan
    assert main(["plan", "--from", str(SWEEP), "--profile", str(profile), *PLAN[3:], "--as-made"]) == 0
    return re.sub(r"\s+", " ", capsys.readouterr().out)


def test_the_runbooks_equal_and_precision_figures_are_the_planners(tmp_path, monkeypatch, capsys):
    # the paragraph plans course as it shipped then, 7 rounds of 100 s (8 of 90 s since 2026-11-29)
    then = re.sub(r"(?m)^measure_s: 90 ", "measure_s: 100", re.sub(r"(?m)^repeats: 8 ", "repeats: 7 ", COURSE.read_text()))
    assert "repeats: 7 " in then and "measure_s: 100" in then, "course.yaml's design lines moved: update this test"
    equal_profile = tmp_path / "course.yaml"
    equal_profile.write_text(then)
    precise_profile = tmp_path / "course-precision.yaml"
    precise_profile.write_text(then + "block_weights: precision\n")
    equal, precise = (_plan_with(path, monkeypatch, capsys) for path in (equal_profile, precise_profile))
    assert "the bundle ran no over-time runs of 16k and 4k, so a design assumes all 1200 s" in equal
    now_e, best_e = _design(equal, "now"), _design(equal, "best within the budget")
    now_p, best_p = _design(precise, "now"), _design(precise, "best within the budget")
    assert best_e[:2] == best_p[:2], (best_e, best_p)  # the runbook gives one best design for both
    share = find(precise, r"the over-time block (\d+)% of the weight", "plan's precision arithmetic").group(1)
    source = (now_e[2], now_e[3], now_e[4], now_p[2], now_p[3], now_p[4], best_e[0], best_e[1],
              best_e[2], best_e[3], best_e[4], best_p[2], best_p[3], best_p[4], share)
    stated = find(plain(RUNBOOK), r"course as then shipped \(7 × 100 s\), equal ±(\d+\.\d)%, (\d+)% power, (\d+\.\d)% "
                                  r"detectable; precision ±(\d+\.\d)%, (\d+)%, (\d+\.\d)%\. Best in 2 h, (\d+) × (\d+) "
                                  r"s: equal ±(\d+\.\d)%, (\d+)%, (\d+\.\d)%; precision ±(\d+\.\d)%, (\d+)%, "
                                  r"(\d+\.\d)% \(the over-time block (\d+)% of the weight\)", RUNBOOK.name).groups()
    assert stated == source, f"{RUNBOOK.name}: {stated}; pagelab plan says {source}"


# "| 7 × 100 s (course as shipped) | 0 | 72% / 71.0% [68.1, 73.8] | 75% / 74.1% [71.3, 76.8] |"
ROW = (r"(\d+) × (\d+) s(?: \(course as shipped(?: until [\d-]+)?\))? (\d+) (\d+)% / (\d+\.\d)% \[(\d+\.\d), (\d+\.\d)\] "
       r"(\d+)% / (\d+\.\d)% \[(\d+\.\d), (\d+\.\d)\]")
# "    7 x 100 s (f 0)        72%, 71.0% [68.1, 73.8]     75%, 74.1% [71.3, 76.8]"
COMMENT_ROW = (r"(\d+) x (\d+) s \(f (\d+)(?: %\^2)?\) (\d+)%, (\d+\.\d)% \[(\d+\.\d), (\d+\.\d)\] (\d+)%, (\d+\.\d)% "
               r"\[(\d+\.\d), (\d+\.\d)\]")


def test_the_simulated_tables_planned_column_is_the_planners_and_each_lies_in_its_interval():
    """Each row's planned power is planner.design's for that design (course-bundle's a, the pair's
    f, the over-time block as long as the sweeps' median kept, which the runbook states), the
    planner's module comment gives the same rows, and every planned figure lies in its simulated
    interval (what bench_block_weights.py --only planner checks when it runs)."""
    from pagelab.evidence import planner
    from pagelab.evidence.block_weights import EQUAL, PRECISION

    text = plain(RUNBOOK)
    kept = float(find(text, r"the over-time block planned as long as the sweeps' median kept, (\d+) s of the 1200",
                      RUNBOOK.name).group(1))
    table = text[text.index("design (2 h) f %²"):]
    rows = re.findall(ROW, table[:table.index("Every planned figure")])
    assert len(rows) == 4, rows
    comment = re.sub(r"\s+", " ", planner.__doc__)
    assert re.findall(COMMENT_ROW, comment) == rows, "planner.py's table and the runbook's disagree"
    for rounds, run_s, floor, *cells in rows:
        for weights, (planned, _, low, high) in ((EQUAL, cells[:4]), (PRECISION, cells[4:])):
            found = planner.design(0.2721, float(floor) / 1e4, planner.Costs(0.0, 0.0, 3), int(rounds), int(run_s),
                                   0.05, -math.log(0.95), extra_blocks=1, over_time_s=kept, weights=weights)
            assert planned == f"{100 * found.power:.0f}", (rounds, run_s, floor, weights, planned, found.power)
            assert float(low) <= 100 * found.power <= float(high), (rounds, run_s, floor, weights, found.power)
