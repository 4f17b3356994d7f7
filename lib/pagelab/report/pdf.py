"""Executed notebook -> report PDF, printed by the system Chromium.

nbconvert's own `webpdf` exporter prints through Playwright's private Chromium download, which
cannot be fetched on the machines this project runs on, and `--to pdf` needs a LaTeX install. So
the report is made in two plain steps that only need the Debian `chromium` package:

1. `notebook_to_html()`: nbconvert's HTMLExporter (the `lab` template) with every code input and
   every prompt left out, so the page holds the markdown, the tables (pandas HTML) and the figures
   (base64 PNGs embedded in the notebook). An optional title page and print CSS (A4, margins,
   page numbers, nothing wider than the page, figures and tables not split) are added.
2. `notebook_to_pdf()`: `chromium --headless --print-to-pdf` on that HTML, with a fresh profile,
   no network and a timeout. The PDF is written under a temporary name next to the target and
   renamed only once it is a complete PDF, so an interrupted or failed export never leaves a
   half-written file under the final name; the work directory of an export killed outright
   (its pid is in its name) is removed by the next export to that PDF.

`pdf_page_images()`, `is_blank()` and `filled_height()` (pagelab.report.pdf_pages, poppler's
`pdftoppm`) let tests check that the pages render to something and none is left nearly blank. `find_browser()` and `browser_version()` are for `pagelab doctor`.

Nothing here knows about pagelab's experiments: the input is any notebook.
"""

from __future__ import annotations

import copy
import html
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pagelab.common.errors import MissingDependencyError, PagelabError, UsageError
from pagelab.common.processes import kill_until_gone, process_alive, process_ids

BROWSER_ENV = "PAGELAB_CHROMIUM"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER_FIX = "install it with `sudo apt-get install chromium` (or `make setup`)"

DEFAULT_TIMEOUT_S = 180
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

# Notebook authors can keep a cell or its outputs out of the report with these cell tags.
REMOVE_CELL_TAGS = frozenset({"remove-cell", "remove_cell", "hide", "report-hide"})
REMOVE_OUTPUT_TAGS = frozenset({"remove-output", "remove_output", "hide-output"})

PRINT_CSS = """
@page {
  size: A4;
  margin: 16mm 14mm 18mm 14mm;
  @bottom-center { content: counter(page) " / " counter(pages); font-size: 8pt; color: #666; }
}
html, body { background: #fff !important; }
body {
  width: 182mm !important;  /* A4 minus the side margins, on screen too: see FIT_TABLES_JS */
  -webkit-print-color-adjust: exact;
  print-color-adjust: exact;
  margin: 0 !important;
  padding: 0 !important;
  font-size: 10.5pt;
}
body.jp-Notebook, main { padding: 0 !important; margin: 0 !important; max-width: 100% !important; }
.jp-Cell { padding: 0 !important; margin: 0 0 4mm 0 !important; }
.jp-Cell-outputWrapper, .jp-OutputArea, .jp-OutputArea-child, .jp-OutputArea-output {
  overflow: visible !important;
  max-width: 100% !important;
}
.jp-OutputArea-output { padding: 0 !important; }
.jp-RenderedMarkdown, .jp-MarkdownOutput, .jp-RenderedHTMLCommon { padding-left: 0 !important; }
.jp-Collapser, .jp-InputPrompt, .jp-OutputPrompt { display: none !important; }
img, svg { max-width: 100% !important; height: auto !important; }
.jp-RenderedImage, .jp-RenderedSVG, figure, img, svg {
  page-break-inside: avoid; break-inside: avoid;
}
table {
  max-width: 100% !important;
  font-size: 8.5pt !important;
  border-collapse: collapse;
  page-break-inside: avoid; break-inside: avoid;
}
thead { display: table-header-group; }
tr, td, th { page-break-inside: avoid; break-inside: avoid; }
td, th { padding: 2px 6px !important; }
pre { white-space: pre-wrap !important; overflow-wrap: anywhere; font-size: 8.5pt; }
h1, h2, h3, h4 { page-break-after: avoid; break-after: avoid; }
/* Text breaks between lines (never fewer than 3 on either side); a figure, a table and a list item stay
   whole, a heading stays with what follows it, a figure with its caption below and a caption with its
   table below. Neither a whole cell nor a whole output is kept on one page (JupyterLab's print CSS keeps
   each output whole): one taller than the room left moves whole to the next page and leaves a nearly
   blank page behind, as a figure followed by its caption and a family's pair lines did. */
.jp-CodeCell, .jp-OutputArea-child { page-break-inside: auto; break-inside: auto !important; }
p, li { orphans: 3; widows: 3; }
li { page-break-inside: avoid; break-inside: avoid; }
.jp-OutputArea-child:has(.jp-RenderedImage, .jp-RenderedSVG),
.jp-OutputArea-child:has(h2, h3, h4):not(:has(p, li, table, img)),
.jp-OutputArea-child:has(+ .jp-OutputArea-child table) { page-break-after: avoid; break-after: avoid; }

.pagelab-title-page {
  page-break-after: always;
  break-after: page;
  padding-top: 60mm;
}
.pagelab-title-page h1 { font-size: 24pt; margin-bottom: 14mm; }
.pagelab-title-page table { font-size: 11pt !important; border: none; }
.pagelab-title-page th, .pagelab-title-page td {
  text-align: left !important;
  vertical-align: top;
  padding: 3px 16px 3px 0 !important;
  border: none;
  border-bottom: 1px solid #ddd;
}
.pagelab-title-page th { font-weight: 600; white-space: nowrap; }
"""

# A table wider than the page (pandas with many columns) is fitted to it: its headers may wrap
# after an underscore (new_order_p95_ms), then it is scaled down, but never below half size (past
# that nothing can be read; a report should select its columns). The page is laid out at the
# printed width (the body's width in PRINT_CSS), so what is measured after loading holds when
# Chromium prints.
FIT_TABLES_JS = """
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('table').forEach(function (table) {
    var avail = (table.parentElement || document.body).clientWidth;
    if (!(avail > 0) || table.scrollWidth <= avail) return;
    table.querySelectorAll('th').forEach(function (th) {
      var walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
      var texts = [];
      while (walker.nextNode()) texts.push(walker.currentNode);
      texts.forEach(function (node) {
        var parts = node.nodeValue.split('_');
        if (parts.length < 2) return;
        var frag = document.createDocumentFragment();
        parts.forEach(function (part, i) {
          frag.appendChild(document.createTextNode(i < parts.length - 1 ? part + '_' : part));
          if (i < parts.length - 1) frag.appendChild(document.createElement('wbr'));
        });
        node.parentNode.replaceChild(frag, node);
      });
    });
    var need = table.scrollWidth;
    if (need > avail) table.style.zoom = Math.max(0.5, avail / need).toFixed(3);
  });
});
"""


# --------------------------------------------------------------------------------------------
# The browser


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


# --------------------------------------------------------------------------------------------
# Notebook -> HTML


def _report_copy(nb):
    """A copy of the notebook without what a report reader should not see: cells tagged
    remove-cell, outputs of cells tagged remove-output, and stderr streams (warnings, progress
    bars). Error outputs stay: a failed cell must show in the report."""
    nb = copy.deepcopy(nb)
    kept = []
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & REMOVE_CELL_TAGS:
            continue
        if cell.cell_type == "code":
            if tags & REMOVE_OUTPUT_TAGS:
                cell.outputs = []
            else:
                cell.outputs = [
                    out
                    for out in cell.get("outputs", [])
                    if not (out.get("output_type") == "stream" and out.get("name") == "stderr")
                ]
        kept.append(cell)
    nb.cells = kept
    return nb


def _title_page_html(title: str | None, title_rows: Sequence[tuple[str, str]] | None) -> str:
    parts = ['<section class="pagelab-title-page">']
    if title:
        parts.append(f"<h1>{html.escape(title)}</h1>")
    if title_rows:
        parts.append("<table>")
        for key, value in title_rows:
            parts.append(
                f"<tr><th>{html.escape(str(key))}</th><td>{html.escape(str(value))}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</section>")
    return "\n".join(parts)


def _read_notebook(notebook_path: Path):
    import nbformat

    if not notebook_path.is_file():
        raise UsageError(f"notebook not found: {notebook_path}")
    try:
        return nbformat.read(str(notebook_path), as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types for unreadable files
        raise UsageError(f"{notebook_path} is not a readable Jupyter notebook: {exc}") from exc


def notebook_to_html(
    notebook_path: str | os.PathLike,
    title: str | None = None,
    title_rows: Sequence[tuple[str, str]] | None = None,
) -> str:
    """The notebook as one self-contained HTML page for printing: markdown, tables and figures,
    no code and no prompts, with a title page when `title` or `title_rows` is given."""
    from nbconvert import HTMLExporter

    notebook_path = Path(notebook_path)
    nb = _report_copy(_read_notebook(notebook_path))
    exporter = HTMLExporter(
        template_name="lab",
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    name = title or notebook_path.stem
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": name}})

    style = (
        f'<style type="text/css" media="all">{PRINT_CSS}</style>\n'
        f"<script>{FIT_TABLES_JS}</script>"
    )
    body, n = re.subn(r"</head>", lambda m: style + "\n</head>", body, count=1, flags=re.IGNORECASE)
    if n == 0:
        body = style + body
    if title or title_rows:
        page = _title_page_html(title, title_rows)
        body, n = re.subn(r"<body[^>]*>", lambda m: m.group(0) + "\n" + page, body, count=1, flags=re.IGNORECASE)
        if n == 0:
            body = page + body
    return body


# --------------------------------------------------------------------------------------------
# HTML -> PDF


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


def _stderr_tail(raw: str) -> str:
    lines = [line for line in raw.splitlines() if line.strip()]
    useful = [line for line in lines if not STDERR_NOISE.search(line)]
    chosen = (useful or lines)[-STDERR_TAIL_LINES:]
    return "\n".join("  " + line for line in chosen) if chosen else "  (chromium printed nothing)"


def _kill_group(pgid: int, work: Path) -> None:
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
                _kill_group(proc.pid, work)
                proc.wait()
                raise PagelabError(
                    f"chromium did not finish printing {notebook_path} within {timeout_s:g} s "
                    f"(raise timeout_s for a very large report); its last output:\n"
                    f"{_stderr_tail(stderr_path.read_text(errors='replace'))}"
                ) from None
            finally:
                _kill_group(proc.pid, work)

        # D-Bus and GPU complaints on stderr, or a non-zero exit after the file was written, are
        # normal in containers: the PDF itself decides.
        if not is_complete_pdf(partial):
            what = "wrote no PDF" if not partial.exists() else "wrote an incomplete or non-PDF file"
            raise PagelabError(
                f"chromium ({browser}) {what} for {notebook_path} (exit status {returncode}); "
                f"its last output:\n{_stderr_tail(stderr_path.read_text(errors='replace'))}"
            )
        os.replace(partial, pdf_path)
        return pdf_path
    except BaseException:
        if proc is not None and proc.poll() is None:
            _kill_group(proc.pid, work)
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


# --------------------------------------------------------------------------------------------
# Checking the result: pagelab.report.pdf_pages, its names kept here for the callers that use them

from pagelab.report.pdf_pages import (  # noqa: E402,F401
    FOOTER_FROM,
    POPPLER_FIX,
    filled_height,
    ink_fraction,
    is_blank,
    pdf_page_images,
    pdf_text,
)


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
