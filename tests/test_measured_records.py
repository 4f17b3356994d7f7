"""Figures the docs quote from kept records other than the headline sweep's statistics, recomputed
from the records: the shipped `course` sweep's round times and its over-time runs' growth
(tests/fixtures/captured/course-2026-11-29-shipped), the driver against tpcc-mysql at `course`'s
shape (tests/fixtures/captured/fidelity-2026-11-29), and what the shipped sweep's report says of
its noise. Split from test_measured_figures.py, whose helpers it uses.
"""

from __future__ import annotations

import datetime
import json

from tests.conftest import REPO_ROOT
from tests.test_measured_figures import README, RUNBOOK, SHIPPED, SLURM, find, plain



def test_slurm_md_gives_a_courses_rounds_as_the_shipped_sweep_timed_them():
    """runbooks/slurm.md's arithmetic of a round's minutes (which its time limits and cluster times rest
    on) against the shipped course sweep's own record: each round's runs, start to finish, in sweep.json."""
    record = json.loads((SHIPPED / "sweep.json").read_text())

    def took(entry) -> float:
        start, end = (datetime.datetime.fromisoformat(entry[key]) for key in ("started", "finished"))
        return (end - start).total_seconds()

    rounds: dict[int, float] = {}
    for entry in record["runs"]:
        rounds[entry["round"]] = rounds.get(entry["round"], 0.0) + took(entry)
    over_time = max(rounds)  # the over-time round comes last
    verdict = {number: seconds / 60 for number, seconds in rounds.items() if number not in (1, over_time)}
    text = plain(SLURM)
    match = find(text, r"verdict round is 3 runs of about 2 minutes \((\d+\.\d)–(\d+\.\d) min in the shipped `course` "
                       r"sweep of 2026-11-29, (\d+\.\d) min for its first round, which loaded each page size\), and the "
                       r"over-time round 3 runs of about 21 minutes \((\d+) min, on one node\)", "slurm.md")
    low, high, first, over = (float(value) for value in match.groups())
    assert (low, high) == (round(min(verdict.values()), 1), round(max(verdict.values()), 1)), verdict
    assert first == round(rounds[1] / 60, 1)
    assert over == round(rounds[over_time] / 60)
    assert f"about 21 minutes, {round(rounds[over_time] / 60)} minutes, plus its loads" in text  # the time limit's


def test_the_runbooks_account_of_an_over_time_runs_growth_is_the_shipped_sweeps():
    """tpcc-page-size.md's "Why an over-time run's reads rise": each figure from the shipped course
    sweep's over-time runs (iostat.csv's reads a second and innodb.csv's hit rate at the samples nearest
    100 s and 1,100 s of the measurement, where the report's Table 9 reads them; innodb.csv's pages
    created at the measurement's first and last samples; tpcc_intervals.csv's New-Orders; summary.json's
    loaded bytes)."""
    import csv

    def nearest(rows: list[dict], seconds: float) -> dict:
        return min(rows, key=lambda row: abs(float(row["t_s"]) - seconds))

    reads, hits, created, loaded, orders = ([] for _ in range(5))
    for size, page in (("4k", 4096), ("8k", 8192), ("16k", 16384)):
        run = SHIPPED / f"{size}-over-time"
        samples = [row for row in csv.DictReader(open(run / "innodb.csv")) if float(row["t_s"]) >= 0]
        disk = [row for row in csv.DictReader(open(run / "iostat.csv")) if float(row["t_s"]) >= 0]
        first, last = samples[0], samples[-1]
        reads.append((float(nearest(disk, 100)["r_s"]), float(nearest(disk, 1100)["r_s"])))
        hits.append((int(nearest(samples, 100)["hit_rate"]), int(nearest(samples, 1100)["hit_rate"])))
        created.append((int(last["pages_created"]) - int(first["pages_created"])) * page / 2 ** 20)
        loaded.append(json.loads((run / "summary.json").read_text())["db_bytes"] / 2 ** 20)
        orders.append(sum(float(row["new_order"]) for row in csv.DictReader(open(run / "tpcc_intervals.csv"))))
    text = plain(RUNBOOK)
    part = text[text.index("#### Why an over-time run's reads rise"):text.index("## What to expect")]

    def whole(value: float) -> str:
        return f"{round(value):,}"

    # as Table 9 prints them: 3,063-3,715 to 5,087-5,618, 983-988 to 971-978
    assert (f"read IOPS rose from {whole(min(r[0] for r in reads))}-{whole(max(r[0] for r in reads))} to "
            f"{whole(min(r[1] for r in reads))}-{whole(max(r[1] for r in reads))} a second") in part, part
    assert "from 3,063-3,715 to 5,087-5,618 a second" in part and "from 983-988 to 971-978 per 1000" in part
    assert (f"the hit ratio fell from {min(h[0] for h in hits)}-{max(h[0] for h in hits)} to "
            f"{min(h[1] for h in hits)}-{max(h[1] for h in hits)} per 1000") in part, part
    assert f"completed {round(min(orders), -3):,.0f}-{round(max(orders), -3):,.0f} New-Orders each" in part, part
    assert min(orders) > 2 * 7 * 10 * 3000  # "more than twice the 210,000 orders 7 warehouses load"
    assert f"InnoDB counted {round(min(created), -1):,.0f}-{round(max(created), -1):,.0f} MiB of pages created" in part, part
    assert f"beside the {round(min(loaded), -1):,.0f}-{round(max(loaded)):,.0f} MiB each page size loaded" in part, part


FIDELITY = REPO_ROOT / "tests" / "fixtures" / "captured" / "fidelity-2026-11-29"


def test_the_drivers_first_look_at_courses_shape_is_its_bundles():
    """The runbook's tables and the README's sentence on statements against tpcc-mysql at 7 warehouses:
    every figure recomputed from the two bundles' runs (tests/fixtures/captured/fidelity-2026-11-29, the
    files `pagelab compare` reads), as `pagelab compare STMT MYSQL` gives them."""
    from pagelab.bundle import read_runs
    from pagelab.evidence.numbers import signed_text
    from pagelab.evidence.runs import equivalence_of
    from pagelab.evidence.two_sweeps import compare_bundles, effect_table

    stmt, mysql = read_runs(FIDELITY / "stmt"), read_runs(FIDELITY / "mysql")
    assert stmt.profile["driver_mode"] == "statements" and mysql.profile["driver_mode"] == "tpcc-mysql"
    assert stmt.profile["warehouses"] == mysql.profile["warehouses"] == 7
    delta = equivalence_of(stmt)
    effects = effect_table(stmt, mysql, delta)
    effects = effects[effects["metric"] == "tpmc"].set_index(["a", "b"])
    levels = compare_bundles(stmt, mysql, "stmt", "mysql", 5.0, delta)
    levels = levels[levels["metric"] == "tpmc"]
    runbook, readme = plain(RUNBOOK), plain(README)  # plain(): no table bars, "-" for the minus sign
    part = runbook[runbook.index("**At `course`'s shape, a first look"):runbook.index("The earlier default")]

    def ratio(pct: float) -> str:
        return f"{1 + pct / 100:.3f}"

    def signed(value: float) -> str:
        return signed_text(value, 1).replace("−", "-")

    cells = " ".join(f"{ratio(row['change_pct'])} [{ratio(row['low_pct'])}, {ratio(row['high_pct'])}]"
                     for row in levels.to_dict("records"))
    assert f"`statements` / `tpcc-mysql` (98.33%, 3 + 3 runs) {cells}" in part, (cells, part)
    assert max(abs(row["change_pct"]) for row in levels.to_dict("records")) < 4  # "within 4%"
    for (a, b), row in effects.iterrows():
        said = (f"{a} vs {b} {signed(row['effect_a_pct'])}%")
        assert said in part, (said, part)
        difference = f"{signed(row['difference_pts'])} [{signed(row['low_pts'])}, {signed(row['high_pts'])}]"
        assert difference in part, (difference, part)
    primary = effects.loc[("16k", "4k")]
    assert (f"16k vs 4k: {signed(primary['effect_a_pct'])}% under `statements`, {signed(primary['effect_b_pct'])}% "
            f"under `tpcc-mysql`, {signed(primary['difference_pts'])} points [{signed(primary['low_pts'])}, "
            f"{signed(primary['high_pts'])}]") in readme, readme


def test_the_reports_method_says_what_is_known_of_the_driver_at_the_sweeps_shape():
    """The Method's driver sentence (pagelab.report.method.driver_text): at 1 warehouse the agreement
    measured there; at course's 7 the first look's words, as the runbook gives them; elsewhere, not checked."""
    from pagelab.report.method import driver_text

    one, seven, other = (driver_text({"driver_mode": "statements", "warehouses": n}) for n in (1, 7, 20))
    assert "measured at 1 warehouse" in one and "first look" not in one and "not at this sweep's" not in one, one
    assert "at 7 warehouses a first look of 3 rounds a mode found the level within 4%" in seven, seven
    assert "about ±20 points" in seven and "about ±20 points" in plain(RUNBOOK).replace("+-", "±")
    assert "not at this sweep's 20 warehouses" in other, other


def test_the_readme_quotes_what_the_shipped_sweeps_report_says_of_its_noise():
    """The README says the shipped sweep's report "cannot say the machine was noisier than the design
    assumed" (its floor's interval holds the plan's): that is what the report says of that bundle."""
    from pagelab.report.lab_report import load
    from pagelab.report.precision import precision_markdown

    text = " ".join(precision_markdown(load(SHIPPED)).split())
    assert "cannot say the machine was noisier than the design assumed" in text, text
    assert "its floor's interval [4.3%, 16.4%] holds the planned 5.6%" in text, text
    assert 'its report "cannot say the machine was noisier than the design assumed"' in " ".join(README.read_text().split())


def test_the_labs_runs_grew_their_data_far_less_as_the_runbook_says():
    """"at its TpmC, a sixth to a seventh of this sweep's, a 1200 s run adds roughly 70,000 orders, a
    third of what 7 warehouses load": from the lab's own interval lines (data/reference) against the
    shipped sweep's over-time runs."""
    import csv

    lab = list(csv.DictReader(open(REPO_ROOT / "data" / "reference" / "week4_lab_intervals.csv")))
    lab_tpmc = 6 * sum(float(row["new_order"]) for row in lab) / len(lab)  # New-Orders in 10 s, a minute's
    ours = []
    for size in ("4k", "8k", "16k"):
        rows = list(csv.DictReader(open(SHIPPED / f"{size}-over-time" / "tpcc_intervals.csv")))
        ours.append(6 * sum(float(row["new_order"]) for row in rows) / len(rows))
    assert 6 <= min(ours) / lab_tpmc and max(ours) / lab_tpmc <= 7.5, (lab_tpmc, ours)
    orders = 20 * lab_tpmc
    assert 65_000 <= orders <= 80_000 and 0.3 <= orders / 210_000 <= 0.38, orders
    assert "a sixth to a seventh of this sweep's, a 1200 s run adds roughly 70,000 orders, a third of what 7 " \
           "warehouses load" in plain(RUNBOOK)


def test_slurm_mds_formula_and_the_planner_are_said_to_differ_by_a_round_as_they_do():
    """slurm.md: "at the shipped `course` sweep's own 8.2% the formula gives 23 verdict rounds, as the
    planner does without that block, and its report's planner 22": the formula (t(0.975, R-1) + t(0.8, R-1)) s / √R <= log(1/0.95) on the shipped
    sweep's round spread, and the precision part's own rounds."""
    import math
    import re

    import scipy.stats

    from pagelab.evidence.runs import components_of
    from pagelab.report.lab_report import load
    from pagelab.report.precision import precision_markdown

    data = load(SHIPPED)
    pair = components_of(data.evidence).pair("16k", "4k")
    spread = math.sqrt(pair.within_a.value / 90 + pair.between_f.value)
    formula = next(r for r in range(3, 200) if (scipy.stats.t.ppf(0.975, r - 1) + scipy.stats.t.ppf(0.8, r - 1))
                   * spread / math.sqrt(r) <= math.log(1 / 0.95))
    planner = int(re.search(r"would need (\d+) rounds × 90 s", precision_markdown(data)).group(1))
    from pagelab.evidence import planner as design

    def power(rounds: int) -> float:  # the planner's, the verdict rounds alone
        se = math.sqrt(design.variance_of_mean(pair.within_a.value, pair.between_f.value, rounds, 90))
        return design.power(math.log(1 / 0.95), se, rounds - 1, 0.05)

    alone = next(r for r in range(3, 200) if power(r) >= 0.8)
    assert alone == formula, (alone, formula)  # "as the planner does without that block"
    assert (f"at the shipped `course` sweep's own {100 * spread:.1f}% the formula gives {formula} verdict rounds, as "
            f"the planner does without that block, and its report's planner {planner}") in plain(SLURM)


def test_stats_prints_the_rounds_a_pilot_plans_a_cluster_by(capsys):
    """A cluster pilot's bundle is refused by `pagelab plan` (its runs are on several hosts), so slurm.md
    sends the reader to `pagelab stats`: the primary pair's line gives the verdict rounds 80% power for a
    5% effect needs at its spread. On the shipped sweep that is slurm.md's formula figure (23 at 8.2%),
    recomputed here with scipy's t quantiles, not by the planner."""
    import math
    import re

    import scipy.stats

    from pagelab.cli import main

    assert main(["stats", str(SHIPPED)]) == 0
    output = capsys.readouterr().out
    line = next(text for text in output.splitlines() if text.strip().startswith("16k vs 4k: within"))
    spread = float(find(line, r"a round's log-ratio spreads (\d+\.\d)%", "stats' 16k vs 4k line").group(1)) / 100
    formula = next(r for r in range(3, 200) if (scipy.stats.t.ppf(0.975, r - 1) + scipy.stats.t.ppf(0.8, r - 1))
                   * spread / math.sqrt(r) <= math.log(1 / 0.95))
    assert f"a 5% effect at 80% power and the 5% level needs {formula} verdict rounds of 90 s" in line, line
    said = re.search(r"the formula gives (\d+) verdict rounds", plain(SLURM))
    assert said and int(said.group(1)) == formula, "slurm.md's figure is the one stats prints"
    assert ("a 5% effect at 80% power and the 5% level needs R verdict rounds of T s" in plain(SLURM)), \
        "slurm.md tells a pilot's reader where stats prints the rounds"
    # the pairs after the primary, tested at Bonferroni's 2.5% (their lines' 97.5%), at that level
    # worked here with scipy's noncentral t (the two-sided t-test's power), from the bundle's components
    from pagelab.evidence.runs import components_of
    from pagelab.report.lab_report import load

    later = next(text for text in output.splitlines() if text.strip().startswith("8k vs 4k: within"))
    pair = components_of(load(SHIPPED).evidence).pair("8k", "4k")
    spread = math.sqrt(pair.within_a.value / 90 + max(pair.between_f.value, 0.0))

    def power(r: int, alpha: float = 0.025) -> float:
        critical, shift = scipy.stats.t.isf(alpha / 2, r - 1), math.log(1 / 0.95) / (spread / math.sqrt(r))
        return scipy.stats.nct.sf(critical, r - 1, shift) + scipy.stats.nct.cdf(-critical, r - 1, shift)

    rounds = next(r for r in range(3, 200) if power(r) >= 0.8)
    assert f"a 5% effect at 80% power and the 2.5% level needs {rounds} verdict rounds of 90 s" in later, later


def test_the_runbook_sends_a_reader_on_another_machine_to_stats_for_the_kept_fixtures(capsys):
    """tpcc-page-size.md's "What the kept ones hold": `plan --from` takes the kept course fixtures only
    on the machine that made them, and elsewhere `pagelab stats` prints, on each pair's line, the phrase
    the runbook quotes (with N and T filled in)."""
    import re

    from pagelab.cli import main

    part = plain(RUNBOOK)
    part = part[part.index("What the kept ones hold"):part.index("`course-2026-11-29-shipped` (course-8x90)")]
    assert "`pagelab plan --from` plans from either only on the machine that made them" in part
    assert "unless given `--as-made`, which plans for the machine they were made on" in part
    quoted = find(part, r'"(a 5% effect at 80% power and the N% level needs R verdict rounds of T s)"', "the runbook")
    pattern = (re.escape(quoted.group(1)).replace("N%", r"[\d.]+%").replace(re.escape("R verdict"), r"\d+ verdict")
               .replace(re.escape("of T s"), r"of \d+ s"))
    assert main(["stats", str(REPO_ROOT / "tests" / "fixtures" / "captured" / "course-2026-11-28")]) == 0
    lines = [text for text in capsys.readouterr().out.splitlines() if " vs " in text and "within a =" in text]
    assert len(lines) == 3 and all(re.search(pattern, text) for text in lines), lines


def _sweeps_table() -> list[list[str]]:
    """The rows of the TPC-C runbook's table of the sweeps it names (name, what, date and commit, where)."""
    text = RUNBOOK.read_text()
    start = text.index("| name here | what it was | date, commit | where |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_runbooks_table_of_sweeps_is_the_kept_records():
    """Every sweep in the runbook's table that is kept in the repository is named, dated and committed
    as its own sweep.json records it (sweep_id, created, machine.git_sha), and its `--set`s are the
    ones it was given (profile.overrides); the shipped design's sweep and the 15x40 one are listed."""
    import re

    rows = _sweeps_table()
    names = [row[0] for row in rows]
    assert {"course-8x90", "course-15x40", "course-12", "course-bundle", "course-full", "`c7`"} <= set(names), names
    checked = 0
    for name, what, when, where in rows:
        fixture = re.search(r"`tests/fixtures/captured/([\w-]+)`", where)
        if not fixture:
            assert "not kept" in where or "record below" in where, (name, where)
            continue
        folder = REPO_ROOT / "tests" / "fixtures" / "captured" / fixture.group(1)
        records = ([folder / "sweep.json"] if (folder / "sweep.json").exists()
                   else sorted(folder.glob("*/sweep.json")))
        assert records, folder
        for path in records:
            record = json.loads(path.read_text())
            assert record["sweep_id"] in name, (name, record["sweep_id"])
            date, commit = (part.strip() for part in when.split(","))
            assert (record["created"][:10], record["machine"]["git_sha"][:7]) == (date, commit), (name, when)
            for knob in re.findall(r"--set (\w+=\w+)", what):
                assert knob in record["profile"]["overrides"], (name, knob, record["profile"]["overrides"])
            checked += 1
    assert checked >= 5, checked


def test_what_each_kept_sweep_holds_is_what_the_runbook_says():
    """The runbook says per fixture what it keeps: the TpmC inputs and no iostat or InnoDB samples in
    the two sweeps before the shipped one, and the write-size fixture's iostat and global status
    samples (the shipped sweep's files: tests/test_shipped_bundle.py)."""
    text = plain(RUNBOOK)
    assert "`course-2026-11-28` and `course-2026-11-29` hold what the TpmC analysis reads of each run" in text
    assert "no iostat or InnoDB samples, to keep them small" in text
    captured = REPO_ROOT / "tests" / "fixtures" / "captured"
    tpmc_inputs = {"summary.json", "tpcc_intervals.csv", "host.json", "phases.csv"}
    for name in ("course-2026-11-28", "course-2026-11-29"):
        assert f"`{name}`" in text, name
        runs = [run for run in (captured / name).iterdir() if run.is_dir()]
        assert runs, name
        for run in runs:
            files = {path.name for path in run.iterdir()}
            assert tpmc_inputs <= files, (run, files)
            assert not files & {"iostat.csv", "global_status.csv", "innodb.csv", "hit_ratio.csv"}, (run, files)
    assert "`course-2026-11-29-writes` keeps round 5 of course-12 with its iostat and global status samples" in text
    for run in (captured / "course-2026-11-29-writes").iterdir():
        assert run.name.endswith("-r5") and {"iostat.csv", "global_status.csv"} <= {p.name for p in run.iterdir()}, run
    writes = json.loads((captured / "course-2026-11-29" / "sweep.json").read_text())
    assert writes["sweep_id"] == "course-12"


def test_the_shipped_sweeps_own_commit_judges_its_tpmc_pairs_as_the_readme_says(tmp_path):
    """README: the shipped sweep's TpmC lines are what `pagelab stats` gives at this commit; "the sweep's
    own commit, 66f0a95, gave the same verdicts, and the same primary line but for its low end", and
    the 8k pairs' older figures, which set 8k's first 90 s against the other runs' later seconds. That
    commit's library (from this repository's history, `git archive`) runs `pagelab stats` on the kept
    bundle: its verdict words are this checkout's, its primary line's figures this checkout's but the
    low end, and its 8k pairs' effects and intervals those the README quotes."""
    import io
    import re
    import subprocess
    import sys
    import tarfile
    from contextlib import redirect_stdout

    from pagelab.cli import main

    commit = json.loads((SHIPPED / "sweep.json").read_text())["machine"]["git_sha"]
    assert commit.startswith("66f0a95")
    text = plain(README)
    assert f"The sweep's own commit, {commit[:7]}, gave the same verdicts, and the same primary line but for its low end" in text
    archive = subprocess.run(["git", "-C", str(REPO_ROOT), "archive", commit, "lib"], capture_output=True)
    assert archive.returncode == 0, f"this clone lacks commit {commit} (a shallow clone?): {archive.stderr!r}"
    tarfile.open(fileobj=io.BytesIO(archive.stdout)).extractall(tmp_path)
    code = "import sys; from pagelab.cli import main; sys.exit(main(['stats', sys.argv[1]]))"
    then = subprocess.run([sys.executable, "-c", code, str(SHIPPED)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(tmp_path / "lib"), "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert then.returncode == 0, then.stderr[-2000:]
    now = io.StringIO()
    with redirect_stdout(now):
        assert main(["stats", str(SHIPPED)]) == 0

    def pair_lines(output: str) -> list[str]:
        return [line.strip() for line in output.splitlines() if line.strip().startswith(("8k vs 4k: TpmC",
                                                                                          "16k vs 4k: TpmC",
                                                                                          "16k vs 8k: TpmC"))]

    def numbers(line: str) -> tuple:
        """The line's figures: effect, interval, level, p (the primary's), the effect its blocks
        resolve and the rounds equivalence would need; the words around them may change."""
        interval = re.search(r"TpmC ([−+]?[\d.]+)% \[([−+]?[\d.]+)%, ([−+]?[\d.]+)%\] \(([\d.]+)% CI\)", line).groups()
        p = re.search(r"\(p ([\d.]+);", line)
        resolve = re.search(r"resolve effects of about ±([\d.]+)%", line).group(1)
        equivalence = re.search(r"(about|more than) (\d+) rounds would show equivalence", line).groups()
        return interval, p and p.group(1), resolve, equivalence

    def verdict(line: str) -> str:
        return "not tested" if "not tested" in line else re.search(r"\), (\w+(?: \w+)?) \(", line).group(1)

    # matched by pair: this checkout lists the primary comparison first, 66f0a95 in the table's order
    current = {line.split(":")[0]: line for line in pair_lines(now.getvalue())}
    older = {line.split(":")[0]: line for line in pair_lines(then.stdout)}
    assert len(current) == 3 and current.keys() == older.keys(), (now.getvalue(), then.stdout)
    for pair, new_line in current.items():
        assert verdict(new_line) == verdict(older[pair]), (new_line, older[pair])
    (effect, low, high, level), p, resolve, _ = numbers(current["16k vs 4k"])
    (effect_then, low_then, high_then, level_then), p_then, resolve_then, _ = numbers(older["16k vs 4k"])
    assert (effect, high, level, p, resolve) == (effect_then, high_then, level_then, p_then, resolve_then)
    assert low != low_then and f"but for its low end ({low_then.replace('-', '−')}%)" in text.replace("-", "−"), (low, low_then)
    quoted = re.search(r"its 8k pairs read ([−+\d.%\[\], ]+) and ([−+\d.%\[\], ]+), as 8k's", text.replace("-", "−"))
    then_8k = [f"{numbers(older[pair])[0][0]}% [{numbers(older[pair])[0][1]}%, {numbers(older[pair])[0][2]}%]"
               for pair in ("8k vs 4k", "16k vs 8k")]
    assert quoted and [part.strip() for part in quoted.groups()] == [t.replace("-", "−") for t in then_8k], (quoted, then_8k)
    assert list(current) == ["16k vs 4k", "8k vs 4k", "16k vs 8k"], list(current)
    assert [verdict(line) for line in current.values()] == ["not resolved", "not tested", "not tested"], current


def test_the_looks_at_the_headline_pair_are_counted_from_the_runbooks_table(capsys):
    """README's headline finding counts the sweeps that looked at 16k vs 4k at course's configuration
    as the TPC-C runbook's table lists them (in the order they ran; a row of two bundles counts two):
    how many came before the finding, and all of them; and its Bonferroni products are the
    finding's own p (`pagelab stats --format csv`, p_value) times those counts."""
    import csv
    import io
    import re

    from pagelab.cli import main
    from tests.test_measured_figures import FINDING

    rows = _sweeps_table()
    dates = [row[2].split(",")[0] for row in rows]
    assert dates == sorted(dates), dates  # the table is in the order the sweeps ran
    sizes = [len(row[0].split(", ")) for row in rows]
    finding = next(i for i, row in enumerate(rows) if row[0] == "course-12")
    up_to, every = sum(sizes[:finding + 1]), sum(sizes)
    words = {5: "fifth", 9: "nine"}
    capsys.readouterr()
    assert main(["stats", str(FINDING), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    pairs = out[out.index("# page sizes compared"):].splitlines()[1:]
    row = next(r for r in csv.DictReader(io.StringIO("\n".join(pairs))) if (r["metric"], r["a"], r["b"]) == ("tpmc", "16k", "4k"))
    p = float(row["p_value"])
    text = plain(README)
    assert f"it is the {words[up_to]} sweep at this configuration on this machine to look at 16k vs 4k, after " \
           f"{['', 'one', 'two', 'three', 'four'][up_to - 1]} that left the pair not resolved" in text, (up_to, every)
    assert f"lists all {words[every]}" in text, every
    assert f"{['None', 'One', 'Two', 'Three', 'Four', 'Five'][every - up_to]} more looked at the pair after it" in text
    match = re.search(r"counts the (\w+) up to this one as looks at one question can multiply its p by (\d+) "
                      r"\(Bonferroni\), ([\d.]+); one who counts all (\w+), by (\d+), ([\d.]+)", text)
    assert match, "README.md no longer gives the Bonferroni products of the headline's p"
    assert (int(match.group(2)), int(match.group(5))) == (up_to, every), match.group(0)
    assert (float(match.group(3)), float(match.group(6))) == (round(up_to * p, 3), round(every * p, 3)), (p, match.group(0))
    assert every * p < 0.05


def test_the_floor_the_two_hour_goal_needs_is_the_planners(monkeypatch, capsys):
    """The runbook's "What floor the 2-hour goal needs": the largest floor √f at which the planner's best
    2-hour design gives 16k vs 4k 80% power for a 5% effect, at this machine's cost a run (runs of any
    length, and of 90 s or more), and at the least cost an auto ramp-up allows; the most a run may cost
    at the measured floor. Each found here by bisection on pagelab.evidence.planner.best_design, from
    the components and costs `pagelab plan` reads from the three quiet sweeps pooled."""
    import math
    import re

    from pagelab.evidence import planner
    from pagelab.evidence.steady import MIN_MSER_BATCHES, MSER_BATCH
    from pagelab.tpcc.schedule import WARMUP_SAMPLE_S
    from tests.test_measured_figures import FINDING, SWEEP, _plan

    output = _plan(SHIPPED, monkeypatch, capsys, FINDING, SWEEP)
    a, f, root_f, low, high = (float(x) for x in find(
        output, r"within-run a = ([\d.]+) .*? floor f = ([\d.]+) \(√f = ([\d.]+)%, 95% interval ([\d.]+)% to ([\d.]+)%\)",
        "plan's pooled components").groups())
    a_ot = float(find(output, r"over-time runs' a = ([\d.]+)", "plan's over-time a").group(1))
    per_run, load, report = (float(x) for x in find(
        output, r"([\d.]+) s a run beyond what it measures .*?; (\d+) s of init and load .*?; report (\d+) s", "plan's costs").groups())
    over_time_runs, over_time_s = (int(x) for x in find(output, r"over-time runs (\d+) × \((\d+) \+", "plan's over-time runs").groups())
    fixed = load + report + over_time_runs * (over_time_s + per_run)
    assert f"fixed {fixed:.0f} s" in output, output  # the planner's own fixed part
    counted = float(find(output, r"as precise as one block of (\d+) s", "plan's over-time block").group(1))
    effect = -math.log(0.95)

    def powerful(root: float, cost: float, shortest: float = 0.0) -> bool:
        best = planner.best_design(a, (root / 100) ** 2, planner.Costs(cost, fixed, 3), 7200, 0.05, 10, effect,
                                   extra_blocks=1, over_time_s=counted, over_time_a=a_ot, shortest_s=shortest)
        return best is not None and best.power >= 0.8

    def largest(works, high_end: float) -> float:
        low_end = 0.0
        for _ in range(50):
            middle = (low_end + high_end) / 2
            low_end, high_end = (middle, high_end) if works(middle) else (low_end, middle)
        return low_end

    least_ramp_up = MSER_BATCH * MIN_MSER_BATCHES * WARMUP_SAMPLE_S  # an auto ramp-up's shortest
    warm_cost = least_ramp_up + 3  # restore, flush, start and record: 2-3 s (the runbook)
    figures = {
        "now_any": largest(lambda r: powerful(r, per_run), 20), "now_90": largest(lambda r: powerful(r, per_run, 90), 20),
        "warm_any": largest(lambda r: powerful(r, warm_cost), 20), "warm_90": largest(lambda r: powerful(r, warm_cost, 90), 20),
        "cost_any": largest(lambda c: powerful(root_f, c), per_run)}
    assert not powerful(root_f, 0.0, 90)  # at the measured floor no cost is low enough with runs of 90 s or more
    text = plain(RUNBOOK)
    part = find(text, r"#### What floor the 2-hour goal needs (.*?)####", RUNBOOK.name).group(1)
    stated = find(part, r"at the (\d+) s a run costs beyond its measurement today, a floor √f of at most (\d\.\d\d)% \(runs of "
                        r"any length; (\d\.\d\d)% with runs of 90 s or more", RUNBOOK.name).groups()
    assert stated == (f"{per_run:.0f}", f"{figures['now_any']:.2f}", f"{figures['now_90']:.2f}"), (stated, figures)
    assert f"√f {root_f:.2f}%, 95% interval {low:.2f}-{high:.2f}%" in part, part
    assert low > figures["now_any"] > figures["now_90"]  # "the whole interval lies above both"
    assert f"a run may cost at most {figures['cost_any']:.1f} s beyond its measurement" in part, part
    assert f"at least {least_ramp_up:.0f} s ({MIN_MSER_BATCHES} batches of {MSER_BATCH} one-second samples before MSER-5" in part, part
    assert (f"at {warm_cost:.0f} s a run, 80% needs √f of at most {figures['warm_any']:.2f}% "
            f"({figures['warm_90']:.2f}% with runs of 90 s or more)") in part, part
    assert figures["warm_90"] < low < figures["warm_any"]  # "all but the bottom of the interval"
