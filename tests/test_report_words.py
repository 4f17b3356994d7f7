"""What a fresh reader of a course report found missing, each said by the report from the bundle's own
records: the buffer pool one way, the precision achieved against the design's, what is done with a
slow round, Table 8's statistic, the looks, the settings a --set changed and the sweep's duration,
the servers the runs measured, and what the server settings mean. Each expected figure is computed
here from the records the test writes, not read back from the report's code. The bundles are
synthetic sweeps from bench/synthetic.py (known components) with the records a sweep writes added."""

from __future__ import annotations

import datetime
import json
import math
import re
import statistics
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from bench.synthetic import SyntheticDesign, sweep, write_bundle

MIB = 1 << 20
DESIGN = SyntheticDesign(rounds=7, effects=(0.0, 0.0, 0.0), within_a=0.30, between_f=0.0025)
LOADED = {"4k": 800 * MIB, "8k": 700 * MIB, "16k": 640 * MIB}  # the data each page size loaded
POOL = 256 * MIB


def bundle(tmp_path: Path, profile: dict | None = None, document: dict | None = None,
           summary: dict | None = None, hosts: dict | None = None, design: SyntheticDesign = DESIGN) -> Path:
    """A synthetic 7-round sweep of 4k/8k/16k with the records a real sweep writes beside its TpmC:
    each run's db_bytes, buffer_pool_bytes and server in summary.json (`summary` adds to them), the
    machine, the profile's timing, each run's host (`hosts`: run name -> host) and start and end."""
    directory = tmp_path / "b"
    write_bundle(sweep(design, np.random.default_rng(11)), directory,
                 profile={"primary": "16k vs 4k", "repeats": design.rounds, "measure_s": 100, "interval_s": 10,
                          "over_time_s": 0, **(profile or {})})
    record = json.loads((directory / "sweep.json").read_text())
    start = datetime.datetime(2026, 11, 28, 22, 0, 0, tzinfo=datetime.timezone.utc)
    for index, entry in enumerate(record["runs"]):
        path = directory / entry["name"] / "summary.json"
        facts = {"db_bytes": LOADED[entry["page_size"]], "buffer_pool_bytes": POOL,
                 "server": "10.11.19-MariaDB", "warehouses": 7, "connections": 8, **(summary or {})}
        path.write_text(json.dumps({**json.loads(path.read_text()), **facts}))
        begun = start + datetime.timedelta(seconds=150 * index)
        entry.update({"host": (hosts or {}).get(entry["name"], "vm"),
                      "started": begun.strftime("%Y-%m-%dT%H:%M:%S%z"),
                      "finished": (begun + datetime.timedelta(seconds=140)).strftime("%Y-%m-%dT%H:%M:%S%z")})
    record.update({"sweep_id": "b", "profile_name": "synthetic", "machine": {"server": {"version": "10.11.19"}},
                   "created": start.strftime("%Y-%m-%dT%H:%M:%S%z"), **(document or {})})
    (directory / "sweep.json").write_text(json.dumps(record))
    return directory


def load(directory: Path):
    from pagelab.report.lab_report import load as load_report

    return load_report(directory)


# --- a. the buffer pool, one way -------------------------------------------------------------------------


def test_the_pool_is_given_once_one_way_as_its_share_of_the_data_each_page_size_loaded(tmp_path):
    from pagelab.report.method import method_markdown
    from pagelab.report.setup_tables import benchmark_setup

    data = load(bundle(tmp_path))
    shares = sorted(round(100 * POOL / loaded) for loaded in LOADED.values())
    expected = f"256 MiB ({shares[0]}–{shares[-1]}% of the data loaded)"
    assert expected == "256 MiB (32–40% of the data loaded)"  # the arithmetic of the records above
    method = method_markdown(data)
    assert f"buffer pool of {expected}" in method, method
    table = benchmark_setup(data).set_index("Setting")
    assert table.loc["Buffer Pool Size", "This sweep"] == expected
    # the lab's own figure, quoted once as its words
    assert table.loc["Buffer Pool Size", "Week 4 lab"] == "\u201c210MB (30% of DB size)\u201d (the lab's words)"
    every = method + " ".join(table["This sweep"].astype(str))
    assert "largest loaded database" not in every and "a third" not in every


# --- b. the precision achieved, against the design's ----------------------------------------------------


def _power(a: float, f: float, rounds: int, run_s: float, effect: float = 0.05, alpha: float = 0.05) -> float:
    """The two-sided t-test's power for a true `effect` over `rounds` blocks (noncentral t), written out."""
    se = math.sqrt((a / run_s + f) / rounds)
    dof = rounds - 1
    critical = stats.t.isf(alpha / 2, dof)
    shift = -math.log(1 - effect) / se
    return stats.nct.sf(critical, dof, shift) + stats.nct.cdf(-critical, dof, shift)


@pytest.mark.parametrize("planned_floor_pct, noisier", [(1.0, True), (40.0, False)])
def test_the_report_gives_the_precision_achieved_and_what_the_planner_says_of_it(tmp_path, planned_floor_pct,
                                                                                  noisier):
    from pagelab.evidence.runs import components_of
    from pagelab.report.precision import precision_markdown

    data = load(bundle(tmp_path, profile={"planned_within_a": 3200, "planned_floor_pct": planned_floor_pct}))
    text = precision_markdown(data)
    row = data.pairs[(data.pairs["metric"] == "tpmc") & (data.pairs["a"] == "16k") & (data.pairs["b"] == "4k")].iloc[0]
    width = row["high_pct"] - row["low_pct"]
    assert text.startswith("**Precision this sweep achieved**, for the primary comparison, 16k vs 4k. **The figure "
                           "to quote is ±"), text
    # one point a bullet, in the order a reader asks them
    bullets = [line.split(":**")[0].split("** (")[0] for line in text.splitlines() if line.startswith("- **")]
    assert bullets == ["- **This sweep's interval", "- **The components it measured", "- **Against the plan", "- **What a repeat would give"], bullets
    assert f"{width:.1f} percentage points wide (the high end less the low), half of that {width / 2:.1f} points" in text, text
    pair = components_of(data.evidence).pair("16k", "4k")
    a, f = pair.within_a.value, pair.between_f.value
    assert f"within-run a = {1e4 * a:,.0f} %²·s, the sum of the two page sizes' verdict runs' a (" in text, text
    parts = re.search(r"verdict runs' a \(16k ([\d,]+) \+ 4k ([\d,]+):", text)
    assert parts and abs(sum(float(x.replace(",", "")) for x in parts.groups()) - 1e4 * a) <= 1.0, text
    assert f"is in the Method), and between-run floor √f = {100 * math.sqrt(f):.1f}%" in text, text
    # the floor's interval, as `pagelab stats` prints it (its chi-square ends, as square roots)
    ends = [f"{100 * math.sqrt(max(end, 0.0)):.1f}%" for end in (pair.between_f.low, pair.between_f.high)]
    assert f"√f = {100 * math.sqrt(f):.1f}% [{ends[0]}, {ends[1]}] (95% interval, {pair.rounds} rounds: " in text, text
    assert f"the χ² interval of that variance on {pair.between_f.dof:.3g} degrees of freedom less a/T" in text, text
    planned, measured = 100 * math.sqrt(0.32 / 100 + (planned_floor_pct / 100) ** 2), 100 * math.sqrt(a / 100 + f)
    assert f"spread of {planned:.1f}% at 100 s" in text
    assert f"round's log-ratio spreads √(a/T + f) = {measured:.1f}% at T = 100 s" in text
    # noisier only where a planned component lies outside this sweep's interval for it
    planned_a_value, planned_f_value = 0.32, (planned_floor_pct / 100) ** 2
    beyond = pair.between_f.low > planned_f_value or pair.within_a.low > planned_a_value
    assert ("the machine was noisier than the design assumed, beyond this sweep's intervals" in text) == \
        (noisier and beyond), text
    assert ("cannot say the machine was noisier than the design assumed" in text) == (noisier and not beyond), text
    assert ("the machine was no noisier than the design assumed" in text) == (not noisier), text
    # the planner's word, one figure each: this design's power, and the rounds a 5% effect needs
    assert f"a power of {100 * _power(a, f, 7, 100):.0f}% for a 5% effect" in text, text
    needed = next(n for n in range(2, 10_000) if _power(a, f, n, 100) >= 0.8)
    assert f"a 5% effect would need {needed} rounds × 100 s for 80% power" in text, text
    assert text.count("would need") == 1 and text.count("power of") == 1


def test_without_planned_components_the_report_says_it_cannot_compare(tmp_path):
    from pagelab.report.precision import precision_markdown

    text = precision_markdown(load(bundle(tmp_path)))
    assert "cannot say whether the machine was noisier than the design assumed" in text, text
    assert "would need" in text


def test_a_bundle_from_before_the_planned_knobs_reads_them_from_its_shipped_profile(tmp_path):
    from pagelab.common.paths import PROFILES_DIR
    from pagelab.report.precision import precision_markdown

    shipped = yaml.safe_load((PROFILES_DIR / "course.yaml").read_text())
    text = precision_markdown(load(bundle(tmp_path, document={"profile_name": "course"})))
    assert (f"planned with a = {shipped['planned_within_a']:,.0f} %²·s and √f = {shipped['planned_floor_pct']:.1f}%"
            in text), text
    assert "as this pagelab ships the profile: this bundle predates recording them" in text


# --- c. a slow round or run: kept, and why ---------------------------------------------------------------


KEPT = ("pagelab keeps every round and every run, the slow ones included: dropping one after seeing the data would "
        "bias the interval, and the rounds are blocks, so what moves a whole round cancels in its pairs.")


def test_a_flagged_run_and_round_one_are_kept_and_the_report_says_why(tmp_path):
    from pagelab.report.appendix import outliers_markdown
    from pagelab.report.self_check import self_check_markdown

    directory = bundle(tmp_path)
    slow = directory / "4k-r1" / "summary.json"
    record = json.loads(slow.read_text())
    slow.write_text(json.dumps({**record, "tpmc": record["tpmc"] / 3}))  # a third of its page size's others
    data = load(directory)
    # what the sentence claims: the flagged run is in the runs the verdicts use, and no round is dropped
    assert "4k-r1" in set(data.evidence.runs["run"]) and not data.evidence.excluded
    tpmc = data.pairs[data.pairs["metric"] == "tpmc"]
    assert set(tpmc["runs_a"]) == {7} and set(tpmc["runs_b"]) == {7}
    flagged = outliers_markdown(data)
    checked = self_check_markdown(data.evidence)
    assert "4k-r1 stands far below" in flagged, flagged
    assert "Round 1, the first runs after the loads" in checked and KEPT in checked, checked
    # said once: the appendix points to the paragraph that says it, by the title that paragraph has
    assert (checked + flagged).count(KEPT) == 1, flagged
    title = checked.split("**")[1].rstrip(".")
    assert title == "The sweep checked against itself" and f"see **{title}**" in flagged, flagged


def test_without_round_one_the_flagged_runs_say_why_they_are_kept(tmp_path):
    """Every round-1 run failed: the self-check has no round 1 to report, so the sentence is said
    under the flagged runs, once."""
    from pagelab.report.appendix import outliers_markdown
    from pagelab.report.self_check import self_check_markdown

    directory = bundle(tmp_path)
    record = json.loads((directory / "sweep.json").read_text())
    for entry in record["runs"]:
        if entry["name"].endswith("-r1"):
            entry.update({"status": "failed", "error": "the server stopped"})
    (directory / "sweep.json").write_text(json.dumps(record))
    slow = directory / "4k-r2" / "summary.json"
    run = json.loads(slow.read_text())
    slow.write_text(json.dumps({**run, "tpmc": run["tpmc"] / 3}))
    data = load(directory)
    assert {name for name, _ in data.evidence.excluded} == {"4k-r1", "8k-r1", "16k-r1"}
    flagged = outliers_markdown(data)
    checked = self_check_markdown(data.evidence)
    assert "4k-r2 stands far below" in flagged and flagged.endswith(KEPT), flagged
    assert "Round 1" not in checked and KEPT not in checked, checked


# --- d. Table 8: the statistic the verdicts use -----------------------------------------------------------


def test_the_seed_comparison_gives_our_medians_over_the_runs():
    from pagelab.report.figures import seed_comparison

    tpmc = {"4k": [100.0, 110.0, 400.0], "8k": [200.0, 210.0, 900.0], "16k": [300.0, 320.0, 100.0]}
    summary = pd.DataFrame([{"page_size": size, "run": f"{size}-r{i}", "tpmc": value}
                            for size, values in tpmc.items() for i, value in enumerate(values, start=1)])
    # two samples a run; a run's IOPS is the mean over its measurement, the table's the median over runs
    samples = {(size, f"{size}-r{i}"): [10.0 * i, 30.0 * i ** 2] for size in tpmc for i in (1, 2, 3)}
    iostat = pd.DataFrame([{"page_size": size, "run": run, "t_s": t, "r_s": r, "w_s": 2 * r, "rareq_kb": 4.0}
                           for (size, run), values in samples.items() for t, r in zip((10, 20), values)])
    table = seed_comparison(summary, iostat).set_index("page_size")
    for size, values in tpmc.items():
        assert table.loc[size, "tpmc_ours"] == statistics.median(values)
        run_means = [statistics.mean(samples[size, f"{size}-r{i}"]) for i in (1, 2, 3)]
        assert table.loc[size, "read_iops_ours"] == statistics.median(run_means)
        assert table.loc[size, "write_iops_ours"] == 2 * statistics.median(run_means)


def test_table_8_says_it_shows_medians():
    notebook = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "tpcc_page_size_report.ipynb")
                          .read_text())
    cell = next("".join(c["source"]) for c in notebook["cells"] if "seed_comparison" in "".join(c["source"]))
    assert "Ours are medians over the" in cell and '"Median TpmC, ours"' in cell and "means over the measurement; " \
           not in cell


# --- e. max_rounds and the looks ---------------------------------------------------------------------------


def test_the_method_says_whether_max_rounds_was_declared(tmp_path):
    from pagelab.report.model_report import looks_sentence

    once = looks_sentence(load(bundle(tmp_path)))
    assert "`max_rounds` was not declared for this sweep (0)" in once, once
    assert "one look, after 7 rounds" in once and "tested at the full 5%" in once
    full = looks_sentence(load(bundle(tmp_path / "full", profile={"max_rounds": 7})))
    assert "`max_rounds` was declared as 7, the rounds it ran" in full, full
    room = looks_sentence(load(bundle(tmp_path / "room", profile={"max_rounds": 21},
                                      document={"looks": [{"look": 1, "rounds": 7, "time": "t1"}]})))
    assert "at most 21 rounds (`max_rounds`)" in room and "look 1 after 7 rounds (declared t1)" in room, room


# --- f. what --set changed, and how long the sweep took ---------------------------------------------------


def test_the_setup_names_each_changed_knob_with_both_values_and_the_sweeps_duration(tmp_path):
    from pagelab.report.setup_tables import changed_settings_markdown

    directory = bundle(tmp_path, profile={"overrides": ["over_time_s=0"]},
                       document={"changed_knobs": {"over_time_s": {"profile": 1200, "used": 0}}})
    data = load(directory)
    text = changed_settings_markdown(data)
    assert "with `--set over_time_s=0`" in text and "`over_time_s`: 1200 in the profile, 0 used" in text, text
    record = json.loads((directory / "sweep.json").read_text())
    ends = [datetime.datetime.strptime(e["finished"], "%Y-%m-%dT%H:%M:%S%z") for e in record["runs"]]
    took = max(ends) - datetime.datetime.strptime(record["created"], "%Y-%m-%dT%H:%M:%S%z")
    minutes, seconds = divmod(int(took.total_seconds()), 60)
    assert f"The sweep took {minutes} min {seconds} s of wall-clock time" in text, text


def test_a_bundle_from_before_changed_knobs_reads_the_profiles_value_from_its_shipped_file(tmp_path):
    from pagelab.common.paths import PROFILES_DIR
    from pagelab.report.setup_tables import changed_settings_markdown

    shipped = yaml.safe_load((PROFILES_DIR / "course.yaml").read_text())["over_time_s"]
    text = changed_settings_markdown(load(bundle(tmp_path, profile={"overrides": ["over_time_s=0"]},
                                                 document={"profile_name": "course"})))
    assert f"`over_time_s`: {shipped} in the profile, 0 used" in text and "predates recording them" in text, text


def test_a_new_sweep_records_what_each_set_changed(tmp_path):
    from pagelab.common.paths import PROFILES_DIR
    from pagelab.sweep.orchestrator import create_sweep
    from pagelab.sweep.profiles import load_profile

    shipped = yaml.safe_load((PROFILES_DIR / "smoke.yaml").read_text())
    made = create_sweep(load_profile("smoke", [f"repeats={shipped['repeats'] + 1}", f"connections={shipped['connections']}"]),
                        tmp_path / "s", "smoke")
    record = json.loads((made / "sweep.json").read_text())
    # a --set that gives the profile's own value changes nothing
    assert record["changed_knobs"] == {"repeats": {"profile": shipped["repeats"], "used": shipped["repeats"] + 1}}


# --- g. the servers the runs measured -----------------------------------------------------------------------


def test_the_versions_give_each_runs_server_and_host_not_only_where_the_sweep_was_made(tmp_path):
    from pagelab.report.appendix import versions

    hosts = {f"{size}-r{r}": ("node1" if r <= 4 else "node2") for size in LOADED for r in range(1, 8)}
    directory = bundle(tmp_path, hosts=hosts)
    for name, host in hosts.items():  # node2 runs another build
        path = directory / name / "summary.json"
        if host == "node2":
            path.write_text(json.dumps({**json.loads(path.read_text()), "server": "10.11.20-MariaDB"}))
    rows = dict(versions(load(directory)).itertuples(index=False))
    on_node1 = sum(1 for host in hosts.values() if host == "node1")
    assert rows[f"Server, {on_node1} runs on node1"] == "10.11.19-MariaDB", rows
    assert rows[f"Server, {len(hosts) - on_node1} runs on node2"] == "10.11.20-MariaDB", rows
    assert rows["Server where the sweep was made"] == "10.11.19"


def _table_1_server(directory: Path) -> str:
    from pagelab.report.setup_tables import system_setup

    return system_setup(load(directory)).set_index("Type").loc["Server", "This machine"]


def test_table_1_gives_the_server_the_runs_recorded_not_the_one_where_the_sweep_was_made(tmp_path):
    """On Slurm sweep.json's machine is the login node: Table 1's Server row is what the runs recorded
    (as Versions lists it), "see Versions" when they recorded more than one, and the login node's,
    said so, only when no run recorded one."""
    from pagelab.machine.system import system_setup_table

    # every run on the nodes' 10.11.20 build; the sweep was made where 10.11.19 is installed
    on_nodes = bundle(tmp_path / "nodes", summary={"server": "10.11.20-MariaDB-0+deb12u1"},
                      hosts={f"{size}-r{r}": "node1" for size in LOADED for r in range(1, 8)})
    assert _table_1_server(on_nodes) == "10.11.20-MariaDB-0+deb12u1"
    # node2's runs on another build: two versions, listed by host in Versions
    hosts = {f"{size}-r{r}": ("node1" if r <= 4 else "node2") for size in LOADED for r in range(1, 8)}
    mixed = bundle(tmp_path / "mixed", hosts=hosts)
    for name, host in hosts.items():
        if host == "node2":
            path = mixed / name / "summary.json"
            path.write_text(json.dumps({**json.loads(path.read_text()), "server": "10.11.20-MariaDB"}))
    assert _table_1_server(mixed) == f"{len(set(hosts.values()))} versions: see Versions"
    # runs from before runs recorded their server: the machine record's, and where it comes from
    unrecorded = bundle(tmp_path / "old", summary={"server": None})
    machine = json.loads((unrecorded / "sweep.json").read_text())["machine"]
    assert _table_1_server(unrecorded) == f"{dict(system_setup_table(machine))['Server']} (where the sweep was made)"


# --- h. what the server settings mean -------------------------------------------------------------------------


def test_every_server_setting_of_the_setup_table_has_its_meaning(tmp_path):
    from pagelab.report.labels import setting_meanings_markdown
    from pagelab.report.setup_tables import benchmark_setup

    settings = [s for s in benchmark_setup(load(bundle(tmp_path)))["Setting"] if s.startswith("innodb_")]
    for named in ("innodb_flush_log_at_trx_commit", "innodb_flush_neighbors", "innodb_log_buffer_size",
                  "innodb_flush_method", "innodb_log_file_size"):
        assert named in settings
    text = setting_meanings_markdown(settings)
    lines = [line for line in text.splitlines() if line.startswith("- `")]
    assert [line.split("`")[1] for line in lines] == settings, text
    assert all(len(line.split(": ", 1)[1]) > 20 for line in lines), text


def test_the_setup_table_shows_the_setting_that_counts_pages_not_bytes(tmp_path):
    """innodb_lru_scan_depth is not in the course guide, but it is a count of pages: the same default
    keeps 6 MiB free at 4k and 24 MiB at 16k, so it is part of the page-size effect a fixed pool shows."""
    from pagelab.report.setup_tables import benchmark_setup

    made = bundle(tmp_path)
    for run in (path for path in made.iterdir() if (path / "summary.json").exists()):
        (run / "variables.csv").write_text("variable_name,value\ninnodb_lru_scan_depth,1536\n")
    rows = benchmark_setup(load(made)).set_index("Setting")
    assert rows.loc["innodb_lru_scan_depth", "This sweep"] == "1536 (server default)", rows
    assert rows.loc["innodb_lru_scan_depth", "Week 4 lab"] == "not set by the course guide (its server's default)"
    assert "innodb_lru_scan_depth" not in set(benchmark_setup(load(bundle(tmp_path / "none")))["Setting"])


# --- the same words from a real bundle ------------------------------------------------------------------------


CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured" / "course-2026-11-28"


def test_the_course_sweep_of_2026_11_28_reads_as_its_records_say(tmp_path):
    """The trimmed bundle of the `course --set over_time_s=0` sweep the fresh reader read: each fix's
    figure computed here from its summary.json, components.json and sweep.json files."""
    import shutil

    from pagelab.common.paths import PROFILES_DIR
    from pagelab.report.appendix import versions
    from pagelab.report.precision import precision_markdown
    from pagelab.report.setup_tables import benchmark_setup, changed_settings_markdown, system_setup

    directory = tmp_path / "course"
    shutil.copytree(CAPTURED, directory)
    record = json.loads((directory / "sweep.json").read_text())
    summaries = {e["name"]: json.loads((directory / e["name"] / "summary.json").read_text()) for e in record["runs"]}
    data = load(directory)
    # a. the pool: each page size's data and the pool, as the runs recorded them
    loaded = {}
    for entry in record["runs"]:
        loaded.setdefault(entry["page_size"], []).append(summaries[entry["name"]]["db_bytes"])
    pool = {s["buffer_pool_bytes"] for s in summaries.values()}
    assert pool == {256 * MIB}
    shares = sorted(round(100 * 256 * MIB / statistics.median(sizes)) for sizes in loaded.values())
    table = benchmark_setup(data).set_index("Setting")
    assert table.loc["Buffer Pool Size", "This sweep"] == f"256 MiB ({shares[0]}–{shares[-1]}% of the data loaded)"
    # b. the planner's word from the sweep's own components.json
    pair = next(p for p in json.loads((directory / "components.json").read_text())["pairs"]
                if (p["a"], p["b"]) == ("16k", "4k"))
    a, f = pair["within_a"]["value"], pair["between_f"]["value"]
    text = precision_markdown(data)
    assert f"within-run a = {1e4 * a:,.0f} %²·s, the sum of the two page sizes' verdict runs' a (" in text, text
    assert f"is in the Method), and between-run floor √f = {100 * math.sqrt(f):.1f}%" in text, text
    assert f"a power of {100 * _power(a, f, 7, 100):.0f}% for a 5% effect" in text, text
    needed = next(n for n in range(2, 10_000) if _power(a, f, n, 100) >= 0.8)
    assert f"would need {needed} rounds × 100 s" in text, text
    shipped = yaml.safe_load((PROFILES_DIR / "course.yaml").read_text())
    planned = 100 * math.sqrt(shipped["planned_within_a"] / 1e4 / 100 + (shipped["planned_floor_pct"] / 100) ** 2)
    assert (("noisier than the design assumed" in text and "no noisier" not in text)
            == (100 * math.sqrt(a / 100 + f) > planned)), text
    # f. what --set changed, and the sweep's duration
    assert record["profile"]["overrides"] == ["over_time_s=0"]
    changed = changed_settings_markdown(data)
    assert f"`over_time_s`: {shipped['over_time_s']} in the profile, 0 used" in changed, changed
    ends = [datetime.datetime.strptime(e["finished"], "%Y-%m-%dT%H:%M:%S%z") for e in record["runs"]]
    took = max(ends) - datetime.datetime.strptime(record["created"], "%Y-%m-%dT%H:%M:%S%z")
    assert f"The sweep took {int(took.total_seconds()) // 60} min {int(took.total_seconds()) % 60} s" in changed
    # g. the server each run recorded
    servers = {s["server"] for s in summaries.values()}
    hosts = {e["host"] for e in record["runs"]}
    assert len(servers) == 1 and len(hosts) == 1
    rows = dict(versions(data).itertuples(index=False))
    server = servers.pop()
    assert rows[f"Server, {len(record['runs'])} runs on {hosts.pop()}"] == server
    assert system_setup(data).set_index("Type").loc["Server", "This machine"] == server  # Table 1 too
