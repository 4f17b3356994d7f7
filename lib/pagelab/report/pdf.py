"""Executed notebook -> report PDF, printed by the system Chromium.

nbconvert's own `webpdf` exporter prints through Playwright's private Chromium download, which
cannot be fetched on the machines this project runs on, and `--to pdf` needs a LaTeX install. So
the report is made in two plain steps that only need the Debian `chromium` package:

1. `notebook_to_html()` (pagelab.report.print_html): the notebook as one self-contained page,
   no code and no prompts, with the print CSS and an optional title page;
2. `notebook_to_pdf()`, here: `chromium --headless --print-to-pdf` on that HTML
   (pagelab.report.browser), with a fresh profile, no network and a timeout. The PDF is written
   under a temporary name next to the target and renamed only once it is a complete PDF, so an
   interrupted or failed export never leaves a half-written file under the final name; the work
   directory of an export killed outright (its pid is in its name) is removed by the next export
   to that PDF.

Checking the pages that result is pagelab.report.pdf_pages' (poppler's `pdftoppm`). Nothing here
knows about pagelab's experiments: the input is any notebook.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from pagelab.common.errors import PagelabError, UsageError
from pagelab.common.processes import process_alive
from pagelab.report.browser import chromium_command, kill_group, require_browser, stderr_tail
from pagelab.report.print_html import notebook_to_html

DEFAULT_TIMEOUT_S = 180


def is_complete_pdf(path: Path) -> bool:
    """A PDF's header and its end-of-file marker are there: what an interrupted print or a disk that
    failed under the file leaves is not."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(5)
            f.seek(max(0, size - 2048))
            tail = f.read()
    except OSError:
        return False
    return head == b"%PDF-" and b"%%EOF" in tail




def notebook_to_pdf(
    notebook_path: str | os.PathLike,
    pdf_path: str | os.PathLike,
    title: str | None = None,
    title_rows: list[tuple[str, str]] | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Path:
    """Print an executed notebook to `pdf_path` as a report (no code cells) and return its path.

    Raises UsageError for a missing or unreadable notebook, MissingDependencyError when there is
    no Chromium, and PagelabError (with the tail of Chromium's stderr) when printing fails or
    takes longer than `timeout_s`. On any failure, and on Ctrl-C, `pdf_path` is left as it was.
    """
    notebook_path = Path(notebook_path)
    pdf_path = Path(pdf_path).absolute()
    if not notebook_path.is_file():
        raise UsageError(f"notebook not found: {notebook_path}")
    browser = require_browser()
    page = notebook_to_html(notebook_path, title=title, title_rows=title_rows)

    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    # Everything temporary lives beside the target: the rename is then atomic (same filesystem),
    # and a snap-packaged browser, which cannot see the caller's /tmp, can still read and write it.
    _remove_abandoned_work(pdf_path)
    work = Path(tempfile.mkdtemp(prefix=f".{pdf_path.name}.{os.getpid()}.", suffix=".tmp", dir=pdf_path.parent))
    proc: subprocess.Popen | None = None
    try:
        html_path = work / "report.html"
        html_path.write_text(page, encoding="utf-8")
        partial = work / "report.pdf"
        profile = work / "profile"
        profile.mkdir()
        stderr_path = work / "chromium.stderr"
        cmd = chromium_command(browser, html_path, partial, profile)

        with open(stderr_path, "wb") as stderr:
            # stderr to a file, not a pipe: helper processes that outlive the browser would hold a
            # pipe open and block the read.
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                cwd=work,
                start_new_session=True,
            )
            try:
                returncode = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                kill_group(proc.pid, work)
                proc.wait()
                raise PagelabError(
                    f"chromium did not finish printing {notebook_path} within {timeout_s:g} s "
                    f"(raise timeout_s for a very large report); its last output:\n"
                    f"{stderr_tail(stderr_path.read_text(errors='replace'))}"
                ) from None
            finally:
                kill_group(proc.pid, work)

        # D-Bus and GPU complaints on stderr, or a non-zero exit after the file was written, are
        # normal in containers: the PDF itself decides.
        if not is_complete_pdf(partial):
            what = "wrote no PDF" if not partial.exists() else "wrote an incomplete or non-PDF file"
            raise PagelabError(
                f"chromium ({browser}) {what} for {notebook_path} (exit status {returncode}); "
                f"its last output:\n{stderr_tail(stderr_path.read_text(errors='replace'))}"
            )
        os.replace(partial, pdf_path)
        return pdf_path
    except BaseException:
        if proc is not None and proc.poll() is None:
            kill_group(proc.pid, work)
            proc.wait()
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _remove_abandoned_work(pdf_path: Path) -> None:
    """Work directories of exports whose process is gone (killed with -9 mid-print: nothing ran
    their cleanup), found by the pid in their name; another live export's is left alone."""
    for candidate in pdf_path.parent.glob(f".{pdf_path.name}.*.tmp"):
        pid_text = candidate.name[len(pdf_path.name) + 2:].split(".", 1)[0]
        if pid_text.isdigit() and not process_alive(int(pid_text)):
            shutil.rmtree(candidate, ignore_errors=True)


def check_pdf_path(pdf_path: Path) -> Path:
    """The PDF's path, its directory created; a UsageError naming the problem if it cannot be written
    there. Called before any run starts, and again before the report is written."""
    if pdf_path.is_dir():
        raise UsageError(f"--pdf {pdf_path} is a directory; give a file name, e.g. {pdf_path / 'report.pdf'}")
    check_writable_directory(pdf_path.parent, "--pdf's directory")
    return pdf_path


def check_writable_directory(directory: Path, what: str) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{what} {directory} cannot be created ({error.strerror}); choose another path") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"{what} {directory} is not writable; choose another path")
