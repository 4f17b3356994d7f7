"""The phases of a YCSB run: the load, and the core workloads' operation mixes.

    letter  name                      operations                          YCSB's workload file
    load    load                      insert every record                 (ycsb load)
    a       mixed_50_50               read 50%, update 50%                workloada: update heavy
    b       read_mostly_95_5          read 95%, update 5%                 workloadb: read mostly
    c       read_only                 read 100%                           workloadc: read only
    d       read_latest_95_5          read 95%, insert 5%, latest keys    workloadd: read latest
    f       read_modify_write_50_50   read 50%, read-modify-write 50%     workloadf: read-modify-write

The names of a, b and c are those of the OrientDB proposal's table (data/reference/orientdb_ycsb.csv), so our
rows and the proposal's join on `workload`. Workload D always chooses keys by the `latest`
distribution, as its workload file says; the others use the run's distribution (zipfian unless
told). E (short scans) is not implemented: neither the proposal nor pagelab's questions need it.

A run executes its workloads in YCSB's usual order, a b c f d, whatever order they were given
in: D inserts records, which would change the table the others read.

Semantics kept from YCSB's core workload: a read reads all fields (readallfields=true); an update
writes one field chosen uniformly (writeallfields=false); a read-modify-write reads the record,
then updates one field, and is timed as one READ-MODIFY-WRITE (its read and its update are also
counted under READ and UPDATE, as YCSB counts them).
"""

from __future__ import annotations

from dataclasses import dataclass

from pagelab.common.errors import UsageError

READ, UPDATE, INSERT, READ_MODIFY_WRITE = "READ", "UPDATE", "INSERT", "READ-MODIFY-WRITE"
OPERATIONS = (INSERT, READ, UPDATE, READ_MODIFY_WRITE)  # the order they are printed in


@dataclass(frozen=True)
class Workload:
    letter: str
    name: str
    title: str
    read: float = 0.0
    update: float = 0.0
    insert: float = 0.0
    read_modify_write: float = 0.0
    distribution: str | None = None  # None: the run's distribution

    @property
    def proportions(self) -> dict[str, float]:
        return {READ: self.read, UPDATE: self.update, INSERT: self.insert, READ_MODIFY_WRITE: self.read_modify_write}

    @property
    def is_load(self) -> bool:
        return self.letter == "load"

    @property
    def file_name(self) -> str:
        """Where its YCSB text goes in a run directory: load.txt, workloada.txt, ..."""
        return "load.txt" if self.is_load else f"workload{self.letter}.txt"


LOAD = Workload("load", "load", "load: insert every record", insert=1.0)
WORKLOADS: dict[str, Workload] = {
    "a": Workload("a", "mixed_50_50", "A: update heavy (read 50%, update 50%)", read=0.5, update=0.5),
    "b": Workload("b", "read_mostly_95_5", "B: read mostly (read 95%, update 5%)", read=0.95, update=0.05),
    "c": Workload("c", "read_only", "C: read only (read 100%)", read=1.0),
    "d": Workload("d", "read_latest_95_5", "D: read latest (read 95%, insert 5%)", read=0.95, insert=0.05,
                  distribution="latest"),
    "f": Workload("f", "read_modify_write_50_50", "F: read-modify-write (read 50%, read-modify-write 50%)",
                  read=0.5, read_modify_write=0.5),
}
RUN_ORDER = "abcfd"
BY_NAME = {LOAD.name: LOAD, **{workload.name: workload for workload in WORKLOADS.values()}}


def parse_workloads(value: str | list[str] | tuple[str, ...]) -> tuple[Workload, ...]:
    """'abc', 'a,b,c', ['a', 'B'] or seed-style names ('read_only') -> the workloads in run order."""
    if isinstance(value, str):
        parts = [part for part in value.replace(",", " ").split()]
        if len(parts) == 1 and parts[0] not in BY_NAME and parts[0].lower() != "load":
            parts = list(parts[0])  # "abc"
    else:
        parts = [str(part) for part in value]
    chosen: set[str] = set()
    for part in parts:
        token = part.strip().lower()
        if token.startswith("workload"):
            token = token[len("workload"):]
        if token == "load":
            continue  # every run loads first
        if token in WORKLOADS:
            chosen.add(token)
        elif token in BY_NAME and token != "load":
            chosen.add(BY_NAME[token].letter)
        else:
            raise UsageError(f"unknown YCSB workload {part!r}: give letters from a b c d f (e.g. abc), or the names "
                             f"{', '.join(w.name for w in WORKLOADS.values())}; e (scans) is not implemented")
    return tuple(WORKLOADS[letter] for letter in RUN_ORDER if letter in chosen)
