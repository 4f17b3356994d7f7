"""More rounds for a sweep that has run: `pagelab sweep --resume BUNDLE --add-rounds N`.

A sweep made with room to grow (the knob max_rounds above its repeats) can be given more rounds of
verdict runs in the same bundle. They continue the profile's seed stream: round k's order is the
k-th permutation drawn from the seed (`Profile.added_units`), numbered after every round the bundle
has, the over-time runs' included. Each addition is a new look, recorded in sweep.json's "looks"
(look number, rounds at that look, when it was declared), and every look is tested at its
group-sequential boundary (pagelab.evidence.sequential), so adding rounds until a pair says
faster cannot make a verdict out of noise.

The added runs must be the same experiment as the first ones, so before anything is written an
addition is refused, naming the difference, when: the sweep was made to be analysed once
(max_rounds 0), or the addition would pass max_rounds; the profile's file now gives other values
than the bundle was made with; the code is another commit, or has local changes (then or now);
or this machine is not the one whose runs the bundle holds (pagelab.machine.hosts). A bundle that
another sweep is writing, or whose units are queued on Slurm, is refused as a resume is.
"""

from __future__ import annotations

from pathlib import Path

from pagelab.bundle import SweepRecord, now_iso, run_entries
from pagelab.evidence.sequential import recorded_looks
from pagelab.common.errors import UsageError
from pagelab.sweep.orchestrator import bundle_lock, check_bundle_directory, check_resumable, refuse_runs_while_queued
from pagelab.sweep.plan import read_plan, write_plan
from pagelab.sweep.profiles import Profile, profile_from_dict


def add_rounds(sweep_dir: Path, count: int, check_machine: bool = True,
               code_now: tuple[str | None, bool | None] | None = None) -> SweepRecord:
    """Append `count` rounds of pending verdict runs and a look to the bundle (sweep.json and
    plan.json), after every check; the record as it is then. `check_machine`: False when the runs
    go to Slurm's nodes, whose own host records name them. `code_now`: this code's (git sha, local
    changes), by default this checkout's (`git_revision`)."""
    check_bundle_directory(sweep_dir)
    with bundle_lock(sweep_dir):
        record = check_resumable(sweep_dir)
        refuse_runs_while_queued(record)
        profile = profile_from_dict(record.document["profile"])
        problems = extension_problems(record, profile, count, check_machine, code_now)
        if problems:
            raise UsageError(f"cannot add rounds to {sweep_dir}: " + "; ".join(problems))
        first_round = max(int(entry.get("round") or 0) for entry in record.runs) + 1
        first_repeat = max(int(entry["repeat"]) for entry in record.runs if entry.get("role", "verdict") == "verdict") + 1
        earlier = recorded_looks(record.document)
        look = {"look": len(earlier) + 1, "rounds": int(earlier[-1]["rounds"]) + count, "time": now_iso()}
        measure_noise = read_plan(sweep_dir, record).measure_noise
        record.append_runs(run_entries(profile.added_units(first_round, first_repeat, count)),
                           looks=[*earlier, look])
        write_plan(record, measure_noise)
    return record


def extension_problems(record: SweepRecord, profile: Profile, count: int, check_machine: bool = True,
                       code_now: tuple[str | None, bool | None] | None = None) -> list[str]:
    """Why `count` more rounds cannot be added to this bundle, each naming the difference; [] if they can."""
    if count < 1:
        return [f"--add-rounds takes a number of rounds of at least 1, got {count}"]
    rounds = int(recorded_looks(record.document)[-1]["rounds"])
    if not profile.max_rounds:
        return [f"it was made to be analysed once, after its {rounds} rounds (max_rounds 0), so its verdicts were "
                "tested at the full 5%, and looking again after more rounds would let noise make a verdict. To be "
                "able to add rounds, make the sweep with room for them: --set max_rounds=M (e.g. three times its "
                "repeats), which tests every look at a group-sequential boundary"]
    problems = []
    if rounds + count > profile.max_rounds:
        room = profile.max_rounds - rounds
        problems.append(f"it has {rounds} rounds and was made for at most {profile.max_rounds} (max_rounds), so "
                        + (f"at most {room} can be added (--add-rounds {room})" if room else "no more can be added"))
    problems += _profile_differences(record, profile)
    problems += _code_differences(record, code_now)
    if check_machine:
        problems += _machine_differences(record)
    return problems


def _profile_differences(record: SweepRecord, profile: Profile) -> list[str]:
    """The knobs whose values the profile's file (with the bundle's --set overrides) now gives
    otherwise than the bundle was made with."""
    from pagelab.sweep.knobs import PLANNING_KNOBS, RECORD_KNOBS
    from pagelab.sweep.profiles import load_profile

    source = Path(profile.source) if profile.source else None
    if source is None or not source.is_file():
        return []  # made from a dict, or a file since removed: the bundle's own values are all there is
    try:
        now = load_profile(source, profile.overrides).to_dict()
    except UsageError as problem:
        return [f"its profile {source} no longer reads ({problem}); put it back as it was, or start a new sweep"]
    made = record.document["profile"]
    changed = [f"{name} {made.get(name)!r} then, {value!r} now" for name, value in now.items()
               if name not in ("source", "description", *PLANNING_KNOBS, *RECORD_KNOBS) and made.get(name) != value]
    if not changed:
        return []
    return [f"its profile {source} has changed since the sweep was made ({'; '.join(changed)}), so the added rounds "
            "would not be the same experiment; put the profile back, or start a new sweep"]


def _code_differences(record: SweepRecord, code_now: tuple[str | None, bool | None] | None) -> list[str]:
    from pagelab.machine.system import git_revision

    machine = record.document.get("machine") or {}
    made_sha, made_dirty = machine.get("git_sha"), machine.get("git_dirty")
    sha, dirty = code_now if code_now is not None else git_revision()
    if made_sha is None or sha is None:
        made_version = (machine.get("packages") or {}).get("pagelab")
        from pagelab.machine.system import package_versions

        version = package_versions(("pagelab",))["pagelab"]
        if made_version != version or made_version is None:
            return [f"its code cannot be told to be this one (pagelab {made_version} then, {version} now, without a "
                    "git commit to compare); start a new sweep"]
        return []
    problems = []
    if made_sha != sha:
        problems.append(f"it was made by pagelab commit {made_sha[:12]} and this is {sha[:12]}; check out "
                        f"{made_sha[:12]} to add rounds, or start a new sweep")
    if made_dirty:
        problems.append(f"it was made by commit {made_sha[:12]} with local changes, which cannot be told apart from "
                        "any other; start a new sweep from committed code")
    if dirty:
        problems.append("this checkout has local changes, so its code is not the one that made the sweep; commit "
                        "or stash them first")
    return problems


def _machine_differences(record: SweepRecord) -> list[str]:
    from pagelab.machine.hosts import other_machines

    done = [entry["name"] for entry in record.runs if entry["status"] == "done"]
    return [f"its runs ran on another machine ({differences}); add rounds on that machine, or start a new sweep here"
            for differences in other_machines(record.directory, done)]
