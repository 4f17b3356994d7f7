"""A private two-node Slurm cluster for tests: Debian's slurm-wlm and munge, started as root
from a temporary directory, stopped again by whoever started it.

Each node is a slurmd in a network and UTS namespace of its own, made here (`ip netns add`, then
`unshare --uts`): its host name is the node's name, and its only addresses are its loopback and
one address in a benchmarking test range (198.18.0.0/15, RFC 2544) on a veth pair whose other end
is on a bridge of the host's, where slurmctld listens. The namespaces have no route but that
subnet's, so their traffic goes only to loopback, the other node and the controller. munged, the
controller and the bundles stay on the host; the nodes share its filesystem (the bundle's shared
directory), except HIDDEN below, which node-b's own mount namespace covers with an empty
directory: a bundle there is one that node-b cannot see.

    DIR/munge/       munge.key (made here), munged's socket, pid, log and seed files
    DIR/slurm.conf   the cluster: node-a and node-b, one partition
    DIR/state/       slurmctld's StateSaveLocation
    DIR/spool/<node> each slurmd's SlurmdSpoolDir
    DIR/log/         slurmctld.log, slurmd-<node>.log
    DIR/hidden/      visible on the host and node-a, empty on node-b

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
NODES = ("node-a", "node-b")
# The benchmarking range (RFC 2544): no real network uses it. Each cluster takes one /24 of it.
TEST_RANGE_PREFIX = "198.18"
# The node whose mount namespace hides DIR/hidden.
BLIND_NODE = "node-b"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _node_hardware() -> str:
    """`slurmd -C`'s first line without its NodeName: CPUs, sockets, cores, threads, memory."""
    line = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    return " ".join(word for word in line.split() if not word.startswith("NodeName="))


def slurm_conf(directory: Path, controller: str, nodes: dict[str, str], ports: tuple[int, int]) -> str:
    """slurm.conf: the controller at `controller`'s address, each node {name: address}."""
    ctld_port, slurmd_port = ports
    hardware = _node_hardware()
    return "\n".join([
        "ClusterName=pagelabtest",
        f"SlurmctldHost={socket.gethostname().split('.')[0]}({controller})",
        f"SlurmctldPort={ctld_port}",
        f"SlurmdPort={slurmd_port}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={directory / 'munge' / 'munge.socket'}",
        f"StateSaveLocation={directory / 'state'}",
        f"SlurmdSpoolDir={directory / 'spool'}/%n",
        f"SlurmctldPidFile={directory / 'slurmctld.pid'}",
        f"SlurmdPidFile={directory / 'spool'}/slurmd-%n.pid",
        f"SlurmctldLogFile={directory / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={directory / 'log'}/slurmd-%n.log",
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
        # a node that stopped answering comes back by itself when its slurmd registers again; one
        # set DOWN by `scontrol update` stays down until it is resumed, as on a real cluster
        "ReturnToService=1",
        # the tests wait on the scheduler: look at the queue often rather than every 60 s
        "SchedulerParameters=sched_interval=2",
        "MinJobAge=300",
        # a job on a node set DOWN gets SIGTERM and this long before SIGKILL
        "KillWait=30",
        *[f"NodeName={name} NodeAddr={address} {hardware} State=UNKNOWN" for name, address in nodes.items()],
        f"PartitionName=test Nodes={','.join(nodes)} Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE",
        "",
    ])


def _ip(*argv: str) -> None:
    done = subprocess.run(["ip", *argv], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(argv)} failed: {done.stderr.strip()}")


def _free_subnet() -> str:
    """'198.18.N' for a /24 of the test range that no interface of the host uses yet."""
    used = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, check=True).stdout
    for _ in range(100):
        candidate = f"{TEST_RANGE_PREFIX}.{secrets.randbelow(254) + 1}"
        if f" {candidate}." not in used:
            return candidate
    raise RuntimeError(f"no free /24 in {TEST_RANGE_PREFIX}.0.0/16 for the test cluster")


@dataclass
class Cluster:
    directory: Path
    tag: str = field(default_factory=lambda: secrets.token_hex(3))  # this cluster's links and namespaces
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    addresses: dict[str, str] = field(default_factory=dict)  # node -> its address; "controller" too

    nodes = NODES

    @property
    def conf(self) -> Path:
        return self.directory / "slurm.conf"

    @property
    def hidden(self) -> Path:
        """A directory the host and node-a see, and node-b does not (its own mount covers it)."""
        return self.directory / "hidden"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    @property
    def bridge(self) -> str:
        return f"plbr{self.tag}"

    def namespace(self, node: str) -> str:
        return f"pagelab-{self.tag}-{node}"

    def log(self, name: str) -> str:
        path = self.directory / "log" / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else f"(no {path})"

    def start(self) -> "Cluster":
        for name in ("munge", "state", "log", "hidden", "empty", *(f"spool/{node}" for node in self.nodes)):
            (self.directory / name).mkdir(parents=True, exist_ok=True)
        munge = self.directory / "munge"
        os.chmod(munge, 0o700)
        key = munge / "munge.key"
        key.write_bytes(secrets.token_bytes(MUNGE_KEY_BYTES))
        os.chmod(key, 0o400)
        try:
            self._network_up()
            nodes = {node: self.addresses[node] for node in self.nodes}
            self.conf.write_text(slurm_conf(self.directory, self.addresses["controller"], nodes,
                                            (_free_port(), _free_port())))
            self._spawn("munged", ["munged", "--foreground", "--force", f"--key-file={key}",
                                   f"--socket={munge / 'munge.socket'}", f"--pid-file={munge / 'munged.pid'}",
                                   f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}"])
            self._wait(lambda: (munge / "munge.socket").exists(), "munged", munge / "munged.log")
            self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", str(self.conf)])
            self._wait(self._controller_answers, "slurmctld", self.directory / "log" / "slurmctld.log")
            for node in self.nodes:
                self._spawn(f"slurmd-{node}", self._node_command(node))
            for node in self.nodes:
                self._wait(lambda: self.node_state(node).startswith("idle"), f"slurmd-{node}",
                           self.directory / "log" / f"slurmd-{node}.log")
        except BaseException:
            self.stop()
            raise
        return self

    def _network_up(self) -> None:
        """A bridge on the host with the controller's address, and per node a namespace joined to
        it by a veth pair; no route out of the subnet."""
        subnet = _free_subnet()
        self.addresses["controller"] = f"{subnet}.1"
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{subnet}.1/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for number, node in enumerate(self.nodes, start=2):
            namespace, outside, inside = self.namespace(node), f"pl{self.tag}{node[-1]}", f"pl{self.tag}{node[-1]}n"
            self.addresses[node] = f"{subnet}.{number}"
            _ip("netns", "add", namespace)
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
            _ip("link", "set", inside, "netns", namespace)
            _ip("link", "set", outside, "master", self.bridge)
            _ip("link", "set", outside, "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
            _ip("-n", namespace, "addr", "add", f"{self.addresses[node]}/24", "dev", inside)
            _ip("-n", namespace, "link", "set", inside, "up")

    def _node_command(self, node: str) -> list[str]:
        """slurmd in the node's network namespace and in a UTS namespace whose host name is the
        node's, with a mount namespace of its own (slave to the host's: the host's mounts still
        reach it). Not `ip netns exec`, which remounts /sys and so hides the cgroup filesystem
        slurmd reads at start."""
        steps = [f"hostname {node}"]
        if node == BLIND_NODE:
            steps.append(f"mount --bind {self.directory / 'empty'} {self.hidden}")
        steps.append(f"exec slurmd -D -N {node} -f {self.conf}")
        return ["nsenter", f"--net=/run/netns/{self.namespace(node)}", "--", "unshare", "--uts", "--mount",
                "--propagation", "slave", "--", "sh", "-c", " && ".join(steps)]

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

    def node_state(self, node: str) -> str:
        return self.run("sinfo", "-h", "-n", node, "-o", "%T", check=False).stdout.strip()

    def resume_node(self, node: str) -> None:
        """A node set DOWN back in service, idle again."""
        self.run("scontrol", "update", f"nodename={node}", "state=resume", check=False)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.node_state(node).startswith("idle"):
            assert time.monotonic() < deadline, f"{node} did not come back: {self.node_state(node)}"
            time.sleep(0.5)

    def jobs(self) -> list[str]:
        return self.run("squeue", "-h", "-o", "%i %T", check=False).stdout.split("\n")

    def stop(self) -> None:
        """Cancel every job, then stop the slurmds, slurmctld and munged; kill what does not exit;
        then remove the namespaces and the bridge."""
        if "slurmctld" in self.processes and self.processes["slurmctld"].poll() is None:
            self.run("scancel", "--full", "--user", "root", check=False)
            deadline = time.monotonic() + STOP_TIMEOUT_S
            while any(line.strip() for line in self.jobs()) and time.monotonic() < deadline:
                time.sleep(0.5)
        for name in [f"slurmd-{node}" for node in self.nodes] + ["slurmctld", "munged"]:
            process = self.processes.get(name)
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=STOP_TIMEOUT_S)
        for pid in leftover_daemons(self.directory) + self._namespace_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for node in self.nodes:
            subprocess.run(["ip", "netns", "del", self.namespace(node)], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)

    def _namespace_pids(self) -> list[int]:
        pids = []
        for node in self.nodes:
            found = subprocess.run(["ip", "netns", "pids", self.namespace(node)], capture_output=True, text=True)
            pids += [int(pid) for pid in found.stdout.split() if pid.isdigit()]
        return pids

    def leftover_network(self) -> list[str]:
        """This cluster's namespaces and bridge, where they still exist."""
        namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
        return [name for name in [self.namespace(node) for node in self.nodes] if name in namespaces] + \
            ([self.bridge] if f" {self.bridge}:" in links else [])


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
    missing = [program for program in ("munged", "slurmctld", "slurmd", "sbatch", "ip", "nsenter", "unshare")
               if shutil.which(program) is None]
    if missing:
        raise RuntimeError(f"{', '.join(missing)} not found: `make setup` installs slurm-wlm and munge")
