"""`make setup`'s OS step as on a bare machine: runbooks/setup/install-os-packages.sh and the Makefile's
order, with apt and dpkg replaced by the stand-ins in tests/setup/standins.

dpkg-query answers from a list of installed packages (none, some or all); apt-cache replays one
system's answers to `apt-cache policy` line by line, as the real one writes them (Debian 12's captured
on a bare bookworm root; Ubuntu 24.04's written to apt's format, as its archive could not be reached:
tests/fixtures/README.md); apt-get records its arguments and installs nothing. The Python whose venv
module and headers the script checks is /bin/false, as a fresh python3 has neither, so the lists are
a bare machine's on any host. A bare Debian 12 root itself is rehearsed by
runbooks/setup/rehearse-bare-machine.sh.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO_ROOT

SCRIPT = REPO_ROOT / "runbooks" / "setup" / "install-os-packages.sh"
STANDINS = Path(__file__).resolve().parent / "standins"
DEBIAN_12 = FIXTURES / "apt-cache-policy" / "debian-12"
UBUNTU_24_04 = REPO_ROOT / "tests" / "fixtures" / "written-to-format" / "ubuntu-24.04"
NOBODY = 65534

# What a bare machine lacks, in the order the script asks apt-get for it: the venv's build first,
# then `make demo`'s, then what only `make test` adds. Written out here, not read from the Makefile,
# so a package dropped from either list is seen.
BUILD = "python3-venv gcc libc6-dev libmariadb-dev libsqlite3-dev python3-dev"
DEMO_DEBIAN = "mariadb-server sysstat fio chromium poppler-utils"
DEMO_UBUNTU = "mariadb-server sysstat fio chromium-browser poppler-utils"
TEST_ONLY = "iproute2 slurm-wlm munge strace mmdebstrap"
INSTALL = "apt-get install -y -qq --no-install-recommends"


def makefile_list(name: str) -> str:
    """A package list as the Makefile declares it (`NAME := ...`)."""
    match = re.search(rf"^{name}\s*:=\s*(.+)$", (REPO_ROOT / "Makefile").read_text(), re.MULTILINE)
    assert match, f"the Makefile declares no {name}"
    return match.group(1).strip()


class Machine:
    """A directory every user can read, holding the stand-ins' state: which packages are installed,
    which system's apt answers to replay, and the log of apt-get's calls."""

    def __init__(self, root: Path, answers: Path, installed: str):
        self.root = root
        self.log = root / "calls.log"
        self.log.write_text("")
        self.log.chmod(0o666)
        (root / "installed").write_text(installed)
        shutil.copytree(answers, root / "answers")
        # Copied, as the clone may sit where `nobody` cannot enter (root's home).
        self.standins = shutil.copytree(STANDINS, root / "standins")
        self.env = {"PATH": f"{self.standins}:{os.environ['PATH']}", "LC_ALL": "C",
                    "STANDIN_INSTALLED": str(root / "installed"), "STANDIN_APT_ANSWERS": str(root / "answers"),
                    "STANDIN_LOG": str(self.log), "OS_RELEASE_FILE": str(root / "answers" / "os-release"),
                    "DEMO_PACKAGES": makefile_list("DEMO_PACKAGES"), "TEST_PACKAGES": makefile_list("TEST_PACKAGES"),
                    "PYTHON": "/bin/false"}

    def install(self, command: str, script: Path = SCRIPT, **run) -> subprocess.CompletedProcess:
        return subprocess.run(["/bin/bash", str(script), command], env=self.env, capture_output=True, text=True,
                              timeout=60, **run)

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines()


@pytest.fixture
def machine_dir():
    """A scratch directory the user `nobody` can enter too (pytest's own is root's alone)."""
    root = Path(tempfile.mkdtemp(prefix="pagelab-bare-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root)


def as_root() -> None:
    if os.geteuid() != 0:
        pytest.fail("needs root: the install script takes the root path only as root (make test runs as root)")


@pytest.mark.parametrize("answers, demo", [(DEBIAN_12, DEMO_DEBIAN), (UBUNTU_24_04, DEMO_UBUNTU)],
                         ids=["debian-12", "ubuntu-24.04"])
def test_a_bare_machine_gets_exactly_what_each_command_needs(machine_dir, answers, demo):
    as_root()
    bare = Machine(machine_dir, answers, installed="")
    done = bare.install("demo")
    assert done.returncode == 0, done.stderr
    assert bare.calls() == ["apt-get update -qq", f"{INSTALL} {BUILD} {demo}"]

    bare.log.write_text("")
    done = bare.install("test")
    assert done.returncode == 0, done.stderr
    assert bare.calls() == ["apt-get update -qq", f"{INSTALL} {BUILD} {demo} {TEST_ONLY}"]

    # Everything there: nothing asked of apt at all, and nothing said.
    bare.log.write_text("")
    (machine_dir / "installed").write_text("*\n")
    done = bare.install("test")
    assert (done.returncode, done.stdout, done.stderr, bare.calls()) == (0, "", "", [])


def test_the_apt_cache_stand_in_kills_a_reader_that_leaves_early(machine_dir):
    """The property the test above relies on: `apt-cache policy chromium | grep -q` under pipefail
    fails, every time, as it did on a fresh Debian 12; a reader of the whole answer gets all of it."""
    bare = Machine(machine_dir, DEBIAN_12, installed="")
    early = "set -o pipefail; apt-cache policy chromium | grep -q 'Candidate: [0-9]'; echo ${PIPESTATUS[*]}"
    for _ in range(3):
        assert subprocess.run(["/bin/bash", "-c", early], env=bare.env, capture_output=True, text=True,
                              timeout=30).stdout.split() == ["141", "0"]
    whole = subprocess.run(["apt-cache", "policy", "chromium", "fio"], env=bare.env, capture_output=True,
                           timeout=30)
    assert whole.returncode == 0
    assert whole.stdout == (DEBIAN_12 / "chromium.txt").read_bytes() + (DEBIAN_12 / "fio.txt").read_bytes()


def test_a_package_the_sources_lack_is_named_with_the_release_and_not_swapped(machine_dir):
    """Debian's sources without chromium: Debian has no installable chromium-browser (its captured
    answer has no candidate), so the script names chromium and the release, and installs nothing."""
    as_root()
    bare = Machine(machine_dir, DEBIAN_12, installed="")
    (machine_dir / "answers" / "chromium.txt").unlink()
    done = bare.install("demo")
    assert done.returncode == 1
    assert "no installation candidate for: chromium\n" in done.stderr
    assert "Debian GNU/Linux 12 (bookworm)" in done.stderr
    assert "chromium-browser" not in done.stdout + done.stderr
    assert bare.calls() == ["apt-get update -qq"]

    # An Ubuntu-like system whose sources have no chromium-browser either: the same, not a blind swap.
    (machine_dir / "answers" / "chromium-browser.txt").unlink()
    shutil.copy(UBUNTU_24_04 / "os-release", machine_dir / "answers" / "os-release")
    bare.log.write_text("")
    done = bare.install("demo")
    assert done.returncode == 1
    assert "no installation candidate for: chromium\n" in done.stderr
    assert "Ubuntu 24.04.3 LTS" in done.stderr
    assert bare.calls() == ["apt-get update -qq"]


def test_without_apt_get_the_missing_packages_and_the_command_are_named(machine_dir):
    bare = Machine(machine_dir, DEBIAN_12, installed="")
    tools = machine_dir / "bin"
    tools.mkdir()
    for standin in ("dpkg-query", "apt-cache"):
        (tools / standin).symlink_to(bare.standins / standin)
    (tools / "grep").symlink_to(shutil.which("grep"))  # which the dpkg-query stand-in reads its list with
    bare.env["PATH"] = str(tools)
    done = bare.install("demo")
    assert done.returncode == 1
    assert "this system has no apt-get" in done.stderr
    assert f"for make demo: {BUILD} {DEMO_DEBIAN}\n" in done.stderr
    assert f"install them with your package manager (Debian names):  {BUILD} {DEMO_DEBIAN} {TEST_ONLY}" in done.stderr


def _project_copy(root: Path) -> Path:
    """What `make setup` reads of the project (the Makefile, the install script and the venv stamp's
    inputs), copied where `nobody` can read it."""
    project = root / "project"
    makefile = (REPO_ROOT / "Makefile").read_text()
    stamp_inputs = re.search(r"^\$\(VENV_STAMP\):([^|\n]*)", makefile, re.MULTILINE).group(1).split()
    for relative in ["Makefile", "runbooks/setup/install-os-packages.sh", *stamp_inputs]:  # install-venv.sh is one
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_ROOT / relative, project / relative)
    return project


def _make_setup_as_nobody(bare: Machine) -> subprocess.CompletedProcess:
    """`make setup` by a user without root or sudo. The venv's python is the recording stand-in, so
    the venv's steps are seen in the log instead of a real pip install."""
    project = _project_copy(bare.root)
    venv = bare.root / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(bare.standins / "apt-get")
    for path in (project, venv):
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", path], check=True)
    return subprocess.run(["make", "--no-print-directory", "-C", str(project), "setup", f"VENV={venv}",
                           f"VPY={venv}/bin/python"],
                          env=bare.env | {"HOME": str(bare.root)}, capture_output=True, text=True, timeout=60,
                          user=NOBODY, group=NOBODY, extra_groups=[])


def test_a_user_without_root_gets_the_venv_and_is_told_what_an_administrator_installs(machine_dir):
    as_root()
    bare = Machine(machine_dir, DEBIAN_12, installed="\n".join(BUILD.split()))
    done = _make_setup_as_nobody(bare)
    assert done.returncode != 0
    assert "apt-get" not in " ".join(bare.calls())
    # uv is fetched into the venv first; the stand-in gives none, so pip builds the venv instead.
    assert "python -m pip install --quiet --disable-pip-version-check uv" in bare.calls()
    assert "python -m pip install --quiet -e .[dev]" in bare.calls(), "the venv was not built"
    assert (machine_dir / "venv" / ".pagelab-installed").exists()
    assert "this user cannot install them (not root, and no sudo without a password)" in done.stderr
    assert "for make setup" not in done.stderr
    assert f"for make demo: {DEMO_DEBIAN}\n" in done.stderr
    assert f"for make test: {DEMO_DEBIAN} {TEST_ONLY}\n" in done.stderr
    assert f"sudo apt-get install -y  {DEMO_DEBIAN} {TEST_ONLY}\n" in done.stderr


def test_a_user_without_root_or_the_build_packages_is_told_the_venv_needs_them(machine_dir):
    as_root()
    bare = Machine(machine_dir, DEBIAN_12, installed="")
    done = _make_setup_as_nobody(bare)
    assert done.returncode != 0
    assert bare.calls() == [], "the venv was built without its compiler and headers"
    assert f"for make setup (to build the venv): {BUILD}\n" in done.stderr
    assert "the venv cannot be built before the packages for make setup are installed" in done.stderr


REHEARSAL = REPO_ROOT / "runbooks" / "setup" / "rehearse-bare-machine.sh"


def test_the_rehearsal_without_root_says_so_and_does_nothing(machine_dir):
    as_root()
    script = machine_dir / REHEARSAL.name
    shutil.copy(REHEARSAL, script)
    before = set(Path("/var/tmp").glob("pagelab-rehearsal.*"))
    done = subprocess.run(["/bin/bash", str(script)], capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "REHEARSAL_CACHE": str(machine_dir / "cache")},
                          user=NOBODY, group=NOBODY, extra_groups=[])
    assert done.returncode == 1
    assert "rehearse: needs root" in done.stderr
    assert set(Path("/var/tmp").glob("pagelab-rehearsal.*")) == before
    assert not (machine_dir / "cache").exists()


def test_the_rehearsal_without_mmdebstrap_says_what_to_install(machine_dir):
    as_root()
    tools = machine_dir / "bin"
    tools.mkdir()
    for program in ("id", "dirname"):
        (tools / program).symlink_to(shutil.which(program))
    done = subprocess.run(["/bin/bash", str(REHEARSAL)], capture_output=True, text=True, timeout=60,
                          env={"PATH": str(tools), "REHEARSAL_CACHE": str(machine_dir / "cache")})
    assert done.returncode == 1
    assert "rehearse: needs mmdebstrap: apt-get install mmdebstrap" in done.stderr
    assert not (machine_dir / "cache").exists()
