"""Every sentence outside the profiles that states a profile's shape or time, checked against the
profile itself (runbooks/profiles/*.yaml): the README, the Makefile's help, the run notebook's
"Time to run", the TPC-C runbook and the profiles' own descriptions. When a profile changes, the
stale sentence fails here, naming its file, instead of lying to the next reader.

A stated time is checked against bounds worked out from the profile: every run restores its
snapshot and restarts (~3 s), ramps up and measures; each page size's first run also initialises
and loads; the report and PDF come last. An `auto` ramp-up lasts at least MSER-5's minimum of
samples (or its cap, if smaller) and at most its cap.

The helpers here (profile, flat, find, RUNBOOK) are shared with the other checks of the docs
against the profiles and the code: what a profile needs of the machine (test_profile_resources.py),
the method and thresholds the docs state (test_method_text.py) and the cluster's rounds rule
(test_slurm_rounds_text.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pagelab.evidence.steady import MIN_MSER_BATCHES, MSER_BATCH
from pagelab.sweep.profiles import load_profile
from pagelab.tpcc.schedule import FILLING_CEILING, WARMUP_SAMPLE_S
from tests.conftest import REPO_ROOT

RESTART_S = 3  # restore the snapshot, restart the server, start the kernel (quick.yaml measured 2.6 s)
LOAD_S_PER_WAREHOUSE = 25  # init and load from the cache, at most (smoke.yaml: ~25 s for 1 warehouse)
REPORT_S = 30  # the report notebook and the PDF
MINUTES_SLACK = (0.8, 1.5)  # a stated time may be this far below the lower bound / above the upper one
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
         "ten": 10, "fifteen": 15}


def profile(name: str) -> dict:
    return load_profile(name).to_dict()


def runtime_bounds_s(name: str) -> tuple[float, float]:
    """(least, most) seconds a sweep of the profile takes on the 2-core machine, from its knobs."""
    p = profile(name)
    # a knob given as a list is a second factor: every page size at every level (pagelab.sweep.profiles)
    pools = p["buffer_pool"] if isinstance(p["buffer_pool"], list) else [p["buffer_pool"]]
    warehouses = p["warehouses"] if isinstance(p["warehouses"], list) else [p["warehouses"]]
    cells = len(p["page_sizes"]) * len(pools) * len(warehouses)
    runs = cells * p["repeats"]
    long_runs = cells if p.get("over_time_s") else 0  # one over-time run per cell after the rounds
    if p["rampup_s"] == "auto":
        least_rampup = min(p["max_rampup_s"], MSER_BATCH * MIN_MSER_BATCHES * WARMUP_SAMPLE_S)
        most_rampup = FILLING_CEILING * p["max_rampup_s"]  # a pool still filling at the cap goes on
    else:
        least_rampup = most_rampup = p["rampup_s"]
    over_time_s = p.get("over_time_s") or 0
    least = (runs * (RESTART_S + least_rampup + p["measure_s"])
             + long_runs * (RESTART_S + least_rampup + over_time_s) + REPORT_S)
    most = (runs * (RESTART_S + most_rampup + p["measure_s"])
            + long_runs * (RESTART_S + most_rampup + over_time_s)
            + len(p["page_sizes"]) * LOAD_S_PER_WAREHOUSE * sum(warehouses) + REPORT_S)
    return least, most


def assert_time_fits(name: str, stated_s: tuple[float, float], where: str) -> None:
    least, most = runtime_bounds_s(name)
    low, high = stated_s
    assert low >= least * MINUTES_SLACK[0] and high <= most * MINUTES_SLACK[1], (
        f"{where} says the {name} profile takes {low / 60:g}-{high / 60:g} min; from the profile it takes "
        f"{least / 60:.1f}-{most / 60:.1f} min")


def number(word: str) -> int:
    return WORDS[word.lower()] if word.lower() in WORDS else int(word)


def labels(page_sizes: list[int]) -> list[str]:
    return [f"{size // 1024}k" for size in page_sizes]


def flat(path: Path) -> str:
    """The file's text with line breaks and runs of spaces made single spaces (sentences wrap)."""
    return re.sub(r"\s+", " ", path.read_text())


def find(text: str, pattern: str, where: str) -> re.Match:
    match = re.search(pattern, text)
    assert match, f"{where} no longer has a sentence matching {pattern!r}: update this test with the new wording"
    return match


def test_the_readme_describes_the_quick_profile():
    text, where = flat(REPO_ROOT / "README.md"), "README.md"
    quick = profile("quick")
    sizes = find(text, r"runs `pagelab sweep --profile quick`: for ([\dk, and]+) pages", where).group(1)
    assert re.split(r", | and ", sizes) == labels(quick["page_sizes"]), sizes
    assert number(find(text, r"loads (\w+) TPC-C warehouses?", where).group(1)) == quick["warehouses"]
    assert number(find(text, r"and then in (\w+) rounds, each page size once per round", where).group(1)) == quick["repeats"]
    assert find(text, r"with a (\d+) MB buffer pool", where).group(1) + "M" == quick["buffer_pool"]
    assert quick["rampup_s"] == "auto"
    assert int(find(text, r"work rate are steady \(or (\d+) s;", where).group(1)) == quick["max_rampup_s"]
    connections, measured = find(text, r"measures (\d+) connections for (\d+) s", where).groups()
    assert (int(connections), int(measured)) == (quick["connections"], quick["measure_s"])
    for sentence in (r"`make demo` \(`quick`\) takes about (\d+) minutes", r"`make demo` is a (\d+)-minute preview",
                     r"\*\*`quick` \(`make demo`\) is a (\d+)-minute preview\*\*"):
        minutes = int(find(text, sentence, where).group(1))
        assert_time_fits("quick", (minutes * 60, minutes * 60), where)


def test_the_readme_states_the_course_profiles_time():
    text, where = flat(REPO_ROOT / "README.md"), "README.md"
    for sentence in (r"the lab at its configuration: about (\d+) hours", r"`make demo PROFILE=course` about (\d+) hours"):
        hours = int(find(text, sentence, where).group(1))
        assert_time_fits("course", (hours * 3600, hours * 3600), where)


def test_the_readme_states_the_smoke_profiles_time():
    where = "README.md"
    minutes = int(find(flat(REPO_ROOT / "README.md"), r"`make demo PROFILE=smoke` is a (\d+)-minute check", where).group(1))
    assert_time_fits("smoke", (minutes * 60, minutes * 60), where)


def test_the_makefile_help_describes_the_quick_profile():
    where = "Makefile (demo)"
    match = find(flat(REPO_ROOT / "Makefile"), r"the quick page-size sweep \(([\dk/]+) x (\d+) runs, ~([\d.]+) min\)", where)
    sizes, repeats, minutes = match.groups()
    quick = profile("quick")
    assert sizes.split("/") == labels(quick["page_sizes"]) and int(repeats) == quick["repeats"], match.group(0)
    assert_time_fits("quick", (float(minutes) * 60,) * 2, where)


def test_the_run_notebooks_time_to_run_is_the_quick_profiles():
    notebook = json.loads((REPO_ROOT / "notebooks" / "tpcc_page_size_run.ipynb").read_text())
    first = re.sub(r"\s+", " ", "".join(notebook["cells"][0]["source"]))
    time_to_run = find(first, r"\*\*Time to run\.\*\*[^*]*", "the run notebook").group(0)
    rampup, measured = find(time_to_run, r"`quick`: a ramp-up of at most (\d+) s, then (\d+) s measured",
                            "the run notebook's Time to run").groups()
    quick = profile("quick")
    assert quick["rampup_s"] == "auto"
    assert (int(rampup), int(measured)) == (quick["max_rampup_s"], quick["measure_s"]), time_to_run


RUNBOOK = REPO_ROOT / "runbooks" / "tpcc-page-size.md"


def test_the_runbooks_commands_describe_their_profiles():
    text, where = flat(RUNBOOK), "runbooks/tpcc-page-size.md"
    quick, course = profile("quick"), profile("course")
    match = find(text, r"--profile quick # ([\dk/]+) x (\d+) repeats, (\d+) warehouses?, (\d+) s measured each: "
                       r"about ([\d.]+) minutes", where)
    sizes, repeats, warehouses, measured, minutes = match.groups()
    assert (sizes.split("/"), int(repeats), int(warehouses), int(measured)) == (
        labels(quick["page_sizes"]), quick["repeats"], quick["warehouses"], quick["measure_s"]), match.group(0)
    assert_time_fits("quick", (float(minutes) * 60,) * 2, where)
    match = find(text, r"--profile course # the lab's set-up: (\d+) rounds of (\d+) s, then (\d+) s per page size: "
                       r"about (\d+) minutes", where)
    rounds, measured, over_time, minutes = match.groups()
    assert (int(rounds), int(measured), int(over_time)) == (
        course["repeats"], course["measure_s"], course["over_time_s"]), match.group(0)
    assert_time_fits("course", (float(minutes) * 60,) * 2, where)
    pool = profile("pool")
    match = find(text, r"--profile pool # ([\dk]+) and ([\dk]+) at a pool of ([\d/]+)% of the data, (\d+) rounds: "
                       r"about (\d+) minutes", where)
    first, second, levels, rounds, minutes = match.groups()
    assert ([first, second], [f"{level}%" for level in levels.split("/")], int(rounds)) == (
        labels(pool["page_sizes"]), pool["buffer_pool"], pool["repeats"]), match.group(0)
    assert_time_fits("pool", (float(minutes) * 60,) * 2, where)


@pytest.mark.parametrize("name", ["smoke", "quick", "course", "pool", "full"])
def test_the_runbooks_time_table_row(name):
    where = "runbooks/tpcc-page-size.md (Time)"
    row = find(RUNBOOK.read_text(), rf"\n\| {name} \| (\d+) × (\d+) \| ([^|]+) \| ~([\d.]+) (min|h)\b", where)
    sizes, repeats, phases, amount, unit = row.groups()
    p = profile(name)
    assert (int(sizes), int(repeats)) == (len(p["page_sizes"]), p["repeats"]), row.group(0)
    rampup, measured = [part.strip() for part in phases.split(",")]
    assert measured == f"{p['measure_s']} s", row.group(0)
    if p["rampup_s"] == "auto":
        assert rampup.startswith("auto") and re.search(rf"\b{p['max_rampup_s']} s\)", rampup), row.group(0)
    else:
        assert rampup == f"{p['rampup_s']} s", row.group(0)
    seconds = float(amount) * (3600 if unit == "h" else 60)
    assert_time_fits(name, (seconds, seconds), where)


@pytest.mark.parametrize("name", ["smoke", "quick"])
def test_the_profiles_own_description_states_its_time(name):
    """The comment at the top of the profile is what `pagelab sweep --help` shows as its description."""
    where = f"runbooks/profiles/{name}.yaml"
    text = re.sub(r"\s+", " ", profile(name)["description"])
    low, _, high = find(text, r"Takes about ([\d.]+)(-([\d.]+))? minutes", where).groups()
    assert_time_fits(name, (float(low) * 60, float(high or low) * 60), where)


def test_the_quick_profiles_description_states_its_shape():
    text = re.sub(r"\s+", " ", profile("quick")["description"])
    where = "runbooks/profiles/quick.yaml"
    quick = profile("quick")
    match = find(text, r"the Week 4 lab's (\w+) page sizes at (\d+) warehouse, (\w+) runs each", where)
    assert (number(match.group(1)), int(match.group(2)), number(match.group(3))) == (
        len(quick["page_sizes"]), quick["warehouses"], quick["repeats"]), match.group(0)


def test_the_readmes_lab_section_describes_course_and_quick():
    """"Reproducing the Week 4 lab" says what `course` and `quick` run; each figure is the profile's."""
    text, where = flat(REPO_ROOT / "README.md"), "README.md (Reproducing the Week 4 lab)"
    course, quick = profile("course"), profile("quick")
    match = find(text, r"It runs the lab's configuration \((\d+) warehouses, (\d+) connections, the (\d+) MiB "
                       r"pool the lab's server had, the course guide's my.cnf, one (\d+) s run per page size", where)
    warehouses, connections, pool_mib, over_time = map(int, match.groups())
    assert (warehouses, connections, f"{pool_mib}M", over_time) == (
        course["warehouses"], course["connections"], course["buffer_pool"], course["over_time_s"]), match.group(0)
    assert number(find(text, r"before those, (\w+) rounds of shorter runs", where).group(1)) == course["repeats"]
    match = find(text, r"is a 10-minute preview\*\*: (\d+) warehouse, a (\d+) MB pool, (\d+) s runs", where)
    warehouses, pool_mb, measured = map(int, match.groups())
    assert (warehouses, f"{pool_mb}M", measured) == (
        quick["warehouses"], quick["buffer_pool"], quick["measure_s"]), match.group(0)
    match = find(text, r"`course` with `--set over_time_s=0` \(its (\d+) rounds of (\d+) s, `course`'s design until "
                       r"[\d-]+, without the three (\d+) s runs", where)  # the headline's measured 2026-11-28 sweep
    made = json.loads((REPO_ROOT / "tests" / "fixtures" / "captured" / "course-2026-11-28" / "sweep.json").read_text())
    assert tuple(map(int, match.groups())) == (made["profile"]["repeats"], made["profile"]["measure_s"],
                                               course["over_time_s"]), match.group(0)
    assert number(find(text, r"Write what the runs do say: \"With (\w+) rounds", where).group(1)) == course["repeats"]


def test_the_runbooks_by_hand_lab_is_the_course_profile():
    """The by-hand steps run `course`'s configuration, so their tables are the lab's at `course`'s set-up."""
    text, where = flat(RUNBOOK), "runbooks/tpcc-page-size.md (By hand)"
    course = profile("course")
    init = find(text, r"pagelab server init \$D --page-size \$P (.*?) \.venv/bin/pagelab server start", where).group(1)
    flags = re.findall(r"--([\w-]+) (\S+)", init.replace("\\", " "))
    options = {value.split("=")[0]: value.split("=")[1] for flag, value in flags if flag == "set"}
    settings = {flag: value for flag, value in flags if flag != "set"}
    assert settings == {"flush-method": course["flush_method"], "redo-log": course["redo_log"]}, init
    assert options == {key: str(value) for key, value in course["server_options"].items()}, init
    assert int(find(text, r"tpcc load --instance \$D -w (\d+)", where).group(1)) == course["warehouses"]
    pool = find(text, r"server start \$D --buffer-pool (\S+) # course's pool", where).group(1)
    assert pool == course["buffer_pool"], pool
    run = find(text, r"tpcc run --instance \$D -w (\d+) -c (\d+) -r (\w+) --max-rampup (\d+) -l (\d+) -i (\d+)", where)
    warehouses, connections, rampup, max_rampup, measured, interval = run.groups()
    assert (int(warehouses), int(connections), rampup, int(max_rampup), int(measured), int(interval)) == (
        course["warehouses"], course["connections"], course["rampup_s"], course["max_rampup_s"],
        course["over_time_s"], course["interval_s"]), run.group(0)


def test_shares_of_the_data_and_ramp_ups_are_said_alike_everywhere():
    """quick's pool as a share of the data, and course's measured ramp-ups, stated in the profiles and
    the runbook, each against the one measured record (the runbook's pool table, course's sweep)."""
    runbook = flat(RUNBOOK)
    loaded_mib = int(find(runbook, r"\| 100% \((\d+) MiB\) \|", "runbooks/tpcc-page-size.md (pool table)").group(1))
    quick_text = flat(REPO_ROOT / "runbooks" / "profiles" / "quick.yaml")
    where = "runbooks/profiles/quick.yaml"
    share, stated_mib = find(quick_text, r"64M is about (two thirds|half|a third) of the 1-warehouse data \((\d+) MiB "
                                         r"loaded", where).groups()
    assert int(stated_mib) == loaded_mib, f"{where} says {stated_mib} MiB loaded, the runbook's pool table {loaded_mib}"
    pool_mib = profile("quick")["buffer_pool"]
    assert pool_mib == "64M"
    assert abs(64 / loaded_mib - {"two thirds": 2 / 3, "half": 1 / 2, "a third": 1 / 3}[share]) < 0.05, share
    course_text = flat(REPO_ROOT / "runbooks" / "profiles" / "course.yaml")
    ranges = set(re.findall(r"ramp-ups ended after (\d+-\d+) s", course_text))
    ranges |= set(re.findall(r"\((\d+-\d+) s measured\)", course_text))
    ranges |= set(re.findall(r"auto ramp-up \(ended after (\d+-\d+) s in all", runbook))
    assert len(ranges) == 1, f"course's ramp-ups are said to have ended after {' and '.join(sorted(ranges))} s"


def test_the_runbooks_unit_counts_are_the_profiles():
    """The runbook's counts of units for full, and for course at 19 rounds on Slurm, from the profiles."""
    text, where = flat(RUNBOOK), "runbooks/tpcc-page-size.md"
    full = profile("full")
    match = find(text, r"`full` is the wider design: (\d+) page sizes × (\d+) rounds of (\d+) s, (\d+) units", where)
    sizes, rounds, measured, units = map(int, match.groups())
    assert (sizes, rounds, measured, units) == (len(full["page_sizes"]), full["repeats"], full["measure_s"],
                                                 len(load_profile("full").units())), match.group(0)
    match = find(text, r"--profile course --set repeats=(\d+) --executor slurm .*? (\d+) rounds \((\d+) verdict rounds "
                       r"of (\d+) runs of [^,]*, and the over-time round, (\d+) runs", where)
    repeats, rounds, verdict, per_round, over_time = map(int, match.groups())
    units = load_profile("course", [f"repeats={repeats}"]).units()
    roles = [unit["role"] for unit in units]
    sizes = len(profile("course")["page_sizes"])
    assert (rounds, verdict, per_round, over_time) == (
        len({unit["round"] for unit in units}), roles.count("verdict") // sizes, sizes, roles.count("over_time")
    ), match.group(0)
    # the Slurm runbook's example submission of course
    slurm, where = flat(REPO_ROOT / "runbooks" / "slurm.md"), "runbooks/slurm.md"
    match = find(slurm, r"round array job \d+ \((\d+) rounds: 1-(\d+); (\d+) units", where)
    rounds, last, units_count = map(int, match.groups())
    units = load_profile("course").units()
    assert (rounds, last, units_count) == (len({u["round"] for u in units}),) * 2 + (len(units),), match.group(0)


def test_the_profiles_lines_in_sweeps_help_state_their_time():
    """`pagelab sweep --help` lists each profile with the first clause of its own opening comment
    (`profile_summary`); a time said there is checked against the profile like any other."""
    from pagelab.sweep.profiles import profile_help, profile_summary

    stated = 0
    for name in ("smoke", "quick", "course", "pool", "full"):
        summary, where = profile_summary(name), f"runbooks/profiles/{name}.yaml (its line in sweep --help)"
        assert summary in profile_help(200), summary
        for minutes in re.findall(r"\b(\d+)-minute", summary):
            assert_time_fits(name, (int(minutes) * 60,) * 2, where)
            stated += 1
        for hours in re.findall(r"about (\d+) hours", summary):
            assert_time_fits(name, (int(hours) * 3600,) * 2, where)
            stated += 1
    assert stated >= 2, "quick's and course's lines say how long they take"


def test_a_measured_time_in_hours_and_minutes_is_the_same_as_in_minutes_and_seconds():
    # "about 1 h 52 min ... measured 111 min 25 s" said two times for one measurement: 111 min 25 s is
    # 1 h 51 min. Every "N h M min measured" beside a "K min S s" must be the same time, truncated.
    measured = re.compile(r"(\d+) min (\d+) s")
    hours = re.compile(r"(\d+) h (\d+) min (?:measured|on the 2-core)")
    paths = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "runbooks" / "profiles").glob("*.yaml"))]
    texts = {path.name: re.sub(r"\s*#\s*", " ", path.read_text()) for path in paths}
    stated = {int(m) * 60 + int(s) for text in texts.values() for m, s in measured.findall(text) if int(m) >= 60}
    assert stated, "no measured time of an hour or more in minutes and seconds: update this test"
    found = 0
    for name, text in texts.items():
        for h, m in hours.findall(text):
            found += 1
            assert any(int(h) * 60 + int(m) == total // 60 for total in stated), (name, f"{h} h {m} min", sorted(stated))
    assert found >= 1, "README's hours-and-minutes are gone: update this test"


def test_the_readme_counts_courses_runs_as_the_profile_lays_them_out():
    """"What it needs" counts course's runs as the report's title page does (every run of the plan)
    and its verdict runs apart, from the profile's own plan of units (pagelab.sweep.profiles)."""
    text, where = flat(REPO_ROOT / "README.md"), "README.md (What it needs)"
    units = load_profile("course").units()
    roles = [unit["role"] for unit in units]
    match = find(text, r"for `course`'s (\d+) runs \(its (\d+) verdict runs, (\d+) rounds of (\d+) page sizes, and its "
                       r"(\d+) over-time runs; the report's title page counts all (\d+)\)", where)
    course = profile("course")
    assert tuple(map(int, match.groups())) == (
        len(units), roles.count("verdict"), course["repeats"], len(course["page_sizes"]), roles.count("over_time"),
        len(units)), match.group(0)


def test_no_profile_or_knob_help_calls_the_measured_seconds_a_steady_state():
    # The report's Method says a verdict run's seconds are those after the ramp-up ended, not a steady
    # state shown (a run's first 40 s after it ran 2.6-4.1% faster than the rest); the profiles' words and
    # `pagelab sweep --help` must not promise more. The ramp-up may say what it aims at (TPC-C 5.5).
    from pagelab.sweep.knobs import KNOBS_BY_NAME

    claims = re.compile(r"\d+ s of steady state|steady state (per|after)|steady-state line|until steady state")
    for path in sorted((REPO_ROOT / "runbooks" / "profiles").glob("*.yaml")):
        found = claims.search(flat(path))
        assert not found, f"{path.name} says {found.group(0)!r} of the measured seconds"
    for name in ("rampup_s", "measure_s"):
        knob = KNOBS_BY_NAME[name]
        said = re.sub(r"\s+", " ", f"{knob.allowed} {knob.help}")
        assert not claims.search(said), f"{name}'s help: {said}"
    rampup = KNOBS_BY_NAME["rampup_s"].help
    assert "ends by itself when the buffer pool has stopped filling and MSER-5 calls the work rate level" in rampup
    assert "not a steady state shown" in rampup
