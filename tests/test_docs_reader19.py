"""What a fresh reader of the docs and the shipped `course` report found unsaid or unclear, each
answer's figure recomputed here from its source: the shipped sweep's records
(tests/fixtures/captured/course-2026-11-29-shipped and the other captured bundles), the code that
prints the report's words (pagelab.report, pagelab.evidence), the profiles and git itself. Each
test was seen failing once with the docs' figure changed."""

from __future__ import annotations

import json
import math
import re
import shlex
import shutil
import subprocess
import tarfile

from tests.conftest import REPO_ROOT
from tests.test_measured_figures import COURSE, README, RUNBOOK, SHIPPED, SLURM, find, plain

LAB_REPORT = "tests/fixtures/sources/week4-lab-report.txt"


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True)


def _citing() -> str:
    text = plain(README)
    return text[text.index("## Citing"):text.index("## Architecture")]


def test_the_citing_example_sends_the_reader_to_their_own_title_page():
    """The example's commits are one rendering's: the reader copies theirs from the title page rows
    title_rows prints, the example's sweep commit is the shipped sweep's own (sweep.json) and its
    report commit is the one the text says rendered it, a commit made on top of the sweep's."""
    from pagelab.bundle import SweepRecord
    from pagelab.sweep.report_step import title_rows

    citing = _citing()
    rows = dict(title_rows(SweepRecord.load(SHIPPED), rendering=("c" * 40, False)))
    assert {"pagelab (sweep)", "pagelab (report)"} <= set(rows), rows
    assert ("**Copy the commits from your own report's title page**, its rows \"pagelab (sweep)\" and "
            "\"pagelab (report)\" (or its one \"pagelab\" row)") in citing
    rendered_at = find(citing, r"in one rendering of it, made at commit ([0-9a-f]{7}) \(the commits quoted are that "
                               r"rendering's", "README.md (Citing)").group(1)
    sweep_sha, report_sha = find(citing, r"pagelab \(sweep\) 0\.1\.0\+g[0-9a-f]{7}, commit ([0-9a-f]{40}); (?:> )?pagelab "
                                         r"\(report\) 0\.1\.0\+g[0-9a-f]{7}, commit ([0-9a-f]{40})", "README.md").groups()
    assert sweep_sha == json.loads((SHIPPED / "sweep.json").read_text())["machine"]["git_sha"]
    assert report_sha.startswith(rendered_at)
    assert _git("merge-base", "--is-ancestor", sweep_sha, report_sha).returncode == 0, (sweep_sha, report_sha)


def test_the_deposit_command_leaves_out_the_lab_reports_text_and_nothing_else(tmp_path):
    """README's `git archive` command, run as written but for the output's path, on this commit: the
    archive holds every file of the commit but the Week 4 lab report's kept text, the file the
    References and data/reference/README.md say has no licence or permission recorded."""
    citing = _citing()
    command = find(citing, r"(git archive --format=tar\.gz -o \S+ HEAD '[^']+')", "README.md (Citing)").group(1)
    words = shlex.split(command)
    assert words[-1] == f":(exclude){LAB_REPORT}", words
    assert f"`{LAB_REPORT}`" in plain(REPO_ROOT / "data" / "reference" / "README.md")
    assert "no licence or permission" in plain(REPO_ROOT / "data" / "reference" / "README.md")

    def archived(arguments: list[str]) -> set[str]:
        output = tmp_path / "out.tar.gz"
        arguments[arguments.index("-o") + 1] = str(output)
        done = subprocess.run(arguments, cwd=REPO_ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        with tarfile.open(output) as archive:
            return {member.name for member in archive.getmembers() if member.isfile()}

    whole = archived([word for word in words[:-1]])
    deposit = archived(list(words))
    assert whole - deposit == {LAB_REPORT}, sorted(whole - deposit)
    assert deposit <= whole and "data/reference/week4_lab_tpmc.csv" in deposit
    # the other places that name the copy send a depositor to the command
    assert "leave the copy out of any public deposit" in plain(REPO_ROOT / "data" / "reference" / "README.md")
    assert "A deposit of the code leaves out the Week 4 lab report's text" in plain(REPO_ROOT / "CITATION.cff")
    assert "a public deposit of pagelab's code leaves the copy out" in plain(README)


def test_every_shipped_run_recorded_no_other_work_and_the_report_counts_the_verdict_runs():
    """Each of the shipped sweep's runs, the over-time ones included, recorded 0.00 cores of other
    work (summary.json's other_work.other_cores, rounded as the report rounds it); the report's
    Method counts the verdict runs only (pagelab.report.machine_load)."""
    from pagelab.report.lab_report import load
    from pagelab.report.machine_load import other_work_sentence

    record = json.loads((SHIPPED / "sweep.json").read_text())
    cores = {entry["name"]: json.loads((SHIPPED / entry["name"] / "summary.json").read_text())["other_work"]["other_cores"]
             for entry in record["runs"]}
    over_time = [name for name in cores if name.endswith("-over-time")]
    verdict = len(cores) - len(over_time)
    assert max(cores.values()) < 0.005, cores
    said = find(plain(README), r"each of its (\d+) runs' own records says 0\.00 cores of other work: the (\d+) verdict "
                               r"runs, which its report's Method and `pagelab stats` count, and the (\w+) 1200 s "
                               r"over-time runs", "README.md").groups()
    assert said == (str(len(cores)), str(verdict), {3: "three"}[len(over_time)]), said
    assert f"over the {verdict} verdict runs that recorded it" in other_work_sentence(load(SHIPPED))


def test_stats_lists_the_looks_only_for_a_sweep_made_with_room_for_more_rounds(tmp_path):
    """`pagelab stats`' text (pagelab.evidence.stats_text) on the shipped sweep, made without
    max_rounds, says nothing of looks; the same runs declared with room for 16 rounds list them."""
    from pagelab.evidence.runs import run_table
    from pagelab.evidence.stats_text import evidence_text

    text = plain(README)
    assert ("`pagelab stats` lists them only for a sweep made with room for more rounds (`max_rounds` above its "
            "`repeats`), from its first look on, and prints nothing of looks for one made without, such as "
            "`course` as shipped") in text
    record = json.loads((SHIPPED / "sweep.json").read_text())
    assert not record["profile"].get("max_rounds")
    printed = evidence_text(run_table(SHIPPED, record))
    assert not re.search(r"\blooks?\b", printed, re.I), [line for line in printed.splitlines() if "ook" in line]
    bundle = tmp_path / "room"
    shutil.copytree(SHIPPED, bundle)
    record["profile"]["max_rounds"] = 16
    assert "Looks: 1 of a sweep made for at most 16 rounds" in evidence_text(run_table(bundle, record))


def test_slurm_mds_older_table_is_labelled_and_is_its_formula_at_the_older_spread():
    """The older table's label gives its spread; every cell is slurm.md's own formula at that spread
    (blocked: t(R-1) s_round / sqrt(R); one run per task: t(2R-2) sqrt(2 (s_run² + s_node²) / R)),
    and its rows are not the rounds the text plans with."""
    from scipy import stats

    text = plain(SLURM)
    s_round, s_run = (float(x) for x in find(text, r"\*\*Older table, at the first sweep's spread \(2026-11-27: s_round "
                                                   r"(\d+\.\d)%, s_run (\d+\.\d)%\); not the spread this page plans "
                                                   r"with:\*\*", SLURM.name).groups())
    rows = re.findall(r"\n\| (\d+) \| ±(\d+\.\d)% \| ±(\d+\.\d)% \| ±(\d+\.\d)% \| ±(\d+\.\d)% \|", SLURM.read_text())
    assert len(rows) == 3, rows
    planned = int(find(text, r"that is \*\*(\d+) verdict rounds of", SLURM.name).group(1))
    for rounds, *cells in rows:
        r = int(rounds)
        unblocked = [stats.t.ppf(0.975, 2 * r - 2) * math.sqrt(2 * (s_run ** 2 + node ** 2) / r) for node in (0, 3, 5)]
        assert cells == [f"{x:.1f}" for x in [stats.t.ppf(0.975, r - 1) * s_round / math.sqrt(r), *unblocked]], rounds
    assert planned not in [int(rounds) for rounds, *_ in rows]
    assert f"its 19 is not the {planned} verdict rounds planned below" in text


def test_the_ramp_ups_bound_is_said_one_way_with_the_filling_ceiling():
    """The cap and the bound while the pool still fills (pagelab.tpcc.schedule.FILLING_CEILING times
    max_rampup_s) in the runbook's Time table for every auto profile, the by-hand lab, course.yaml
    and the README; no `≤ cap` left."""
    import yaml

    from pagelab.tpcc.schedule import FILLING_CEILING

    def profile(name: str) -> dict:
        return yaml.safe_load((REPO_ROOT / "runbooks" / "profiles" / f"{name}.yaml").read_text())

    runbook = RUNBOOK.read_text()
    for name in ("quick", "course", "pool", "full"):
        p = profile(name)
        cap, most = p["max_rampup_s"], round(FILLING_CEILING * p["max_rampup_s"])
        row = find(runbook, rf"\n\| {name} \| [^|]+ \| auto \(at most {most} s while the pool still fills[^;]*; else "
                            rf"capped at {cap} s\)", "runbooks/tpcc-page-size.md (Time)")
        assert row
    course = profile("course")
    cap, most = course["max_rampup_s"], round(FILLING_CEILING * course["max_rampup_s"])
    assert f"capped at {cap} s, or at most {most} s while the pool is still filling at the cap" in plain(RUNBOOK)
    assert (f"at most max_rampup_s ({cap} s), or, where the pool is still filling then, until it stops, at most twice "
            f"that ({most} s)") in plain(COURSE)
    assert f"{cap} s for `course`, or, where the pool is still filling then, when it stops filling, at most twice the " \
           f"cap: {most} s" in plain(README)
    assert "(≤ " not in runbook


def test_the_over_time_blocks_log_ratio_beside_the_rounds_is_the_appendix_tables():
    """README's figures for the primary pair's over-time block against the rounds: from the Appendix's
    table of its blocks (pagelab.report.model_details.block_table) on the shipped sweep."""
    from pagelab.report.lab_report import load
    from pagelab.report.model_details import OVER_TIME_BLOCK, block_table

    table = block_table(load(SHIPPED), "16k", "4k")
    d = table.set_index("Block")["d_b (log points)"]
    over, rounds = d[OVER_TIME_BLOCK], d.drop(OVER_TIME_BLOCK)
    seconds = table.set_index("Block").loc[OVER_TIME_BLOCK, ["16k s", "4k s"]]
    assert (seconds == seconds.iloc[0]).all()

    text = plain(README)
    assert (f"in the shipped sweep {seconds.iloc[0]:.0f} s of each, the last {seconds.iloc[0]:.0f} s of their 1200"
            in text)
    said = find(text, r"in the shipped sweep it is (-?\d+\.\d\d) log points, against the rounds' mean of (-?\d+\.\d\d) "
                      r"\(the (\d+) rounds from (-?\d+\.\d\d) to \+(\d+\.\d\d)\), the largest of the (\w+) blocks in "
                      r"size, and it moves the effect from the rounds' (-?\d+\.\d\d) to the nine blocks' (-?\d+\.\d\d) "
                      r"log points", "README.md (Reading the verdicts)").groups()
    assert said == (f"{over:.2f}", f"{rounds.mean():.2f}", str(len(rounds)), f"{rounds.min():.2f}", f"{rounds.max():.2f}",
                    {9: "nine"}[len(d)], f"{rounds.mean():.2f}", f"{d.mean():.2f}"), said
    assert abs(over) == d.abs().max()
    assert f"{over:.2f} log points against the rounds' mean of {rounds.mean():.2f}" in plain(RUNBOOK)


def test_a_report_without_over_time_runs_draws_the_verdict_runs_as_the_readme_says(tmp_path):
    """The shipped sweep's runs without its over-time runs, as `--set over_time_s=0` leaves them: the
    figures over time draw the verdict runs (their captions' words, pagelab.report.figures.drawn_runs_text),
    and the checkpoint tables have one row per verdict run at its last report interval. The figure
    numbers are the report notebook's order of figures."""
    from pagelab.report.figures import checkpoint_monitors, checkpoint_table, drawn_runs_text
    from pagelab.report.lab_report import load

    bundle = tmp_path / "no-over-time"
    shutil.copytree(SHIPPED, bundle, ignore=shutil.ignore_patterns("*-over-time"))
    record = json.loads((bundle / "sweep.json").read_text())
    record["runs"] = [entry for entry in record["runs"] if not entry["name"].endswith("-over-time")]
    record["profile"].update(over_time_s=0, overrides=["over_time_s=0"])
    (bundle / "sweep.json").write_text(json.dumps(record))
    data = load(bundle)
    assert not data.has_over_time_runs
    runs = len(record["runs"])
    caption = drawn_runs_text(data)
    measured = record["profile"]["measure_s"]
    text = plain(README)
    assert (f"draw the {runs} verdict runs over their {measured} s each in place of the three 1200 s runs, and their "
            f"captions say so (\"{caption}\")") in text, caption
    table = checkpoint_table(data.over_time["tpcc_intervals"])
    monitors = checkpoint_monitors(data.over_time["tpcc_intervals"], data.over_time["iostat"], data.over_time["innodb"])
    for frame in (table, monitors):
        assert len(frame) == runs and set(frame["t_s"]) == {measured}, frame
    assert f"read at its last report interval ({measured} s), the nearest it has to every checkpoint" in text
    # Figures 3, 5 and 6: each figure is shown, then numbered, in the notebook's order
    cells = json.loads((REPO_ROOT / "notebooks" / "tpcc_page_size_report.ipynb").read_text())["cells"]
    source = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    shown = re.findall(r'show\(.*?, "(\w+)"\)\n', source)
    # every numbered figure but the grid's (a sweep with a second factor only) is one of these, in order
    assert len(shown) + 1 == source.count("next(figure)"), shown
    assert source.count("show(figures.effect_across_levels(") == 1
    numbers = {name: shown.index(name) + 1 for name in ("iops", "hit_ratio", "new_order_latency")}
    assert "Its figures over time (Figures {iops}, {hit_ratio} and {new_order_latency} in the".format(**numbers) in text


def test_the_spending_function_is_the_one_sided_one_at_half_alpha_doubled():
    """pagelab.evidence.sequential spends, on both sides together, twice the one-sided Lan-DeMets
    O'Brien-Fleming-type function at alpha/2; at half-way that and the usual two-sided form give the
    README's two figures."""
    from scipy.stats import norm

    from pagelab.evidence.sequential import obrien_fleming_spending

    alpha = 0.05

    def one_sided(t: float, level: float) -> float:
        return 2 - 2 * norm.cdf(norm.ppf(1 - level / 2) / math.sqrt(t))

    for t in (0.25, 0.5, 0.75, 1.0):
        assert math.isclose(obrien_fleming_spending(t, alpha), 2 * one_sided(t, alpha / 2), rel_tol=1e-9), t
    text = plain(README)
    ours, usual = obrien_fleming_spending(0.5, alpha), one_sided(0.5, alpha)
    assert (f"each side spends the one-sided function at α/2 = {100 * alpha / 2:g}%, 2 - 2Φ(z(1 - α/4)/√t)" in text)
    assert f"α(t) = 4 - 4Φ(z(1 - α/4)/√t) (half-way it spends {100 * ours:.2f}%, so {100 * (1 - ours):.2f}%)" in text
    assert f"2 - 2Φ(z(1 - α/2)/√t), which spends {100 * usual:.2f}% half-way" in text


def test_from_a_commit_on_means_a_checkout_whose_history_holds_it():
    """"From commit X on" in README's What you get: every captured bundle has changed_knobs exactly when
    the commit it was made by (sweep.json's machine.git_sha) has X in its history, and the planned_*
    knobs when it has the second commit; the README says so as ancestry, not date."""
    text = plain(README)
    first, planned = find(text, r"in sweeps made by pagelab from commit ([0-9a-f]{7}) on \(a checkout whose history "
                                r"holds that commit: `git merge-base --is-ancestor \1 HEAD` succeeds in it.*? and from "
                                r"([0-9a-f]{7}) on the profile's `planned_\*` knobs", "README.md (What you get)").groups()
    bundles = sorted((REPO_ROOT / "tests" / "fixtures" / "captured").glob("**/sweep.json"))
    seen = set()
    for path in bundles:
        document = json.loads(path.read_text())
        sha = document["machine"]["git_sha"]
        for commit, has in ((first, "changed_knobs" in document),
                            (planned, any(key.startswith("planned_") for key in document["profile"]))):
            holds = _git("merge-base", "--is-ancestor", commit, sha)
            assert holds.returncode in (0, 1), holds.stderr
            assert has == (holds.returncode == 0), (path, commit, sha)
            seen.add(has)
    assert seen == {True, False}, "the captured bundles no longer include one from before the commit"
