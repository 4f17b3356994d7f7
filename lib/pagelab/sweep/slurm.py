"""`pagelab sweep --executor slurm`: the plan's units as one Slurm job array, the report as a job
that waits for it; nothing runs on the submitting host, and the command returns once both are
queued.

    sbatch --array=<units>%K --exclusive  BUNDLE/slurm/unit.sh    task i: pagelab run-unit BUNDLE i
    sbatch --dependency=afterany:<array>  BUNDLE/slurm/report.sh  pagelab report BUNDLE

Files it adds to the bundle:

    slurm/unit.sh, slurm/report.sh    the job scripts (no password: the servers' live in their
                                      instances' client.cnf, 0600, never on a command line)
    slurm/unit-<array>_<task>.out     each task's output; slurm/report-<job>.out the report's
    sweep.json "slurm"                one entry per submission: job ids, units, time, sbatch arguments

`--exclusive` because a run must have its node to itself: two runs on one node would measure each
other. `afterany` because the report covers whatever finished, failed units included (it names
them). Each unit's server lives under the scratch directory (a node-local disk, ideally), restored
from the page size's snapshot in the bundle.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from pagelab.common.errors import MissingDependencyError, PagelabError, UsageError
from pagelab.sweep.plan import Unit
from pagelab.bundle import SweepRecord, now_iso

SLURM_DIR = "slurm"
# sbatch answers in well under a second; a controller that takes longer is down or overloaded.
SBATCH_TIMEOUT_S = 60
# Job states in which a submitted unit may still run or is running (squeue's long names).
ACTIVE_STATES = ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING")


@dataclass(frozen=True)
class Submission:
    array_job: str
    report_job: str
    units: tuple[int, ...]

    def watch_lines(self, sweep_dir: Path) -> list[str]:
        return [f"unit array job {self.array_job} ({len(self.units)} unit{'s' if len(self.units) != 1 else ''}: "
                f"{array_spec(self.units)}), report job {self.report_job} (after the array)",
                f"watch:   squeue -j {self.array_job},{self.report_job}",
                f"history: sacct -j {self.array_job},{self.report_job} --format=JobID,State,ExitCode,NodeList,Elapsed",
                f"status:  {sweep_dir}/sweep.json; each task's output in {sweep_dir}/{SLURM_DIR}/",
                f"cancel:  scancel {self.array_job} {self.report_job}; then `pagelab sweep --resume {sweep_dir} "
                "--executor slurm` reruns the units not done"]


def parse_slurm_args(text: str | None) -> list[str]:
    """--slurm-args "..." as sbatch's arguments (shell words). Refuses what the executor sets itself."""
    try:
        words = shlex.split(text or "")
    except ValueError as error:
        raise UsageError(f"--slurm-args {text!r} cannot be split into words ({error}); check its quotes") from None
    for word in words:
        for reserved in ("--array", "--dependency", "--output", "--error", "--parsable", "--wrap"):
            if word == reserved or word.startswith(reserved + "="):
                raise UsageError(f"--slurm-args: {reserved} is set by pagelab itself; leave it out")
        if word.startswith("-a") and not word.startswith("--") or word.startswith("-d") and not word.startswith("--"):
            raise UsageError(f"--slurm-args: {word} (the job array or a dependency) is set by pagelab itself; leave it out")
    return words


def array_spec(indices: tuple[int, ...] | list[int]) -> str:
    """'0-3,5,7-8': Slurm's --array syntax for unit indices, runs of consecutive ones as ranges."""
    parts, ordered = [], sorted(indices)
    start = previous = ordered[0]
    for index in ordered[1:] + [None]:
        if index is not None and index == previous + 1:
            previous = index
            continue
        parts.append(f"{start}-{previous}" if previous > start else str(start))
        if index is not None:
            start = previous = index
    return ",".join(parts)


def _python_command() -> str:
    """The pagelab of this checkout, run by this interpreter (the project directory and its .venv
    are on the shared filesystem, so every node has both at the same path)."""
    from pagelab.common.paths import PROJECT_ROOT

    lib = PROJECT_ROOT / "lib"
    return (f"cd {shlex.quote(str(PROJECT_ROOT))}\n"
            f"export PYTHONPATH={shlex.quote(str(lib))}${{PYTHONPATH:+:$PYTHONPATH}}\n"
            f"exec {shlex.quote(sys.executable)} -m pagelab.cli")


def unit_script(sweep_dir: Path, scratch: Path) -> str:
    return (f"#!/bin/bash\n# One unit of the sweep in {sweep_dir}: array task i runs unit i of plan.json.\n"
            f"{_python_command()} run-unit {shlex.quote(str(sweep_dir))} \"$SLURM_ARRAY_TASK_ID\" "
            f"--scratch {shlex.quote(str(scratch))}\n")


def report_script(sweep_dir: Path, report_args: list[str]) -> str:
    words = " ".join(shlex.quote(word) for word in report_args)
    return (f"#!/bin/bash\n# The report of the sweep in {sweep_dir}, once every unit has ended.\n"
            f"{_python_command()} report {shlex.quote(str(sweep_dir))}{' ' + words if words else ''}\n")


def require_slurm_client() -> None:
    """MissingDependencyError, before a bundle is made, when this machine cannot submit jobs."""
    missing = [program for program in ("sbatch", "squeue") if shutil.which(program) is None]
    if missing:
        raise MissingDependencyError(f"{' and '.join(missing)} not found: run this on a Slurm login node, or install "
                                     "Slurm's client (Debian: slurm-client; `make test` installs slurm-wlm)")


def _sbatch(argv: list[str]) -> str:
    try:
        done = subprocess.run(["sbatch", "--parsable", *argv], capture_output=True, text=True, timeout=SBATCH_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise MissingDependencyError("sbatch not found: run this on a Slurm login node, or install Slurm's client "
                                     "(Debian: slurm-client; `make test` installs slurm-wlm)") from None
    except subprocess.TimeoutExpired:
        raise PagelabError(f"sbatch gave no answer in {SBATCH_TIMEOUT_S} s; is the Slurm controller up (scontrol ping)?")
    if done.returncode != 0:
        raise PagelabError(f"sbatch refused the job: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip().split(";")[0]  # --parsable: "jobid" or "jobid;cluster"


def active_jobs(job_ids: list[str]) -> list[str]:
    """Those of `job_ids` (array jobs included) that still have a task queued or running."""
    if not job_ids:
        return []
    try:
        done = subprocess.run(["squeue", "-h", "-j", ",".join(job_ids), "-o", "%A %i %T"], capture_output=True,
                              text=True, timeout=SBATCH_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise MissingDependencyError("squeue not found: run this on a Slurm login node") from None
    active = set()
    for line in done.stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2] in ACTIVE_STATES:
            active.add(fields[1].split("_")[0])
    return [job for job in job_ids if job in active]


def refuse_while_queued(sweep_dir: Path, submissions: list[dict]) -> None:
    """UsageError while a job of the bundle's earlier submissions is queued or running: the same
    unit must never run twice at once."""
    earlier = [job for entry in submissions for job in (entry["array_job"], entry["report_job"])]
    still = active_jobs(earlier)
    if still:
        raise UsageError(f"jobs {', '.join(still)} of {sweep_dir} are still in Slurm's queue; wait for them "
                         f"(squeue -j {','.join(still)}) or cancel them (scancel {' '.join(still)}), then resume")


def submit(record: SweepRecord, units: list[Unit], slurm_args: list[str], max_running: int | None = None,
           scratch: Path | None = None, report_args: list[str] | None = None) -> Submission:
    """Queue the units and the report; returns their job ids. Refuses while an earlier submission
    of this bundle still has jobs in the queue (the same unit must never run twice at once)."""
    sweep_dir = record.directory.resolve()
    if not units:
        raise UsageError(f"every unit of {sweep_dir} is done; nothing to submit")
    if max_running is not None and max_running < 1:
        raise UsageError(f"--slurm-max-running must be at least 1, got {max_running}")
    refuse_while_queued(sweep_dir, record.document.get("slurm", []))
    scratch = Path(scratch).resolve() if scratch else sweep_dir / "instances"
    folder = sweep_dir / SLURM_DIR
    folder.mkdir(exist_ok=True)
    (folder / "unit.sh").write_text(unit_script(sweep_dir, scratch))
    (folder / "report.sh").write_text(report_script(sweep_dir, report_args or []))
    indices = tuple(unit.index for unit in units)
    throttle = f"%{max_running}" if max_running else ""
    name = f"pagelab-{sweep_dir.name}"
    try:
        array_job = _sbatch([f"--array={array_spec(indices)}{throttle}", "--exclusive", f"--job-name={name}",
                             f"--output={folder}/unit-%A_%a.out", *slurm_args, str(folder / "unit.sh")])
    except PagelabError as error:
        raise PagelabError(f"{error}\nNothing was submitted; the bundle is ready: once Slurm takes jobs, "
                           f"pagelab sweep --resume {sweep_dir} --executor slurm") from None
    try:
        report_job = _sbatch([f"--dependency=afterany:{array_job}", f"--job-name={name}-report",
                              f"--output={folder}/report-%j.out", *slurm_args, str(folder / "report.sh")])
    except PagelabError as error:
        raise PagelabError(f"{error}\nThe units are submitted (array job {array_job}), the report is not: once "
                           f"they have ended, run: sbatch {folder / 'report.sh'}") from None
    submission = Submission(array_job, report_job, indices)
    record.update_document(slurm=record.document.get("slurm", []) + [
        {"array_job": array_job, "report_job": report_job, "units": list(indices), "submitted": now_iso(),
         "sbatch_args": slurm_args, "scratch": str(scratch)}])
    return submission
