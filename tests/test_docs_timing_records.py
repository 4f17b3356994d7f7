"""Figures the docs give a reader about time and record-keeping, recomputed from the kept records:
when a sweep's primary comparison was declared (sweep.json's `primary.declared`), how a `course`
sweep's time is worked out from its own progress (the shipped sweep's rounds, start to finish, in
sweep.json), when a cluster sweep's over-time round starts and ends (the array's order and `%K`, at
the shipped sweep's round times), what a failed over-time round costs on resume, and how the
README's two statements of `make test`'s time agree.
"""

from __future__ import annotations

import csv
import datetime
import json

from tests.conftest import REPO_ROOT
from tests.test_measured_figures import README, RUNBOOK, SHIPPED, SLURM, find, plain

HEADLINE = REPO_ROOT / "tests" / "fixtures" / "captured" / "course-2026-11-29"


def _when(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).astimezone(datetime.timezone.utc)


def _rounds_s(record: dict) -> dict[int, float]:
    """Each round's seconds: its runs' start to finish, summed (the runs of a round run back to back)."""
    rounds: dict[int, float] = {}
    for entry in record["runs"]:
        took = (_when(entry["finished"]) - _when(entry["started"])).total_seconds()
        rounds[entry["round"]] = rounds.get(entry["round"], 0.0) + took
    return rounds


def _load_s(sweep, run: str) -> float:
    """A run's loading of its page size: the load and snapshot phases of its phases.csv."""
    rows = [(float(t), phase) for t, phase in csv.reader(open(sweep / run / "phases.csv"))]
    return sum(after[0] - before[0] for before, after in zip(rows, rows[1:]) if before[1] in ("load", "snapshot"))


def test_the_headline_findings_primary_was_declared_when_its_record_says():
    """README's wording to copy for a primary declared before the sweep but chosen after an earlier
    one: the time it gives is the 12-round sweep's sweep.json `primary.declared`, before its first run."""
    record = json.loads((HEADLINE / "sweep.json").read_text())
    declared = _when(record["primary"]["declared"])
    assert record["primary"]["comparison"] == "16k vs 4k"
    assert declared <= min(_when(entry["started"]) for entry in record["runs"])
    text = plain(README)
    assert f"For this finding the time is {declared:%Y-%m-%d %H:%M} UTC" in text
    assert "was declared before the sweep's first run (its record gives the time), but it was chosen after" in text


def test_the_readmes_way_to_time_a_course_sweep_gives_the_shipped_sweeps_time():
    """README "How long": the first round, plus 7 times the second, plus the over-time runs, with the
    shipped sweep's figures, and that sum is the time its runs took, first start to last finish."""
    record = json.loads((SHIPPED / "sweep.json").read_text())
    rounds = _rounds_s(record)
    over = max(rounds)
    verdict_rounds = over - 1
    first, second, over_min = rounds[1], rounds[2] / 60, rounds[over] / 60
    span = (max(_when(e["finished"]) for e in record["runs"]) - min(_when(e["started"]) for e in record["runs"]))
    worked_out = first / 60 + (verdict_rounds - 1) * second + over_min
    text = plain(README)
    part = text[text.index("**Your own machine's time.**"):text.index("## What it needs")]
    match = find(part, r"plus (\d+) times the second's, plus about (\d+) minutes for each over-time run .*? In the "
                       r"shipped `course` sweep those were (\d+) min (\d+) s, (\d+\.\d) min and (\d+) minutes for the "
                       r"three over-time runs: about (\d+) minutes, as its runs took", "README How long")
    times, each, minutes, seconds, said_second, said_over, total = (float(value) for value in match.groups())
    assert times == verdict_rounds - 1
    assert (minutes, seconds) == divmod(round(first), 60)
    assert said_second == round(second, 1)
    assert said_over == round(over_min)
    assert each == round(over_min / 3)
    assert total == round(worked_out) == round(span.total_seconds() / 60), (worked_out, span)
    assert "`3/27 runs`" in part and "`6/27 runs`" in part and len(record["runs"]) == 27


def test_slurm_mds_over_time_round_starts_after_the_second_wave_and_ends_when_the_record_says():
    """slurm.md and the TPC-C runbook: with 18 verdict rounds at %9, the over-time round (the array's last
    task) takes the first slot freed after rounds 10-18 started: a first round (with its loads) and the
    shortest later round in; it ends its own time and its loads later (the first round's load phases)."""
    record = json.loads((SHIPPED / "sweep.json").read_text())
    rounds = _rounds_s(record)
    over = max(rounds)
    later = [seconds / 60 for number, seconds in rounds.items() if number not in (1, over)]
    start = rounds[1] / 60 + min(later)
    loads = sum(_load_s(SHIPPED, f"{size}-r1") for size in ("4k", "8k", "16k"))
    end = start + rounds[over] / 60 + loads / 60
    text = plain(SLURM)
    match = find(text, r"that is about (\d+\.\d) minutes in \(a first round, (\d+\.\d) min with its loads, then the "
                       r"shortest later round, (\d+\.\d) min\), and it ends about (\d+) minutes in \(its (\d+) minutes "
                       r"and its own loads, (\d+) s for the three page sizes", "slurm.md")
    said_start, first, shortest, said_end, said_over, said_loads = (float(value) for value in match.groups())
    assert (first, shortest) == (round(rounds[1] / 60, 1), round(min(later), 1))
    assert said_start == round(start, 1) and said_end == round(end) and said_over == round(rounds[over] / 60)
    assert said_loads == round(loads)
    runbook = plain(RUNBOOK)
    assert (f"round about {round(rounds[over] / 60)} minutes on its node plus its loads; it is the array's last task, "
            f"so it starts only when a node comes free after the second wave of 9 has started, about "
            f"{round(start, 1)} minutes in, and the sweep ends about {round(end)} minutes in") in runbook
    assert "about 70 minutes in" not in text and "comes free after its first round" not in text


def test_slurm_md_gives_a_failed_over_time_rounds_rerun_its_recorded_time():
    """A resume reruns an incomplete round whole (plan.blocks_not_done): slurm.md gives the over-time
    round's rerun the shipped sweep's three over-time runs' time."""
    record = json.loads((SHIPPED / "sweep.json").read_text())
    over_time = [e for e in record["runs"] if e["role"] == "over_time"]
    took = sum((_when(e["finished"]) - _when(e["started"])).total_seconds() for e in over_time) / 60
    match = find(plain(SLURM), r"the resume reruns all three, the finished ones included, as one task on one node: "
                              r"about (\d+) minutes again", "slurm.md")
    assert int(match.group(1)) == round(took)


def test_the_readme_gives_make_tests_time_once():
    """The README's two commands and its "How long" state `make test`'s time alike, and the first points
    to the second, which gives the measurement."""
    text = plain(README)
    minutes = find(text, r"`make test` about (\d+) minutes \(([\d,]+) tests in (\d+) min (\d+) s of pytest",
                   "README How long").group(1)
    assert f"make test # installs what is missing, runs the whole test suite on real MariaDB (about {minutes} " \
           f"minutes on 2 cores: see How long)" in text
    assert "~8 min on 2 cores" not in text
