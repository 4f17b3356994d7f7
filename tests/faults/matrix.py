"""The fault matrix's cells and the bundle they share: faults injected into a real `pagelab sweep` at
the phases of its runs, its report and its PDF, each followed by the checks of
tests/faults/harness.py, then `--resume`.

The cells run as two chains, each a test module with a bundle of its own (the tiny profile, on an
ext4 filesystem of its own so that the disk can really be filled and really turn read-only) and a
TPC-C seed of its own, so that two pytest-xdist workers run them at the same time:
test_matrix_to_start.py takes the cells of a run's way to its server (init, load, snapshot,
restore, start), test_matrix_from_ramp_up.py the cells from the ramp-up on (ramp-up, measurement,
record, the report, the PDF, the tidy-up). In a chain the bundle goes through the cells in order,
like a sweep that meets one fault after another: each cell starts the sweep (the first) or resumes
it, waits for its phase marker, injects its fault, and checks what must hold; the next cell's
resume is the one that follows it. Each chain ends with a resume without a fault (see
test_matrix_to_start.py for why its resume stops once the run its last cell broke is done). Each
cell also runs on its own (`-k`): it resumes whatever the bundle holds until its phase comes round.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from pagelab.common.paths import CACHE_DIR
from tests.bundles import assert_complete_bundle
from tests.faults import after_fault, harness, injection, storage_cells
from tests.faults.failing_disk import LoopExt4

# The run's faults that make the run fail rather than stop the sweep: their resumes are given
# --fail-fast, so the sweep stops at the failed run instead of going on to the next runs and the
# report (which later cells need, and which would double the suite's time).
RUN_FAILURES = {"kill-mysqld", "kill-terminal", "kill-kernel"}
SWEEP_SIGNALS = {"sigint": signal.SIGINT, "sigterm": signal.SIGTERM, "sighup": signal.SIGHUP,
                 "kill-sweep": signal.SIGKILL}
# Where each fault can land, and why not elsewhere:
#   kill-mysqld   no server runs while the datadir is copied (snapshot, restore: it is stopped
#                 first, by design) nor during the report and the PDF;
#   kill-terminal terminals exist only while the driver runs;
#   kill-kernel   the PDF is printed by Chromium from the sweep itself, with no kernel;
#   port-taken    a port is chosen only when a server starts: after init (the load's server) and
#                 at start;
#   second-sweep  (a second `pagelab sweep --resume` into the bundle in use) lands anywhere;
#   torn-write    the phases in which a state file that a later process reads is rewritten:
#                 loaded.json after the snapshot, instance.json at start, sweep.json when a run ends.
ALL_PHASES = harness.PHASES
APPLICABLE = {
    **{fault: ALL_PHASES for fault in SWEEP_SIGNALS},
    "kill-mysqld": ("init", "load", "start", "ramp-up", "measurement", "record"),
    "kill-terminal": ("ramp-up", "measurement"),
    "kill-kernel": harness.RUN_PHASES + ("report",),
    "disk-full": ALL_PHASES,
    "port-taken": ("init", "start"),
    "torn-write": ("snapshot", "start", "record"),
    "second-sweep": ALL_PHASES,
    **storage_cells.STORAGE_PHASES,  # read-only, eio-server, eio-bundle, slow-disk (tests/faults/storage_cells.py)
}
# The full matrix in the order the bundle can meet it: the phases of a first load (init and load,
# whose cells all stop the run before its load is done, port-taken in init last: it stops its run
# once the load's server is up on another port); then the snapshots, the cells that let a snapshot
# complete last, each of them using up a page size's first load; the phases of runs that restore,
# then port-taken in start; then the report and the PDF.
# kill-sweep: its kernel lives ~1 s on; slow-disk: the run completes, slowly
LETS_THE_PHASE_FINISH = ("kill-sweep", "torn-write", "second-sweep", "slow-disk")


def full_matrix() -> list[tuple[str, str]]:
    def cells(phase: str, leave_out=()) -> list[tuple[str, str]]:
        found = [(f, phase) for f in APPLICABLE if phase in APPLICABLE[f] and f not in leave_out]
        return sorted(found, key=lambda cell: cell[0] in LETS_THE_PHASE_FINISH)

    return (cells("init", ("port-taken",)) + cells("load") + [("port-taken", "init")] + cells("snapshot")
            + [c for phase in ("restore", "start", "ramp-up", "measurement", "record") for c in cells(phase, ("port-taken",))]
            + [("port-taken", "start")] + cells("report") + cells("pdf") + [("read-only", "tidy-up")])


# The default: every fault and every phase at least once, chosen where the fault does the most
# harm or where a guard is at stake (see tests/faults/README.md), and every storage fault in every
# phase it can strike; `PAGELAB_FAULT_MATRIX=full` runs every applicable cell instead (94).
REPRESENTATIVE = [
    ("kill-sweep", "init"),        # leaves the instance directory half made, for the next init
    ("kill-mysqld", "init"),
    ("disk-full", "init"),         # mariadbd waits for space for ever, and cannot log why
    ("read-only", "init"),
    ("kill-kernel", "load"),       # during the TPC-C cache's generation: its staging directory
    ("read-only", "load"),         # during the generation, which writes nothing into the bundle: the watch says it
    ("kill-sweep", "load"),
    ("disk-full", "load"),
    ("port-taken", "init"),        # its SIGINT comes once the load's server serves: the load is cut short too
    ("sigterm", "snapshot"),       # held with its copy done and the snapshot not yet whole; after loads cut short, it loads again
    ("read-only", "snapshot"),     # held there too: the completed load is kept, not loaded again
    ("sighup", "restore"),         # the completed load kept again, its snapshot made whole, then the restore
    ("disk-full", "restore"),
    ("read-only", "restore"),
    ("kill-mysqld", "start"),
    ("torn-write", "start"),       # instance.json: the temp-and-rename writes
    ("sigterm", "ramp-up"),
    ("kill-terminal", "measurement"),
    ("second-sweep", "measurement"),  # the bundle lock
    ("kill-kernel", "record"),
    ("read-only", "record"),       # held at its line in phases.csv
    ("torn-write", "record"),      # sweep.json
    ("port-taken", "start"),
    ("read-only", "measurement"),  # the ext4 under the bundle turned read-only: one message, exit 4
    ("eio-server", "measurement"),  # InnoDB's writes fail with EIO: found in its error log
    ("eio-bundle", "record"),      # pagelab's own write into the bundle fails with EIO
    ("slow-disk", "measurement"),  # 500 ms per server write: the run completes
    ("sigint", "report"),
    ("kill-kernel", "report"),
    ("read-only", "report"),
    ("kill-sweep", "pdf"),
    ("read-only", "tidy-up"),      # after the report and its PDF are recorded
]
FULL = os.environ.get("PAGELAB_FAULT_MATRIX") == "full"
CELLS = full_matrix() if FULL else REPRESENTATIVE
# The two chains, by phase: a run's way to its server, and everything from its ramp-up on. Each
# takes the cells of its phases in CELLS's order; together they take every cell.
TO_START = ("init", "load", "snapshot", "restore", "start")
FROM_RAMP_UP = ("ramp-up", "measurement", "record", "report", "pdf", "tidy-up")


def cells_of(phases: tuple[str, ...]) -> list[tuple[str, str]]:
    return [cell for cell in CELLS if cell[1] in phases]


def cell_ids(cells: list[tuple[str, str]]) -> list[str]:
    return [f"{fault}-in-{phase}" for fault, phase in cells]


# The full matrix meets more first loads than two page sizes give (every cell that lets a snapshot
# complete uses one up) and more runs than two repeats.
FULL_MATRIX_SETS = ["--set", "page_sizes=4k,8k,16k,32k", "--set", "repeats=3"] if FULL else []
# The measurement's cells act after its first interval's marker, a second in: the server's EIO
# (strace attached to each of mysqld's threads) and the terminal's KILL need the rest of it. Of the
# tiny profile's 2 s, that left one, which a cell beside the other chain and a CPU hog once missed
# (the EIO landed after the measurement, the run failed as any run does); 4 s leave three.
MEASURE_SETS = ["--set", "measure_s=4"]
EXIT_TIMEOUT_S = 120.0  # a run that fails still stops its server and writes its notebook


class Chain:
    """The bundle the cells share, on an ext4 filesystem of its own (`disk`), and the TPC-C seed of its cache."""

    def __init__(self, disk: LoopExt4, workdir: Path, seed: int):
        self.disk, self.workdir, self.seed = disk, workdir, seed
        self.mount = disk.mount
        self.bundle = disk.mount / "bundle"
        self.broken: str | None = None  # the first cell that failed, and how
        self.sweeps: list[harness.Sweep] = []  # every sweep a cell started, in order

    def start_sweep(self, fail_fast: bool = False) -> harness.Sweep:
        """The chain's sweep: started, or resumed (`args`), and remembered for the checks of its cell."""
        sweep = harness.start_sweep(self.args(fail_fast), self.bundle, self.workdir)
        self.sweeps.append(sweep)
        return sweep

    @contextlib.contextmanager
    def link(self, cell: str):
        """One cell of the chain. Once a cell has failed, the bundle is not what the next cells
        expect (its runs used up by a sweep that did not stop, a run left in another state), and
        each of them would fail in its own confusing way ("the sweep ended (exit 0) before phase
        restore"): they fail at once instead, naming the cell that broke the chain, so that a log
        shows one real failure and the ones that follow from it. A cell run alone (`-k`) has no
        earlier cell and resumes whatever the bundle holds."""
        if self.broken:
            pytest.fail(f"not run: the fault chain broke at {self.broken}", pytrace=False)
        try:
            yield
        except BaseException as failure:
            first_line = (str(failure).strip().splitlines() or [type(failure).__name__])[0]
            self.broken = f"{cell} ({type(failure).__name__}: {first_line[:200]})"
            raise

    @property
    def cache(self) -> Path:
        return CACHE_DIR / f"tpcc-w1-s{self.seed}"

    def args(self, fail_fast: bool = False) -> list:
        # --pdf: the report's copy goes here, not into the project's reports/
        pdf = ["--pdf", self.workdir / "report.pdf"]
        if not (self.bundle / "sweep.json").exists():
            return ["--profile", harness.TINY_PROFILE, "--set", f"random_seed={self.seed}", *MEASURE_SETS, *FULL_MATRIX_SETS,
                    "--out", self.bundle, *pdf]
        return ["--resume", self.bundle, *pdf] + (["--fail-fast"] if fail_fast else [])


def chain_on_its_own_disk(tmp_path_factory, index: int):
    """A chain's bundle on a filesystem of its own, and its TPC-C seed (`index`: which chain, so
    that two chains in one process have two seeds); undone whatever the cells did. For a
    module-scoped fixture to yield from."""
    base = tmp_path_factory.mktemp(f"faults{index}")
    # The bundle's own filesystem: ext4 on a loop device over a sparse file, mounted errors=remount-ro
    # (tests/faults/failing_disk.py), so that the disk can really be filled and really turn read-only.
    # The tiny profile's bundle keeps ~1 GB (a datadir and a snapshot per page size), and before a
    # first load the sweep wants ~1.2 GiB free (pagelab.sweep.footprint.run_needs: the datadir, its
    # snapshot and the restored copy): 2.5 GB holds both.
    disk = LoopExt4(base / "ext4.img", base / "disk", "5000M" if FULL else "2500M")  # the full matrix: four page sizes
    # A seed of its own, so the first load generates the TPC-C cache while the cells watch, and so
    # that one chain's clean-up never removes the other's cache (the parities differ).
    chain = Chain(disk, base, seed=100_000 + 2 * (os.getpid() % 50_000) + index)
    try:
        disk.create()
        yield chain
    finally:
        for pid in harness.servers_under(disk.mount):
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        disk.destroy()
        shutil.rmtree(chain.cache, ignore_errors=True)
        for staging in CACHE_DIR.glob(f".{chain.cache.name}.*"):
            shutil.rmtree(staging, ignore_errors=True)


def _room_to_leave(chain: Chain) -> int:
    """What a disk-full cell leaves free before its sweep starts: the sweep's own estimate for the
    largest next step, a first load (pagelab.sweep.footprint.run_needs), so that its room check passes
    and the run gets as far as the phase, plus room for the report and Chromium's profile."""
    from pagelab.sweep.footprint import run_needs
    from pagelab.sweep.profiles import load_profile

    tiny = load_profile(str(harness.TINY_PROFILE))
    return run_needs(chain.bundle / "instances" / "none yet", tiny.warehouses, tiny.redo_log) + (64 << 20)


def _record_result(fault: str, phase: str, outcome: str, seconds: dict) -> None:
    """One line per cell in $PAGELAB_FAULT_LOG, if set: the matrix table of a report, and where the
    cell's time went (the sweep's start to the fault, the fault to the sweep's exit, the checks)."""
    path = os.environ.get("PAGELAB_FAULT_LOG")
    if path:
        with open(path, "a") as log:
            log.write(json.dumps({"fault": fault, "phase": phase, "outcome": outcome, **seconds}) + "\n")


def run_cell(chain: Chain, fault: str, phase: str) -> dict:
    before = after_fault.done_runs(chain.bundle)
    statuses_before = {e["name"]: e["status"] for e in (harness.read_record(chain.bundle) or {"runs": []})["runs"]}
    # Filling gigabytes takes seconds, longer than a snapshot's copy or the PDF last: all but
    # what the next run needs is filled before the sweep starts, the rest at the phase.
    filler = injection.fill_disk(chain.bundle, leave_bytes=_room_to_leave(chain)) if fault == "disk-full" else None
    sweep = chain.start_sweep(fail_fast=fault in RUN_FAILURES)
    taken_ports: list[injection.TakenPort] = []
    tracers: list = []
    holds: list = []  # the tracer holding a phase open (injection.wait_for_held)
    seconds: list[harness.Sweep] = []
    injected: float | None = None  # when the fault was injected, if not when its call returned
    try:
        # Held open rather than raced (see injection.HELD_WRITES): a snapshot's copy lasts a fraction of
        # a second, and a poll on a loaded machine misses it, the sweep then finishing.
        held = phase == "record" or (phase == "snapshot" and fault in {*SWEEP_SIGNALS, "kill-kernel", "disk-full"})
        if fault == "port-taken":  # from the run's start on (injection.take_port), not from the phase
            where, what = injection.take_port(sweep, phase, taken_ports)
        else:
            where = injection.wait_for_held(sweep, phase, holds) if held else harness.wait_for_phase(sweep, phase)
        if phase == "load" and not (chain.cache / harness.CACHE_MANIFEST).exists():  # into the cache's generation
            harness.wait_for(sweep, lambda: _generation_under_way(chain), "the TPC-C cache's generation")
        if fault in SWEEP_SIGNALS:
            what = injection.send(sweep, SWEEP_SIGNALS[fault])
        elif fault == "kill-mysqld":
            what = injection.kill_server(sweep, where)
        elif fault == "kill-kernel":
            what = injection.kill_kernel(sweep, where)
        elif fault == "kill-terminal":
            what = injection.kill_terminal(sweep, where)
        elif fault == "port-taken":
            pass  # taken above
        elif fault == "torn-write":
            what = _tear(chain, sweep, phase, where, tracers)
        elif fault == "second-sweep":
            injected = time.time()
            # the first sweep is stopped (SIGSTOP) while the second one runs, so that it is still in
            # its phase, holding the bundle, when the second comes to the lock (the PDF, for one,
            # takes less time than a second sweep takes to start); it gets its SIGINT before it is
            # let go, so that it stops there rather than finish
            os.kill(sweep.pid, signal.SIGSTOP)
            try:
                second = harness.start_sweep(chain.args(), chain.bundle, chain.workdir)
                seconds.append(second)
                second_code = second.wait(EXIT_TIMEOUT_S)
                assert second_code == 2, f"a second sweep into a bundle in use was not refused:\n{second.tail()}"
                assert f"pid {sweep.pid}" in second.text(), f"the refusal does not name the holder:\n{second.tail()}"
                assert sweep.alive(), f"the first sweep did not survive the second:\n{sweep.tail()}"
                injection.send(sweep, signal.SIGINT)
            finally:
                os.kill(sweep.pid, signal.SIGCONT)
            what = f"a second pagelab sweep --resume (exit {second_code})"
        elif fault == "disk-full":
            filler = injection.fill_disk(chain.bundle)
            what = "the bundle's filesystem filled"
        else:
            raise ValueError(fault)
        injected = injected or time.time()
        # A signal to the sweep in a held snapshot: after the sweep has gone, its kernel lives up to
        # ~1 s on (ipykernel's parent check) and may or may not write the marker in that time.
        # Let go at once, it raced the sweep and at times made the snapshot whole, using up a first
        # load the later snapshot cells need; so the cell takes the branch where the guard is at
        # stake: the kernel, still held, is killed once the sweep has ended.
        held_kernel = harness.kernel_pid(sweep) if held and phase == "snapshot" and fault in SWEEP_SIGNALS else None
        if held_kernel is None:
            injection.stop_tracers(holds)  # the fault is in: the held phase goes on
        # (a held record phase has its line in phases.csv still to come)
        landed = harness.phase_at(chain.bundle / where, injected) if phase in harness.RUN_PHASES and phase != "record" else phase
        if fault == "port-taken":
            # the server gets another port and the run goes on; once it serves there, the sweep is
            # stopped with SIGINT (a fault of its own cells) so that the next cell has runs left.
            # Not at the run's end: the next run would be under way by the time the SIGINT comes.
            moved_to = harness.wait_for(sweep, lambda: injection.serving_elsewhere(taken_ports[-1]),
                                        "the server serving on another port")
            what += f"; the server came up on port {moved_to} (+{time.time() - sweep.started:.1f} s)"
        elif fault == "torn-write":
            # the file is rewritten within the phase (sweep.json: once the run's notebook has
            # returned); once that is over, the tracer lets go and the sweep, if nothing killed it,
            # is stopped with SIGINT
            if phase == "record":
                _until(sweep, lambda: _status(chain.bundle, where) != "running", f"{where} to be recorded")
            else:
                _until(sweep, lambda: not harness.phase_now(sweep, phase), f"the end of {phase}")
            injection.stop_tracers(tracers)
        if fault in ("port-taken", "torn-write"):
            if sweep.alive():
                injection.send(sweep, signal.SIGINT)
                what += f"; SIGINT at +{time.time() - sweep.started:.1f} s"
            else:
                what += "; the sweep had ended before the SIGINT"
        code = sweep.wait(EXIT_TIMEOUT_S)
        exited = time.time()
        if held_kernel is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(held_kernel, signal.SIGKILL)
            injection.stop_tracers(holds)
        if filler is not None:
            filler.unlink()
            filler = None
        record = after_fault.check_after(chain.bundle, sweep, before, chain.cache)
        status = {e["name"]: e["status"] for e in record["runs"]}.get(where, "-")
        outcome = f"{what} (landed in: {landed}); exit {code}; {where}: {status}"
        try:
            _expect(fault, phase, where, code, record, statuses_before, sweep)
        except AssertionError as failure:
            raise AssertionError(f"{outcome}\n{failure}") from None
        _record_result(fault, phase, outcome, {"to_phase_s": round(injected - sweep.started, 1),
                                                "to_exit_s": round(exited - injected, 1),
                                                "checks_s": round(time.time() - exited, 1)})
        return record
    finally:
        injection.stop_tracers(holds + tracers)
        for taken in taken_ports:
            taken.holder.close()
        if filler is not None:
            filler.unlink(missing_ok=True)
        for started in [sweep, *seconds]:
            if started.alive():
                started.process.kill()
                started.process.wait()
            harness.wait_until_gone(started, timeout=10)


# Which process rewrites which state file in the phase a torn-write cell targets.
TORN_FILES = {"record": ("sweep", "sweep.json"), "start": ("kernel", "instance.json"),
              "snapshot": ("kernel", "loaded.json")}


def _tear(chain: Chain, sweep: harness.Sweep, phase: str, where: str, tracers: list) -> str:
    who, name = TORN_FILES[phase]
    if who == "sweep":
        return injection.tear_writes(sweep.pid, [chain.bundle / name], tracers)
    return injection.tear_writes(harness.kernel_pid(sweep), [harness.instance_dir(chain.bundle, where) / name], tracers)


def _until(sweep: harness.Sweep, condition, what: str) -> None:
    """Wait for `condition` or for the sweep to end, whichever comes first."""
    if sweep.alive():
        harness.wait_for(sweep, lambda: condition() or not sweep.alive(), what)


def _status(bundle: Path, run: str) -> str | None:
    for entry in (harness.read_record(bundle) or {"runs": []})["runs"]:
        if entry["name"] == run:
            return entry["status"]
    return None


def _generation_under_way(chain: Chain) -> bool:
    """Files of the cache being written: in a staging directory, or under the final name without
    the manifest that marks it whole."""
    candidates = [*CACHE_DIR.glob(f".{chain.cache.name}.partial-*"), chain.cache]
    return any(d.is_dir() and not (d / harness.CACHE_MANIFEST).exists() and any(d.iterdir()) for d in candidates)


def _expect(fault: str, phase: str, where: str, code: int, record: dict, before: dict, sweep: harness.Sweep) -> None:
    """What the sweep must have done and said, beyond the promises every cell checks."""
    runs = {e["name"]: e for e in record["runs"]}
    in_run = phase in harness.RUN_PHASES
    if in_run and fault not in ("port-taken", "torn-write", "second-sweep"):
        assert runs[where]["status"] != "done", f"{where} is marked done after a {fault} during its {phase}"
    if fault in ("sigint", "sigterm", "second-sweep"):
        # 130, or death by SIGINT itself: what a shell reports as 130 too
        assert code in (130, -signal.SIGINT), sweep.tail()
        assert f"--resume {sweep.bundle}" in sweep.text(), "the message does not say how to continue"
        if in_run and fault != "second-sweep":  # the first sweep is stopped whenever the second has gone
            assert runs[where]["status"] == "interrupted", runs[where]
    if fault in RUN_FAILURES:
        assert code != 0, sweep.tail()
        if in_run:
            assert runs[where]["status"] == "failed", runs[where]
    if fault == "disk-full":
        assert code != 0, sweep.tail()
        if in_run:
            assert runs[where]["status"] == "failed" and "disk full" in (runs[where]["error"] or ""), runs[where]
        # the sweep stops at a full disk rather than failing every run after it
        later = {name: entry["status"] for name, entry in runs.items() if name != where}
        assert later == {name: before.get(name, "pending") for name in later}, later  # (alone: no bundle before)
    if fault in ("port-taken", "torn-write") and code == 0:
        # the cell stops its sweep with SIGINT; one that ended by itself has used up the runs and
        # the report that the next cells need, and they would all fail for it
        raise AssertionError(f"the sweep finished before the cell stopped it ({where}: "
                             f"{runs[where]['status']}):\n{harness.bundle_story(sweep.bundle)}\n{sweep.tail()}")
    if fault == "port-taken":
        # what came up on another port is the run's own server: it may have finished since
        assert runs[where]["status"] in ("interrupted", "done"), f"{where} after its port was taken: {runs[where]}"


def run(chain: Chain, fault: str, phase: str) -> None:
    """One cell of the matrix on `chain`'s bundle."""
    with chain.link(f"{fault}-in-{phase}"), _loads_checked(chain):
        if fault in storage_cells.STORAGE_FAULTS:
            storage_cells.run_cell(chain, fault, phase)
        else:
            run_cell(chain, fault, phase)


@contextlib.contextmanager
def _loads_checked(chain: Chain):
    """After the cell's own checks: a completed load that the bundle held before the cell was kept
    rather than loaded again, and a load cut short was loaded again (after_fault.check_loads)."""
    to_keep = after_fault.loads_to_keep(chain.bundle)
    since, first = time.time(), len(chain.sweeps)
    yield
    after_fault.check_loads(chain.bundle, to_keep, since, "\n".join(sweep.text() for sweep in chain.sweeps[first:]))


def resume_to_the_end(chain: Chain) -> None:
    """A resume without a fault finishes the sweep: the bundle is what an uninterrupted sweep leaves."""
    with chain.link("resume-finishes-the-sweep"), _loads_checked(chain):
        _resume_to_the_end(chain)


def _resume_to_the_end(chain: Chain) -> None:
    before = after_fault.done_runs(chain.bundle)
    sweep = chain.start_sweep()
    code = sweep.wait(600)
    assert code == 0, sweep.tail()
    after_fault.check_after(chain.bundle, sweep, before, chain.cache)
    assert_complete_bundle(chain.bundle, assert_run=after_fault.assert_run_whole)


def resume_until_a_run_is_done(chain: Chain) -> None:
    """A resume without a fault carries the sweep on: the run the chain's last cell broke is done
    again, whole, with every run done before it kept; then the sweep is stopped (SIGINT) and checked
    as after any cell. What the rest of a sweep does after a resume is the other chain's last test."""
    with chain.link("resume-completes-a-run"), _loads_checked(chain):
        _resume_until_a_run_is_done(chain)


def _resume_until_a_run_is_done(chain: Chain) -> None:
    before = after_fault.done_runs(chain.bundle)
    sweep = chain.start_sweep()
    try:
        newly_done = harness.wait_for(sweep, lambda: set(after_fault.done_runs(chain.bundle)) - set(before),
                                      "a run done", timeout=harness.PHASE_TIMEOUT_S * 2)
        injection.send(sweep, signal.SIGINT)
        code = sweep.wait(EXIT_TIMEOUT_S)
        assert code in (0, 130, -signal.SIGINT), sweep.tail()
        record = after_fault.check_after(chain.bundle, sweep, before, chain.cache)
        statuses = {entry["name"]: entry["status"] for entry in record["runs"]}
        assert all(statuses[name] == "done" for name in newly_done), statuses
    finally:
        if sweep.alive():
            sweep.process.kill()
            sweep.process.wait()
        harness.wait_until_gone(sweep, timeout=10)
