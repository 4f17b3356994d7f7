"""`pagelab sweep --executor slurm`: the plan's rounds as one Slurm job array, the report as a job
that waits for it; nothing runs on the submitting host, and the command returns once both are
queued.

    sbatch --array=<rounds>%K --exclusive --no-requeue  BUNDLE/slurm/unit.sh
        task k: pagelab run-unit BUNDLE --round k --scratch DIR (round k's units, in order, on one node)
    sbatch --dependency=afterany:<array>  BUNDLE/slurm/report.sh  pagelab report BUNDLE

One task per round, not per unit: a round's runs are compared with each other as runs that shared
a machine's minute (pagelab.evidence.intervals), and nodes of one cluster differ (Maricq et al.,
OSDI 2018), so a round split over nodes would pair runs that share nothing. The array's task ids
are the round numbers. A resume resubmits every round with a unit not done, whole
(pagelab.sweep.plan.blocks_not_done): its done units are marked pending again and rerun with it.
`--no-requeue`: a task Slurm requeued after a node failure would find its round part-done on the
dead node; the round waits for a resume instead, which reruns it whole.

Files it adds to the bundle:

    slurm/unit.sh, slurm/report.sh    the job scripts (no password: the servers' live in their
                                      instances' client.cnf, 0600, never on a command line)
    slurm/unit-<array>_<task>.out     each task's output; slurm/report-<job>.out the report's
    sweep.json "slurm"                one entry per submission: job ids, units, time, sbatch arguments

`--exclusive` because a run must have its node to itself: two runs on one node would measure each
other; for the same reason a task may not span nodes, and `--slurm-args` that ask for more than one
node per task are refused. `afterany` because the report covers whatever finished, failed units
included (it names them). Each unit's server lives under the scratch directory, a node-local disk
(`--scratch`, required: on the shared filesystem the servers would measure the network), restored
from the page size's snapshot in the bundle.

A task's first step checks that its node sees the bundle (unit.sh, before Python starts): a node
that does not fails the task at once with a message in its output, and cancels the array's other
tasks, which would fail the same way.
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
from pagelab.sweep.run_unit import REDONE_ERROR
from pagelab.bundle import SweepRecord, now_iso

SLURM_DIR = "slurm"
# sbatch answers in well under a second; a controller that takes longer is down or overloaded.
SBATCH_TIMEOUT_S = 60
# Job states in which a submitted unit may still run or is running (squeue's long names).
ACTIVE_STATES = ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING")


# sbatch options that give one task more than one node: a round must run on one node.
MULTI_NODE_OPTIONS = ("--nodes", "-N")


@dataclass(frozen=True)
class Submission:
    array_job: str
    report_job: str
    units: tuple[int, ...]
    rounds: tuple[int, ...]

    def watch_lines(self, sweep_dir: Path) -> list[str]:
        rounds, units = len(self.rounds), len(self.units)
        return [f"round array job {self.array_job} ({rounds} round{'s' if rounds != 1 else ''}: "
                f"{array_spec(self.rounds)}; {units} unit{'s' if units != 1 else ''}, each round's on one node), "
                f"report job {self.report_job} (after the array)",
                f"watch:   squeue -j {self.array_job},{self.report_job}",
                f"history: sacct -j {self.array_job},{self.report_job} --format=JobID,State,ExitCode,NodeList,Elapsed",
                f"status:  {sweep_dir}/sweep.json; each task's output in {sweep_dir}/{SLURM_DIR}/",
                f"cancel:  scancel {self.array_job} {self.report_job}; then `pagelab sweep --resume {sweep_dir} "
                "--executor slurm --scratch DIR` reruns the rounds not done, each whole"]


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
    for position, word in enumerate(words):
        nodes = _nodes_asked(word, words[position + 1] if position + 1 < len(words) else "")
        if nodes is not None and nodes not in ("1", "1-1"):
            shown = f"{word} {nodes}" if word in MULTI_NODE_OPTIONS else word
            raise UsageError(f"--slurm-args: {shown} asks for {nodes} nodes per task, which would split a round over "
                             "several nodes; each task runs one round on one node, as its runs are compared with "
                             f"each other. Leave {shown} out")
    return words


def _nodes_asked(word: str, following: str) -> str | None:
    """The node count a word of sbatch's arguments asks for ('2', '1-3'), or None if it asks none:
    --nodes=N, --nodes N, -N N, -NN."""
    if word in MULTI_NODE_OPTIONS:
        return following
    if word.startswith("--nodes="):
        return word.split("=", 1)[1]
    if word.startswith("-N") and len(word) > 2:
        return word[2:].lstrip("=")
    return None


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


def unit_script(sweep_dir: Path, scratch: Path, report_job_name: str) -> str:
    """Array task k runs round k. Its first step, in the shell, checks that this node sees the
    bundle and pagelab's checkout. Slurm's own --output into the bundle would fail such a task
    before its script starts, with the reason only in slurmd's log, so Slurm writes to /dev/null
    and the script sends its output to BUNDLE/slurm/ once it knows it can. A node that cannot
    see them fails the task at once: the reason goes into the array job's Comment (squeue -o %k,
    scontrol show job), and the other tasks and the report job, which would fail the same way,
    are cancelled."""
    from pagelab.common.paths import PROJECT_ROOT

    bundle, plan = shlex.quote(str(sweep_dir)), shlex.quote(str(sweep_dir / "plan.json"))
    output = shlex.quote(str(sweep_dir / SLURM_DIR)) + '/unit-"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}".out'
    project = shlex.quote(str(PROJECT_ROOT / "lib" / "pagelab"))
    return (f"#!/bin/bash\n# One round of the sweep in {sweep_dir}: array task k runs round k of plan.json, its units\n"
            "# one after another on this node.\n"
            f"for needed in {plan} {project}; do\n"
            "  if [ ! -e \"$needed\" ]; then\n"
            "    why=\"pagelab: node $(hostname) cannot see $needed: every node must see the bundle and pagelab's "
            "checkout at the same path, on a shared filesystem; nothing ran\"\n"
            "    echo \"$why\" >&2\n"
            "    scontrol update JobId=\"$SLURM_ARRAY_JOB_ID\" Comment=\"$why\"\n"
            f"    scancel --name={shlex.quote(report_job_name)}\n"
            "    scancel \"$SLURM_ARRAY_JOB_ID\"\n"
            "    exit 2\n"
            "  fi\n"
            "done\n"
            f"exec >>{output} 2>&1\n"
            f"{_python_command()} run-unit {bundle} --round \"$SLURM_ARRAY_TASK_ID\" "
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


def submit(record: SweepRecord, blocks: dict[int, list[Unit]], slurm_args: list[str], scratch: Path,
           max_running: int | None = None, report_args: list[str] | None = None) -> Submission:
    """Queue the rounds (one array task each) and the report; returns their job ids. The done
    units of a round that is not complete are marked pending: the round reruns whole, on one node.
    Refuses while an earlier submission of this bundle still has jobs in the queue (the same unit
    must never run twice at once)."""
    sweep_dir = record.directory.resolve()
    if not blocks:
        raise UsageError(f"every unit of {sweep_dir} is done; nothing to submit")
    if max_running is not None and max_running < 1:
        raise UsageError(f"--slurm-max-running must be at least 1, got {max_running}")
    refuse_while_queued(sweep_dir, record.document.get("slurm", []))
    scratch = Path(scratch).resolve()
    folder = sweep_dir / SLURM_DIR
    folder.mkdir(exist_ok=True)
    name = f"pagelab-{sweep_dir.name}"
    (folder / "unit.sh").write_text(unit_script(sweep_dir, scratch, f"{name}-report"))
    (folder / "report.sh").write_text(report_script(sweep_dir, report_args or []))
    rounds = tuple(blocks)
    indices = tuple(unit.index for units in blocks.values() for unit in units)
    throttle = f"%{max_running}" if max_running else ""
    # The round reruns whole: its finished runs are redone with it (marked before the array is
    # queued, so that no task meets them; put back if nothing could be submitted).
    redone = {unit.name: dict(record.run(unit.name)) for units in blocks.values() for unit in units
              if record.run(unit.name)["status"] == "done"}
    for unit_name, entry in redone.items():
        record.update_run(unit_name, status="pending", finished=None,
                          error=REDONE_ERROR.format(round=entry.get('round')))
    try:
        array_job = _sbatch([f"--array={array_spec(rounds)}{throttle}", "--exclusive", "--no-requeue",
                             f"--job-name={name}", "--output=/dev/null", *slurm_args,
                             str(folder / "unit.sh")])
    except PagelabError as error:
        for unit_name, entry in redone.items():
            record.update_run(unit_name, status="done", finished=entry.get("finished"), error=None)
        raise PagelabError(f"{error}\nNothing was submitted; the bundle is ready: once Slurm takes jobs, "
                           f"pagelab sweep --resume {sweep_dir} --executor slurm --scratch {scratch}") from None
    try:
        report_job = _sbatch([f"--dependency=afterany:{array_job}", f"--job-name={name}-report",
                              f"--output={folder}/report-%j.out", *slurm_args, str(folder / "report.sh")])
    except PagelabError as error:
        raise PagelabError(f"{error}\nThe rounds are submitted (array job {array_job}), the report is not: once "
                           f"they have ended, run: sbatch {folder / 'report.sh'}") from None
    submission = Submission(array_job, report_job, indices, rounds)
    record.update_document(slurm=record.document.get("slurm", []) + [
        {"array_job": array_job, "report_job": report_job, "rounds": list(rounds), "units": list(indices),
         "submitted": now_iso(), "sbatch_args": slurm_args, "scratch": str(scratch)}])
    return submission
