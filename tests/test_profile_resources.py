"""What a profile needs of the machine, as README's "What it needs" and the Slurm runbook say it:
the disk a sweep keeps and wants free, and the memory measured with `course`'s pool. The expected
values come from the profiles (runbooks/profiles/*.yaml) and from the estimates the sweep itself
checks its room with (pagelab.sweep.footprint); the helpers are tests/test_profile_text.py's."""

from __future__ import annotations

import re

from pagelab.sweep.profiles import load_profile
from tests.conftest import REPO_ROOT
from tests.test_profile_text import find, flat, profile


def test_the_readme_states_courses_disk_footprint():
    from pagelab.sweep.footprint import sweep_estimate

    where = "README.md (Reproducing the Week 4 lab)"
    stated_gb = int(find(flat(REPO_ROOT / "README.md"), r"`course` keeps about (\d+) GB on disk", where).group(1))
    course = profile("course")
    estimate_gib = sweep_estimate(len(course["page_sizes"]), course["warehouses"],
                                  load_profile("course").redo_log) / 2**30
    assert abs(stated_gb - estimate_gib) <= 1, f"{where} says {stated_gb} GB; the sweep's own estimate is {estimate_gib:.1f} GiB"


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
