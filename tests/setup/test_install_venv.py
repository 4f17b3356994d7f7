"""runbooks/setup/install-venv.sh: that uv is given what the machine's pip configuration says, and that
pip takes over when uv fails. The venv's python and uv are stand-ins that record their arguments
(a real install is what every `make setup` does, and CI's rehearsal on a bare Debian 12 does it from
nothing); the stand-in python answers `pip config list` with a configuration written here.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "runbooks" / "setup" / "install-venv.sh"

# The venv's python: `-m pip config list` prints $PIP_CONFIG_ANSWER; `-m pip install … uv` puts a uv
# into the venv that records its arguments and environment, and exits with $UV_EXIT; every call is logged.
STANDIN_PYTHON = r"""#!/bin/bash
venv=$(cd "$(dirname "$0")/.." && pwd)
echo "python $*" >> "$CALLS"
if [[ "$*" == "-m pip config list" ]]; then cat "$PIP_CONFIG_ANSWER"; exit 0; fi
if [[ "$*" == *"pip install"*" uv" ]]; then
  cat > "$venv/bin/uv" <<'UV'
#!/bin/bash
echo "uv $* SSL_CERT_FILE=${SSL_CERT_FILE:-} UV_NATIVE_TLS=${UV_NATIVE_TLS:-}" >> "$CALLS"
exit "$UV_EXIT"
UV
  chmod +x "$venv/bin/uv"
fi
exit 0
"""


def run_script(tmp_path: Path, pip_config: str, uv_exit: int = 0) -> tuple[subprocess.CompletedProcess, list[str]]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(STANDIN_PYTHON)
    python.chmod(0o755)
    answer = tmp_path / "pip-config"
    answer.write_text(pip_config)
    calls = tmp_path / "calls.log"
    env = {"PATH": os.environ["PATH"], "CALLS": str(calls), "PIP_CONFIG_ANSWER": str(answer), "UV_EXIT": str(uv_exit)}
    done = subprocess.run(["bash", str(SCRIPT), str(venv), "/bin/false"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    return done, calls.read_text().splitlines()


def test_uv_is_given_the_index_links_constraints_and_certificates_pip_is_configured_with(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("torch<=2\n")
    bundle = tmp_path / "ca.pem"
    bundle.write_text("")
    config = (f"global.index-url='https://mirror.invalid/simple'\n"
              f"global.extra-index-url='file:///no/such/index https://extra.invalid/simple'\n"
              f"global.constraint='{constraints}'\n"
              f":env:.find-links='{wheels}'\n"
              f"global.cert='{bundle}'\n"
              f":env:.default-timeout='180'\n")
    done, calls = run_script(tmp_path, config)
    assert done.returncode == 0, done.stderr
    uv = [call for call in calls if call.startswith("uv ")]
    assert len(uv) == 1, calls
    words = uv[0].split()
    assert words[words.index("--index-url") + 1] == "https://mirror.invalid/simple"
    assert words[words.index("--extra-index-url") + 1] == "https://extra.invalid/simple"
    assert "file:///no/such/index" not in words, "a local index that does not exist was passed on"
    assert words[words.index("--find-links") + 1] == str(wheels)
    assert words[words.index("--constraint") + 1] == str(constraints)
    assert words[words.index("--index-strategy") + 1] == "unsafe-best-match"
    assert f"SSL_CERT_FILE={bundle}" in words
    assert "-e" in words and ".[dev]" in words and "--compile-bytecode" in words
    assert not any("pip install --quiet -e .[dev]" in call for call in calls), "pip installed too"
    assert calls[-1].startswith("python -m ipykernel install"), "the kernel was not registered last"


def test_a_plain_pip_configuration_gives_uv_no_index_options(tmp_path):
    done, calls = run_script(tmp_path, "")
    assert done.returncode == 0, done.stderr
    words = next(call for call in calls if call.startswith("uv ")).split()
    for option in ("--index-url", "--extra-index-url", "--find-links", "--constraint", "--index-strategy"):
        assert option not in words
    assert "UV_NATIVE_TLS=1" in words


def test_when_uv_fails_pip_installs_and_says_why(tmp_path):
    done, calls = run_script(tmp_path, "", uv_exit=2)
    assert done.returncode == 0, done.stderr
    assert "python -m pip install --quiet -e .[dev]" in calls
    assert "uv could not install pagelab's dependencies" in done.stderr
    assert "installing them with pip instead" in done.stderr
