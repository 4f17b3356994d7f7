"""slurm.md's rule for a sweep on a cluster, rounds >= 2K (a node takes at least 2 rounds, so its
own effect gets an interval), wherever the docs give a cluster's rounds: its first example, every
`--set repeats=R` beside Slurm, and every resume on Slurm, which must give `--slurm-max-running K`
again. The expected values are `course`'s verdict rounds (runbooks/profiles/course.yaml) and the
rule itself; the helpers are tests/test_profile_text.py's."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT
from tests.test_profile_text import find, flat, profile


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
