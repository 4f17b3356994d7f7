"""The Chromium that prints the report: finding it, its version, the command line, and what is
left of it after a print.

The report is printed by the system's Chromium (the Debian `chromium` package), never by a browser
a library downloads (pagelab.report.pdf says why). `find_browser()` and `browser_version()` are also
`pagelab doctor`'s. A print runs the browser in a session of its own with a fresh profile, no network
and a timeout; `kill_group()` ends every process of that session, and any that names the print's work
directory, before the print returns. Chromium's stderr is mostly noise in containers (no D-Bus, no
GPU): `stderr_tail()` keeps the lines that may say why a print failed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

from pagelab.common.errors import MissingDependencyError
from pagelab.common.processes import kill_until_gone, process_ids

BROWSER_ENV = "PAGELAB_CHROMIUM"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER_FIX = "install it with `sudo apt-get install chromium` (or `make setup`)"

KILL_WAIT_S = 5  # how long a killed browser's processes get to be gone (a bound, not a pause)
VERSION_TIMEOUT_S = 20

# Chromium >= 112 knows --no-pdf-header-footer; older versions only --print-to-pdf-no-header.
# Each version ignores the flag it does not know, so both are passed.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",  # required when running as root (containers, CI)
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-pdf-header-footer",
    "--print-to-pdf-no-header",
    # The report is self-contained (images are embedded): refuse every host name, so the CDN
    # scripts nbconvert's template links (MathJax, require.js) fail at once instead of waiting on
    # a network that may be firewalled.
    "--host-resolver-rules=MAP * ~NOTFOUND",
)

# Chromium's stderr lines that say nothing about the export (no D-Bus in containers, no GPU, ...).
STDERR_NOISE = re.compile(
    r"dbus|bus\.cc|object_proxy|gpu|gl_|egl|vaapi|viz_main|sandbox|fontconfig|"
    r"bytes written to file|unexpected operator|DevTools listening|GCM|"
    r"Fontconfig|libva|zygote|shared_image|command_buffer",
    re.IGNORECASE,
)
STDERR_TAIL_LINES = 15


def _which(name_or_path: str) -> Path | None:
    found = shutil.which(name_or_path)
    return Path(found) if found else None


def find_browser() -> Path | None:
    """The Chromium to print with: $PAGELAB_CHROMIUM if set (a path or a name on PATH), else the
    first of chromium, chromium-browser, google-chrome, google-chrome-stable on PATH. None when
    there is none (or when $PAGELAB_CHROMIUM names nothing runnable)."""
    override = os.environ.get(BROWSER_ENV, "").strip()
    if override:
        return _which(override)
    for name in BROWSER_NAMES:
        found = _which(name)
        if found:
            return found
    return None


def require_browser() -> Path:
    """find_browser(), or MissingDependencyError saying what to install or which variable is wrong."""
    browser = find_browser()
    if browser is not None:
        return browser
    override = os.environ.get(BROWSER_ENV, "").strip()
    if override:
        raise MissingDependencyError(
            f"{BROWSER_ENV}={override!r} is not an executable program; point it at a Chromium or "
            f"Chrome binary, or unset it and {BROWSER_FIX}"
        )
    raise MissingDependencyError(
        f"no Chromium found to print the report PDF (looked for {', '.join(BROWSER_NAMES)} on PATH, "
        f"and ${BROWSER_ENV}): {BROWSER_FIX}"
    )


def browser_version(browser: str | os.PathLike | None = None) -> str | None:
    """The browser's own version line, e.g. 'Chromium 120.0.6099.224 built on Debian ...'; None
    when there is no browser or it does not answer."""
    path = Path(browser) if browser is not None else find_browser()
    if path is None:
        return None
    try:
        done = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    for line in done.stdout.splitlines():
        if re.search(r"\d+\.\d+", line):
            return line.strip()
    return None


def chromium_command(browser: Path, html_path: Path, pdf_path: Path, profile_dir: Path) -> list[str]:
    """The full command line that prints `html_path` to `pdf_path`."""
    return [
        str(browser),
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile_dir}",
        f"--print-to-pdf={pdf_path}",
        html_path.resolve().as_uri(),
    ]



def stderr_tail(raw: str) -> str:
    lines = [line for line in raw.splitlines() if line.strip()]
    useful = [line for line in lines if not STDERR_NOISE.search(line)]
    chosen = (useful or lines)[-STDERR_TAIL_LINES:]
    return "\n".join("  " + line for line in chosen) if chosen else "  (chromium printed nothing)"


def kill_group(pgid: int, work: Path) -> None:
    """Kill what is left of the browser we started and return once it is gone. It runs in its own
    session, so its group holds its own processes (zygote, renderers, crashpad); any process whose
    command line names this export's own work directory is its too, wherever it put itself. A
    SIGKILL takes effect when the process next runs, so without the wait a process killed a moment
    ago (seen once in a suite, a browser stopped 0.05 s after its start) could outlive the return."""
    needle = str(work).encode()

    def ours(pid: int) -> bool:
        try:
            in_group = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2]) == pgid
            return in_group or needle in Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            return False

    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    kill_until_gone(lambda: [pid for pid in process_ids() if ours(pid)], KILL_WAIT_S)

