"""A sweep's plan: the run units, in the order a single machine runs them. Both executors read it:
the local one runs the units in turn, the Slurm one gives unit i to array task i, and each unit
is run by the same code (pagelab.sweep.run_unit).

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

    def to_dict(self) -> dict:
        return {"sweep_id": self.sweep_id, "profile": self.profile, "measure_noise": self.measure_noise,
                "units": [asdict(unit) for unit in self.units]}


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


def units_not_done(record: SweepRecord) -> list[Unit]:
    """Units whose run is not done (pending, running, failed or interrupted), in plan order."""
    statuses = {entry["name"]: entry["status"] for entry in record.runs}
    return [unit for unit in read_plan(record.directory, record).units if statuses.get(unit.name) != "done"]
