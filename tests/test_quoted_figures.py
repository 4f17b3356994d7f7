"""Figures the README and the runbooks quote from each other or from code other than the analysis
of a bundle: the driver modes' level and effect (the TPC-C runbook's in-sweep measurement), the
loaded machine's load averages (the runbook's noise bench), the commits named as the first to
record the knobs (their own source, read with git), and the levels printed under repeated looks
(the group-sequential plan, pagelab.evidence.sequential). Each is checked against its source, so a
figure that disagrees fails, naming the file."""

from __future__ import annotations

from tests.conftest import REPO_ROOT
from tests.test_measured_figures import README, RUNBOOK, TROUBLESHOOTING, find, plain


def test_the_driver_modes_level_and_effect_are_the_runbooks():
    """README's Driver modes quotes the runbook's in-sweep measurement of `statements` against
    `tpcc-mysql`: the level (the paired ratio per page size) and the effect (16k/4k under each,
    and how many points apart)."""
    runbook, readme = plain(RUNBOOK), plain(README)
    level = find(runbook, r"`statements` / `tpcc-mysql`, paired, 95% (\d\.\d+) \[[^]]+\] (\d\.\d+) \[[^]]+\] "
                          r"(\d\.\d+) \[", RUNBOOK.name).groups()
    effect_16 = find(runbook, r"16k/4k (\d\.\d+) \[[^]]+\] under `statements` and (\d\.\d+) \[[^]]+\] under "
                              r"`tpcc-mysql` \((\d\.\d) points apart\)", RUNBOOK.name).groups()
    assert f"{100 * abs(float(effect_16[0]) - float(effect_16[1])):.1f}" == effect_16[2], effect_16
    stated = find(readme, r"at (\d\.\d+), (\d\.\d+) and (\d\.\d+) of it at 4k, 8k and 16k inside one sweep over one "
                          r"transport", README.name).groups()
    assert stated == level, f"README.md: statements at {stated} of tpcc-mysql; the runbook's table {level}"
    stated = find(readme, r"16k/4k (\d\.\d+) under `statements` and (\d\.\d+) under `tpcc-mysql` \((\d\.\d) points "
                          r"apart\)", README.name).groups()
    assert stated == effect_16, f"README.md: {stated}; the runbook {effect_16}"
    assert "~10% below tpcc_start)" not in readme, "the level and the effect are one account now"


def test_the_loaded_machines_figures_are_the_runbooks():
    """Troubleshooting's load averages, quiet and shared, are the noise bench's (the TPC-C runbook)."""
    runbook = find(plain(RUNBOOK), r"1-minute load at (\d+\.\d)-(\d+\.\d) .*? against about (\d+) when quiet",
                   RUNBOOK.name).groups()
    stated = find(plain(TROUBLESHOOTING), r"load average \(about (\d+) on the quiet 2-core VM these docs measured, "
                                          r"(\d+\.\d)-(\d+\.\d) when other sessions shared it", TROUBLESHOOTING.name).groups()
    assert (stated[1], stated[2], stated[0]) == runbook, (stated, runbook)


def test_the_commits_that_began_recording_the_knobs_are_the_ones_named():
    """README names the first commits whose sweeps record `changed_knobs` and the planned_* knobs;
    each holds what it is named for, and its parents do not."""
    import subprocess

    def source(commit: str, path: str) -> str:
        done = subprocess.run(["git", "-C", str(REPO_ROOT), "show", f"{commit}:{path}"], capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else ""

    def parents(commit: str) -> list[str]:
        return subprocess.run(["git", "-C", str(REPO_ROOT), "rev-list", "--parents", "-n", "1", commit],
                              capture_output=True, text=True, check=True).stdout.split()[1:]

    first, planned = find(plain(README), r"in sweeps made by pagelab from commit ([0-9a-f]{7}) on .*? and from "
                                         r"([0-9a-f]{7}) on the profile's `planned_\*` knobs", README.name).groups()
    for commit, path, key in ((first, "lib/pagelab/sweep/orchestrator.py", '"changed_knobs"'),
                              (planned, "lib/pagelab/sweep/knobs.py", "planned_within_a")):
        assert key in source(commit, path), f"README.md names {commit} as the first with {key}; it has none"
        for parent in parents(commit):
            assert key not in source(parent, path), f"README.md names {commit}, but its parent {parent} has {key}"


def test_the_levels_the_readme_gives_for_repeated_looks_are_the_boundaries():
    """The README's example of the levels printed under repeated looks, from the group-sequential
    plan the analysis uses (pagelab.evidence.sequential, whose boundaries tests/test_sequential.py
    checks against published ones)."""
    from pagelab.evidence.sequential import Look, SequentialPlan

    text = plain(README)
    match = find(text, r"a sweep made for up to (\d+) rounds prints its primary at ([\d.]+)% when looked at after "
                       r"(\d+) rounds, and at ([\d.]+)% after all \d+ \(looked at after (\d+), (\d+) and (\d+): "
                       r"([\d.]+)%, ([\d.]+)%, ([\d.]+)%\)", "README.md (Reading the verdicts)")
    most, first_level, first, last_level, *three = match.groups()

    def levels(rounds: list[int]) -> list[str]:
        plan = SequentialPlan(tuple(Look(i + 1, n) for i, n in enumerate(rounds)), int(most), 0.05)
        return [f"{100 * (1 - alpha):.4g}" for alpha in plan.nominal_alphas()]

    assert [first_level, last_level] == levels([int(first), int(most)]), match.group(0)
    assert three[3:] == levels([int(n) for n in three[:3]]), match.group(0)
    # the spending function the README names, at half the rounds, is the first look's level
    from pagelab.evidence.sequential import obrien_fleming_spending

    spent = obrien_fleming_spending(int(first) / int(most), 0.05)
    assert f"half-way it spends {100 * spent:.2f}%, so {100 * (1 - spent):.2f}%" in text, spent
