"""Every sentence outside the profiles that states a profile's shape or time, checked against the
profile itself (runbooks/profiles/*.yaml): the README, the Makefile's help, the run notebook's
"Time to run", the TPC-C runbook and the profiles' own descriptions. When a profile changes, the
stale sentence fails here, naming its file, instead of lying to the next reader.

A stated time is checked against bounds worked out from the profile: every run restores its
snapshot and restarts (~3 s), ramps up and measures; each page size's first run also initialises
and loads; the report and PDF come last. An `auto` ramp-up lasts at least MSER-5's minimum of
samples (or its cap, if smaller) and at most its cap.
"""

from __future__ import annotations

import json
import math
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
         "ten": 10}


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


def test_the_readme_states_courses_disk_footprint():
    from pagelab.sweep.footprint import sweep_estimate

    where = "README.md (Reproducing the Week 4 lab)"
    stated_gb = int(find(flat(REPO_ROOT / "README.md"), r"`course` keeps about (\d+) GB on disk", where).group(1))
    course = profile("course")
    estimate_gib = sweep_estimate(len(course["page_sizes"]), course["warehouses"],
                                  load_profile("course").redo_log) / 2**30
    assert abs(stated_gb - estimate_gib) <= 1, f"{where} says {stated_gb} GB; the sweep's own estimate is {estimate_gib:.1f} GiB"


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


def test_the_disk_each_profile_needs_is_the_sweeps_own_estimate():
    """What README's "What it needs" and the Slurm runbook say a sweep keeps on disk, against the
    estimates the sweep itself checks the room with (pagelab.sweep.footprint), and the generated
    data's share against the measured size per warehouse it states."""
    from pagelab.sweep.footprint import HEADROOM_BYTES, RUN_GROWTH_BYTES, datadir_estimate, sweep_estimate

    def estimate_gib(name: str) -> float:
        p = profile(name)
        return sweep_estimate(len(p["page_sizes"]), p["warehouses"], load_profile(name).redo_log) / 2**30

    readme, where = flat(REPO_ROOT / "README.md"), "README.md (What it needs)"
    for name in ("course", "quick"):
        stated = re.findall(rf"`{name}` keeps about (\d+) GB|, `{name}` about (\d+) GB", readme)
        assert stated, f"{where} no longer says what {name} keeps on disk"
        for gb in (int(a or b) for a, b in stated):
            assert abs(gb - estimate_gib(name)) <= 1, f"{where}: {name} {gb} GB against {estimate_gib(name):.1f} GiB"
    per_warehouse_mb, total_gb, warehouses = find(
        readme, r"takes (\d+) MB per warehouse \(measured at 1 warehouse\), so about ([\d.]+) GB for `course`'s (\d+)",
        where).groups()
    assert int(warehouses) == profile("course")["warehouses"]
    assert abs(float(total_gb) - int(per_warehouse_mb) * int(warehouses) / 1000) <= 0.1, (per_warehouse_mb, total_gb)
    # a first course from a bare machine: the install (OS packages and .venv) beside the sweep and its data
    packages_gb, venv_gb = map(float, find(readme, r"about ([\d.]+) GB of OS packages .*? and ([\d.]+) GB for `\.venv`",
                                           where).groups())
    in_all = int(find(readme, r"In all, a first `course` on a bare machine wants about (\d+) GB free", where).group(1))
    assert abs(in_all - (packages_gb + venv_gb + float(total_gb) + estimate_gib("course") * 2**30 / 1e9)) <= 1, in_all
    slurm, where = flat(REPO_ROOT / "runbooks" / "slurm.md"), "runbooks/slurm.md"
    course = load_profile("course")
    first = find(slurm, r"for `course`, about (\d+) GB while its page size has no loaded snapshot", where).group(1)
    first_gib = (3 * datadir_estimate(profile("course")["warehouses"], course.redo_log) + RUN_GROWTH_BYTES
                 + HEADROOM_BYTES) / 2**30
    assert abs(int(first) - first_gib) <= 1, f"{where}: {first} GB against the check's {first_gib:.1f} GiB"
    bundle = find(slurm, r"about (\d+) GB for `course` \(what `pagelab sweep` says at its start\)", where).group(1)
    assert abs(int(bundle) - estimate_gib("course")) <= 1, f"{where}: {bundle} GB against {estimate_gib('course'):.1f}"


def test_the_memory_figures_name_the_profiles_pools():
    """README's "What it needs" measured memory with course's pool and connections, and says quick's pool."""
    text, where = flat(REPO_ROOT / "README.md"), "README.md (What it needs)"
    course, quick = profile("course"), profile("quick")
    warehouses, pool, connections = find(text, r"one page size of `course` \((\d+) warehouses generated and loaded, "
                                               r"its (\d+) MiB pool, (\d+) connections", where).groups()
    assert (int(warehouses), f"{pool}M", int(connections)) == (
        course["warehouses"], course["buffer_pool"], course["connections"])
    assert find(text, r"`quick`'s pool is (\d+) MiB", where).group(1) + "M" == quick["buffer_pool"]


# "R rounds x T s take R x 3 x (T + o) + F = S s; V = (a/T + f)/B = V, half-width t(0.975, d) x sqrt(V) = H%",
# or, with the over-time block, V = (R x (a/T + f) + a/T_ot + f)/B^2 = V (... ), half-width ...
PLANNER_ARITHMETIC = re.compile(
    r"(?P<rounds>\d+) rounds x (?P<seconds>\d+) s take (?P<rounds_again>\d+) x 3 x \((?P<seconds_again>\d+) \+ "
    r"(?P<other_s>[\d.]+)\) \+ (?P<fixed_s>[\d,]+) = (?P<total_s>[\d,]+) s; "
    r"V = (?:\((?P<a>[\d.]+)/(?P<a_over>\d+) \+ (?P<f>[\d.]+)\)/(?P<blocks>\d+)"
    r"|\((?P<ot_rounds>\d+) x \((?P<ot_a>[\d.]+)/(?P<ot_a_over>\d+) \+ (?P<ot_f>[\d.]+)\) \+ "
    r"(?P<ot_a_again>[\d.]+)/(?P<ot_s>\d+) \+ (?P<ot_f_again>[\d.]+)\)/(?P<ot_blocks>\d+)\^2) = (?P<v>[\d.]+)"
    r"(?: \([^)]*\))?, half-width t\(0\.975, (?P<df>\d+)\) x sqrt\(V\) = "
    r"(?:(?P<log_half>[\d.]+) on the log scale, \+-)?(?P<ratio_half>[\d.]+)%")


@pytest.mark.parametrize("name", ["quick", "course"])
def test_the_profiles_planner_arithmetic_holds(name):
    """The planner's figures in a profile's comment add up (scipy's t quantile; the half-width as a
    ratio is exp(t x sqrt(V)) - 1, the report's scale), and the rounds and run length are the profile's.
    With the over-time block (course) V is TpmC's model's equal-weight Σ(w + f)/k² over the rounds
    and that block, its w its own a/T_ot (pagelab.evidence.planner), worked here from the comment's
    own numbers; the block is the profile's over_time_s."""
    from scipy import stats

    text = re.sub(r"\s*\n#\s*", " ", (REPO_ROOT / "runbooks" / "profiles" / f"{name}.yaml").read_text())
    found = list(PLANNER_ARITHMETIC.finditer(text))
    assert found, f"runbooks/profiles/{name}.yaml has no planner arithmetic matching {PLANNER_ARITHMETIC.pattern!r}"
    p = profile(name)
    for match in found:
        g = match.groupdict()
        rounds, seconds = int(g["rounds"]), int(g["seconds"])
        assert (rounds, seconds) == (p["repeats"], p["measure_s"]) == (int(g["rounds_again"]), int(g["seconds_again"]))
        total = rounds * 3 * (seconds + float(g["other_s"])) + float(g["fixed_s"].replace(",", ""))
        assert abs(total - float(g["total_s"].replace(",", ""))) <= 1, (total, g["total_s"])
        if g["ot_blocks"]:
            a, f, blocks = float(g["ot_a"]), float(g["ot_f"]), int(g["ot_blocks"])
            assert (int(g["ot_rounds"]), int(g["ot_a_over"]), blocks) == (rounds, seconds, rounds + 1), match.group(0)
            assert (float(g["ot_a_again"]), float(g["ot_f_again"])) == (a, f), match.group(0)
            assert p.get("over_time_s") and int(g["ot_s"]) == p["over_time_s"], match.group(0)
            variance = (rounds * (a / seconds + f) + a / int(g["ot_s"]) + f) / blocks ** 2
        else:
            assert int(g["a_over"]) == seconds and not p.get("over_time_s"), match.group(0)
            blocks = int(g["blocks"])
            variance = (float(g["a"]) / seconds + float(g["f"])) / blocks
        assert abs(variance - float(g["v"])) <= 0.005 * variance + 1e-6, (variance, g["v"])
        assert int(g["df"]) == blocks - 1, match.group(0)
        half = stats.t.ppf(0.975, int(g["df"])) * math.sqrt(variance)
        if g["log_half"]:
            assert abs(half - float(g["log_half"])) <= 0.0005, (half, g["log_half"])
        assert abs(100 * math.expm1(half) - float(g["ratio_half"])) <= 0.1, (100 * math.expm1(half), g["ratio_half"])


def test_the_fixed_sequences_floor_is_said_as_families_computes_it():
    """course.yaml and `pagelab sweep --help`'s repeats text give the exact signed-rank test's
    smallest p at 6, 7 and 8 rounds and what Holm over the 2 pairs after the primary makes of it, as
    pagelab.evidence.families computes them (scipy's exact Wilcoxon, statsmodels' Holm)."""
    from fractions import Fraction

    from pagelab.evidence.families import holm, smallest_p
    from pagelab.sweep.knobs import KNOBS

    eight, seven, six = smallest_p(8, 8, True), smallest_p(7, 7, True), smallest_p(6, 6, True)
    five = smallest_p(5, 5, False)
    assert Fraction(seven).limit_denominator(1000) == Fraction(2, 128) and Fraction(six).limit_denominator(1000) == Fraction(2, 64)
    assert Fraction(eight).limit_denominator(1000) == Fraction(2, 256)
    after_eight, after_seven, after_six, after_five = (max(holm([p, p])) for p in (eight, seven, six, five))
    course = re.sub(r"\s*\n#\s*", " ", (REPO_ROOT / "runbooks" / "profiles" / "course.yaml").read_text())
    match = find(course, r"With 8 rounds the signed-rank test's smallest p is 2/256 = ([\d.]+), .*? 2 x 2/256 = ([\d.]+), "
                         r"under 5% \(with 6 rounds, 2 x 2/64 = ([\d.]+) could not\)", "course.yaml")
    assert [float(x) for x in match.groups()] == pytest.approx([eight, after_eight, after_six], abs=5e-4), match.group(0)
    assert "then by Holm's correction over those 2" in course and "first, alone, at the full 5%" in course
    text = re.sub(r"\s+", " ", next(k for k in KNOBS if k.name == "repeats").help)
    match = find(text, r"smallest p 2/252, 2 x 2/252 = ([\d.]+)\) or 7 .*? smallest p is 2/64 with 6 rounds, 2 x 2/64 = "
                       r"([\d.]+), and 2/128 with 7, 2 x 2/128 = ([\d.]+)\)", "the repeats knob's text")
    assert [float(x) for x in match.groups()] == pytest.approx([after_five, after_six, after_seven], abs=5e-4), match.group(0)
    assert "first, alone, at the full 5%, then, only if it was called, the other pairs by Holm's correction" in text


def test_the_slurm_runbooks_first_example_keeps_its_own_rule():
    """slurm.md asks for at least twice as many rounds as the nodes a sweep may use at once
    (`--slurm-max-running K`, rounds ≥ 2K, so a node can take 2 rounds and its effect an interval);
    its first example, `course` as shipped, must keep that rule with the profile's verdict rounds."""
    slurm, where = flat(REPO_ROOT / "runbooks" / "slurm.md"), "runbooks/slurm.md"
    assert "rounds ≥ 2K" in slurm
    example = find(slurm, r"```sh \.venv/bin/pagelab sweep --profile course --executor slurm .*?--slurm-max-running (\d+) ```",
                   where)
    most = int(example.group(1))
    repeats = profile("course")["repeats"]
    assert repeats >= 2 * most, f"{where}'s first example runs {repeats} verdict rounds on up to {most} nodes at once"
    said = find(slurm, r"`--slurm-max-running (\d+)`: at most (\d+) rounds at once, so that `course`'s (\d+) verdict rounds",
                where).groups()
    assert said == (str(most), str(most), str(repeats)), said


def test_the_read_requests_tolerance_is_the_reports():
    """The runbook's "within the 10% the report allows" is the report's own tolerance (claims)."""
    from pagelab.report.claims import REQUEST_SIZE_TOLERANCE

    text, where = flat(RUNBOOK), "runbooks/tpcc-page-size.md (Request size against page size)"
    for found in re.findall(r"within (?:the )?(\d+)% (?:the report allows|of the page size)", text):
        assert int(found) == round(100 * REQUEST_SIZE_TOLERANCE), f"{where}: {found}%"
    assert find(text, r"within the (\d+)% the report allows", where)


def test_troubleshootings_far_above_is_the_reports():
    """Troubleshooting says when the report names a page size whose within-run a stands out: the
    report's own threshold (pagelab.report.precision.FAR_ABOVE)."""
    from pagelab.report.precision import FAR_ABOVE

    where = "runbooks/troubleshooting.md"
    times = find(flat(REPO_ROOT / "runbooks" / "troubleshooting.md"), r"where it is more than (\d+) times every other's, "
                                                                       r"the paragraph names it", where).group(1)
    assert int(times) == FAR_ABOVE, f"{where}: {times} times; the report's FAR_ABOVE is {FAR_ABOVE:g}"


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


def test_every_documented_cluster_layout_keeps_the_rounds_per_node_rule():
    """Wherever the docs give a sweep's rounds for the cluster (`--set repeats=R` beside Slurm), they
    give `--slurm-max-running K` with it, and R ≥ 2K, slurm.md's rule: without K all rounds may start
    at once, one per node, and no node has the 2 rounds its own interval needs."""
    paths = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "runbooks").glob("*.md")),
             *sorted((REPO_ROOT / "runbooks" / "profiles").glob("*.yaml"))]
    found = 0
    for path in paths:
        text = " ".join(re.sub(r"\s*#\s*", " ", path.read_text()).replace("\\\n", " ").split())
        for match in re.finditer(r"repeats=(\d+)(?![\dK])", text):
            if "slurm" not in text[max(0, match.start() - 300):match.end() + 300].lower():
                continue  # a sweep on one machine
            found += 1
            most = re.search(r"--slurm-max-running (\d+)", text[match.start():match.end() + 160])
            assert most, f"{path.name}: {text[match.start():match.end() + 160]!r} gives a cluster's rounds without K"
            assert int(match.group(1)) >= 2 * int(most.group(1)), (path.name, match.group(0), most.group(0))
    assert found >= 4, found


def test_every_documented_resume_on_slurm_gives_its_rounds_at_once_again():
    """A resume does not remember `--slurm-max-running K` (`pagelab sweep --help`), so every resume on
    Slurm the docs show as a command to run (in a shell block) gives it again: without it the resumed
    rounds may all start at once, one to a node, and break slurm.md's rounds ≥ 2K."""
    paths = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "runbooks").glob("*.md"))]
    found = 0
    for path in paths:
        for block in re.findall(r"```sh\n(.*?)```", path.read_text(), re.S):
            for command in block.replace("\\\n", " ").splitlines():
                if "--resume" in command and "--executor slurm" in command:
                    found += 1
                    assert "--slurm-max-running" in command, f"{path.name}: {command.strip()!r} drops --slurm-max-running"
    assert found >= 3, found


def test_the_readmes_example_of_a_tpmc_line_is_courses():
    """"Reading the verdicts" quotes the method TpmC's lines end with for `course` as shipped and with
    `--set over_time_s=0`, as the model writes it (pagelab.evidence.model): course's rounds and the
    over-time runs' block, on the blocks less one degrees of freedom."""
    from pagelab.evidence.model import MODEL_METHOD, blocks_text

    text = flat(REPO_ROOT / "README.md")
    rounds = profile("course")["repeats"]
    assert profile("course")["over_time_s"] > 0
    shipped = f'for TpmC in `course`, "{MODEL_METHOD}, {blocks_text(rounds + 1, True)}, t on {rounds} df": {rounds} rounds,'
    assert shipped in text, f"README.md (Reading the verdicts) no longer says {shipped!r}"
    without = f'`--set over_time_s=0` reads "{blocks_text(rounds, False)}, t on {rounds - 1} df"'
    assert without in text, f"README.md (Reading the verdicts) no longer says {without!r}"


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


OVER_TIME_COUNTS = ("after MSER-5 cuts each one's warm-up, all of the rest where the drift test detects no drift, "
                    "else only its first")


def test_where_the_verdicts_come_from_is_said_alike_and_as_the_model_counts():
    """`pagelab sweep --help` (over_time_s), course.yaml, the TPC-C runbook and the README say that the
    medians and the other metrics' verdicts come from the rounds while TpmC's counts the over-time
    runs as one more block, and what of each counts; no doc says course's verdicts come from the
    rounds alone. What of an over-time run counts is checked against the model itself
    (pagelab.evidence.model.counted_series): a level run counts whole after its warm-up, a drifting
    one only its first window of a verdict run's length."""
    import numpy as np

    from pagelab.evidence.components import RunSeries
    from pagelab.evidence.model import counted_series
    from pagelab.sweep.knobs import KNOBS

    help_text = re.sub(r"\s+", " ", next(k for k in KNOBS if k.name == "over_time_s").help)
    texts = {"sweep --help (over_time_s)": help_text,
             "course.yaml": re.sub(r"\s*\n#\s*", " ", (REPO_ROOT / "runbooks" / "profiles" / "course.yaml").read_text()),
             "runbooks/tpcc-page-size.md": flat(RUNBOOK), "README.md": flat(REPO_ROOT / "README.md")}
    for where, text in texts.items():
        assert OVER_TIME_COUNTS in text, f"{where} no longer says what of an over-time run TpmC's model counts"
        assert re.search(r"verdicts of every metric but TpmC|other metrics' verdicts and the medians|the verdicts and "
                         r"intervals of every metric but TpmC", text), where
    for where, text in texts.items():
        for wrong in ("the verdicts come from the other runs", "the verdicts, medians and intervals come from these",
                      "the verdicts come from the rounds,"):
            assert wrong not in text, f"{where} says {wrong!r}"
    rng = np.random.default_rng(1)
    seconds = (10.0,) * 120
    verdict = [RunSeries(f"4k-r{i}", "4k", f"round {i}", tuple(1000 + rng.normal(0, 10, 9)), (10.0,) * 9) for i in (1, 2)]
    level = RunSeries("4k-over-time", "4k", "over-time", tuple(1000 + rng.normal(0, 10, 120)), seconds, "over_time")
    drifting = RunSeries("8k-over-time", "8k", "over-time", tuple(1000 - 3 * np.arange(120) + rng.normal(0, 10, 120)),
                         seconds, "over_time")
    _, uses = counted_series([*verdict, level, drifting])
    by_size = {use.page_size: use for use in uses}
    assert by_size["4k"].counted_s == by_size["4k"].measured_s - by_size["4k"].cut_s, by_size["4k"]
    assert by_size["8k"].drift_p < 0.05 and by_size["8k"].counted_s == 90, by_size["8k"]


def test_the_docs_say_what_a_round_shares_and_an_interval_excludes_in_plain_words():
    """A round's runs do not share a minute (a `course` round takes about 6.5 minutes), and "excludes no
    change" is a double negative: the README and runbooks say "run back to back on one machine,
    within minutes of each other" and "lies wholly on one side of no change" instead."""
    paths = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "runbooks").glob("*.md")),
             *sorted((REPO_ROOT / "runbooks" / "profiles").glob("*.yaml")),
             REPO_ROOT / "lib" / "pagelab" / "cli" / "stats.py"]  # `pagelab stats --help`
    for path in paths:
        text = re.sub(r"\s*#\s*", " ", path.read_text()) if path.suffix == ".yaml" else path.read_text()
        text = " ".join(text.replace('"\n', "").replace('" "', "").split())
        for phrase in ("machine's minute", "shared minute", "minute's shared", "excludes no change",
                       "machine's state of that minute"):
            assert phrase not in text, f"{path.relative_to(REPO_ROOT)} says {phrase!r}"
