"""A private single-node Slurm cluster for tests: Debian's slurm-wlm and munge, started as root
from a temporary directory, stopped again by whoever started it.

    DIR/munge/       munge.key (made here), munged's socket, pid, log and seed files
    DIR/slurm.conf   the cluster: this host as its only node, one partition
    DIR/state/       slurmctld's StateSaveLocation
    DIR/spool/       slurmd's SlurmdSpoolDir
    DIR/log/         slurmctld.log, slurmd.log

Nothing here touches /etc/slurm, /etc/munge or the system's munged: the clients find this
cluster through SLURM_CONF, and slurm.conf's AuthInfo names this munged's socket. The settings
avoid cgroups (which a container or a CI machine may not delegate): process tracking by
process group, no task plugin, no job accounting.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

# munged refuses a key shorter than 32 bytes; 1024 is what mungekey makes by default.
MUNGE_KEY_BYTES = 1024
# slurmctld and slurmd are up in 1-3 s here; the rest is headroom for a busy 2-core machine.
START_TIMEOUT_S = 60.0
# A daemon gets this long after SIGTERM to exit before it is killed.
STOP_TIMEOUT_S = 20.0
DAEMONS = ("munged", "slurmctld", "slurmd", "slurmstepd")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _node_hardware() -> str:
    """`slurmd -C`'s first line without its NodeName: CPUs, sockets, cores, threads, memory."""
    line = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    return " ".join(word for word in line.split() if not word.startswith("NodeName="))


def slurm_conf(directory: Path, node: str, ports: tuple[int, int]) -> str:
    ctld_port, slurmd_port = ports
    return "\n".join([
        "ClusterName=pagelabtest",
        f"SlurmctldHost={node}(127.0.0.1)",
        f"SlurmctldPort={ctld_port}",
        f"SlurmdPort={slurmd_port}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={directory / 'munge' / 'munge.socket'}",
        f"StateSaveLocation={directory / 'state'}",
        f"SlurmdSpoolDir={directory / 'spool'}",
        f"SlurmctldPidFile={directory / 'slurmctld.pid'}",
        f"SlurmdPidFile={directory / 'slurmd.pid'}",
        f"SlurmctldLogFile={directory / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={directory / 'log' / 'slurmd.log'}",
        "SlurmctldDebug=info",
        "SlurmdDebug=info",
        # no cgroups: track a job's processes by their process group, bind no tasks
        "ProctrackType=proctrack/pgid",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "SwitchType=switch/none",
        "SchedulerType=sched/backfill",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        # a node that was down comes back by itself when its slurmd registers
        "ReturnToService=2",
        # the tests wait on the scheduler: look at the queue often rather than every 60 s
        "SchedulerParameters=sched_interval=2",
        "MinJobAge=300",
        f"NodeName={node} NodeAddr=127.0.0.1 {_node_hardware()} State=UNKNOWN",
        f"PartitionName=test Nodes={node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE",
        "",
    ])


@dataclass
class Cluster:
    directory: Path
    node: str = field(default_factory=lambda: socket.gethostname().split(".")[0])
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def conf(self) -> Path:
        return self.directory / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def log(self, name: str) -> str:
        path = self.directory / "log" / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else f"(no {path})"

    def start(self) -> "Cluster":
        for name in ("munge", "state", "spool", "log"):
            (self.directory / name).mkdir(parents=True, exist_ok=True)
        munge = self.directory / "munge"
        os.chmod(munge, 0o700)
        key = munge / "munge.key"
        key.write_bytes(secrets.token_bytes(MUNGE_KEY_BYTES))
        os.chmod(key, 0o400)
        self.conf.write_text(slurm_conf(self.directory, self.node, (_free_port(), _free_port())))
        try:
            self._spawn("munged", ["munged", "--foreground", "--force", f"--key-file={key}",
                                   f"--socket={munge / 'munge.socket'}", f"--pid-file={munge / 'munged.pid'}",
                                   f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}"])
            self._wait(lambda: (munge / "munge.socket").exists(), "munged", munge / "munged.log")
            self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", str(self.conf)])
            self._wait(self._controller_answers, "slurmctld", self.directory / "log" / "slurmctld.log")
            self._spawn("slurmd", ["slurmd", "-D", "-f", str(self.conf)])
            self._wait(self._node_idle, "slurmd", self.directory / "log" / "slurmd.log")
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn(self, name: str, argv: list[str]) -> None:
        output = open(self.directory / "log" / f"{name}.out", "w")
        self.processes[name] = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT, env=self.env,
                                                start_new_session=True)
        output.close()

    def _wait(self, ready, name: str, log: Path) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready():
            process = self.processes[name]
            if process.poll() is not None or time.monotonic() > deadline:
                out = (self.directory / "log" / f"{name}.out").read_text(errors="replace")[-3000:]
                text = log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"
                raise RuntimeError(f"{name} did not start (exit {process.poll()}):\n{out}\n{text}")
            time.sleep(0.3)

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(list(argv), capture_output=True, text=True, env=self.env, check=check, timeout=60)

    def _controller_answers(self) -> bool:
        return self.run("scontrol", "ping", check=False).stdout.count("UP") >= 1

    def _node_idle(self) -> bool:
        state = self.run("sinfo", "-h", "-n", self.node, "-o", "%T", check=False).stdout.strip()
        return state.startswith("idle")

    def jobs(self) -> list[str]:
        return self.run("squeue", "-h", "-o", "%i %T", check=False).stdout.split("\n")

    def stop(self) -> None:
        """Cancel every job, then stop slurmd, slurmctld and munged; kill what does not exit."""
        if "slurmctld" in self.processes and self.processes["slurmctld"].poll() is None:
            self.run("scancel", "--full", "--user", "root", check=False)
            deadline = time.monotonic() + STOP_TIMEOUT_S
            while any(line.strip() for line in self.jobs()) and time.monotonic() < deadline:
                time.sleep(0.5)
        for name in ("slurmd", "slurmctld", "munged"):
            process = self.processes.get(name)
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=STOP_TIMEOUT_S)
        for pid in leftover_daemons(self.directory):
            os.kill(pid, signal.SIGKILL)


def leftover_daemons(directory: Path) -> list[int]:
    """Slurm and munge processes started from `directory` (by their command line naming it), and
    any slurmstepd: job step managers name no configuration, and this machine runs no other Slurm."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        name = Path(argv[0]).name if argv and argv[0] else ""
        if state == "Z":
            continue
        if name.startswith("slurmstepd") or (name in DAEMONS and any(str(directory) in a for a in argv)):
            found.append(int(entry.name))
    return found


def require_slurm() -> None:
    """Fail loudly, naming the fix, when the packages are missing (never skip)."""
    missing = [program for program in ("munged", "slurmctld", "slurmd", "sbatch") if shutil.which(program) is None]
    if missing:
        raise RuntimeError(f"{', '.join(missing)} not found: `make setup` installs slurm-wlm and munge")
