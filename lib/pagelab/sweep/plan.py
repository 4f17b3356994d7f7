"""A sweep's plan: the run units, in the order a single machine runs them, and its blocks. Both
executors read it: the local one runs the units in turn, the Slurm one gives each block (a round:
the units that are compared with each other) to one array task, which runs them on its node one
after another in the round's order; each unit is run by the same code (pagelab.sweep.run_unit).

A block is a round: the verdict rounds 1..R (every cell of a grid and every page size once), then
the over-time runs, which the plan gives a round of their own (R + 1). Its runs share the node and
the minute, which is what the paired analysis leans on (pagelab.evidence.intervals), so a block
never spans nodes: Slurm runs a block as one task, and a resume reruns a block that is not
complete as a whole (`blocks_not_done`).

BUNDLE/plan.json:

    {"sweep_id": "smoke-20261125-031200",
     "profile": {...every knob, as sweep.json keeps it...},
     "measure_noise": false,         each host measures its noise before its first unit (--noise
                                     with --executor slurm; a local sweep measures once, first)
     "units": [{"index": 0, "name": "4k-r1", "page_size_bytes": 4096, "page_size": "4k", "repeat": 1,
                "cell": {}, "round": 1, "position": 1}, ...]}

A unit is one page size and repeat with the profile's knobs, at one cell of the profile's grid
(`cell`: the level of each knob given as a list, e.g. {"buffer_pool": "30%"}; {} without a grid),
run in `round` at `position`; its index is its place in the list.
The plan is written when the bundle is made and never changes after, so every node reads the same.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pagelab.common.atomic import atomic_write_json
from pagelab.common.errors import UsageError
from pagelab.bundle import SweepRecord, sweep_file

PLAN_FILE = "plan.json"


@dataclass(frozen=True)
class Unit:
    index: int
    name: str  # also its run directory: BUNDLE/<name>/
    page_size_bytes: int
    page_size: str
    repeat: int
    cell: dict = field(default_factory=dict)
    round: int = 0  # 0: a plan written before rounds were recorded
    position: int = 0
    role: str = "verdict"  # or "over_time": measures over_time_s (pagelab.sweep.profiles)


@dataclass(frozen=True)
class Plan:
    sweep_id: str
    profile: dict
    units: tuple[Unit, ...]
    measure_noise: bool = False

    def unit(self, index: int) -> Unit:
        if not 0 <= index < len(self.units):
            raise UsageError(f"unit {index} is out of range: this plan has units 0 to {len(self.units) - 1}")
        return self.units[index]

    def blocks(self) -> dict[int, list[Unit]]:
        """{round: its units in the round's order}, rounds ascending. A plan written before rounds
        were recorded (round 0) gives each repeat its round, as such sweeps ran them."""
        found: dict[int, list[Unit]] = {}
        for unit in self.units:
            found.setdefault(block_of(unit), []).append(unit)
        return {key: sorted(found[key], key=lambda unit: (unit.position, unit.index)) for key in sorted(found)}

    def block(self, round_number: int) -> list[Unit]:
        blocks = self.blocks()
        if round_number not in blocks:
            raise UsageError(f"round {round_number} is not in this plan: its rounds are {', '.join(map(str, blocks))}")
        return blocks[round_number]

    def to_dict(self) -> dict:
        return {"sweep_id": self.sweep_id, "profile": self.profile, "measure_noise": self.measure_noise,
                "units": [asdict(unit) for unit in self.units]}


def block_of(unit: Unit) -> int:
    """The round a unit belongs to (its repeat in a plan from before rounds were recorded)."""
    return unit.round or unit.repeat


def plan_from_record(record: SweepRecord, measure_noise: bool = False) -> Plan:
    """The plan of a bundle's runs, in sweep.json's order (the profile's, `Profile.units`)."""
    units = tuple(Unit(index, entry["name"], int(entry["page_size_bytes"]), entry["page_size"], int(entry["repeat"]),
                       dict(entry.get("cell") or {}), int(entry.get("round", 0)), int(entry.get("position", 0)),
                       entry.get("role", "verdict"))
                  for index, entry in enumerate(record.runs))
    return Plan(record.document.get("sweep_id", record.path.parent.name), record.document["profile"], units,
                measure_noise)


def write_plan(record: SweepRecord, measure_noise: bool = False) -> Plan:
    plan = plan_from_record(record, measure_noise)
    atomic_write_json(record.directory / PLAN_FILE, plan.to_dict())
    return plan


def read_plan(sweep_dir: Path, record: SweepRecord | None = None) -> Plan:
    """The bundle's plan; a bundle made before plans were written gets the one its sweep.json
    implies (`record`, if the caller has it loaded)."""
    sweep_dir = Path(sweep_dir)
    sweep_file(sweep_dir)  # NotABundle
    path = sweep_dir / PLAN_FILE
    if not path.exists():
        return plan_from_record(record or SweepRecord.load(sweep_dir))
    document = json.loads(path.read_text())
    return Plan(document["sweep_id"], document["profile"], tuple(Unit(**unit) for unit in document["units"]),
                bool(document.get("measure_noise")))


def blocks_not_done(record: SweepRecord) -> dict[int, list[Unit]]:
    """The blocks (rounds) with a unit not done, each whole, in plan order: a block reruns as one, on
    one node, so that a rerun round is still a block (its done units are redone with it)."""
    statuses = {entry["name"]: entry["status"] for entry in record.runs}
    return {key: units for key, units in read_plan(record.directory, record).blocks().items()
            if any(statuses.get(unit.name) != "done" for unit in units)}
