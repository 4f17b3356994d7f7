"""The report exporter end to end: a small notebook executed by papermill, printed by the real
system Chromium, and read back with poppler (pdftoppm, pdftotext).

The notebook is executed and exported once per module; the failure tests reuse the executed
notebook and are fast (a timeout of a fraction of a second, or a stand-in browser that fails).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from pagelab.report import browser as chromium
from pagelab.report import pdf, pdf_pages, print_html
from pagelab.common.errors import MissingDependencyError, PagelabError, UsageError
from pagelab.report.execute import execute_notebook

CAPTURED_KERNEL_LOGS = Path(__file__).parent / "fixtures" / "captured" / "ipykernel"
TITLE = "Page-size sweep smoke report"
TITLE_ROWS = [("Profile", "smoke"), ("Machine", "2 cores, 7.8 GiB, virtio_blk vda, ext4")]
MARKDOWN_TITLE = "InnoDB page size and TpmC"
TABLE_VALUE = "31337.25"  # one TpmC value of the DataFrame below
HIDDEN_MARKER = "THIS-CELL-IS-TAGGED-REMOVE"
STDERR_MARKER = "noisy-library-warning"

CELLS = [
    ("markdown", f"# {MARKDOWN_TITLE}\n\nReproduces the Week 4 lab's comparison on a toy table."),
    (
        "code",
        "import pandas as pd\n"
        "import sys\n"
        f"print('{STDERR_MARKER}', file=sys.stderr)\n"
        "df = pd.DataFrame({'page_size': ['4k', '8k', '16k'],\n"
        f"                   'tpmc': [{TABLE_VALUE}, 28000.5, 25000.75]}})\n"
        "df",
    ),
    ("markdown", "## TpmC per page size"),
    (
        "code",
        "import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(figsize=(6, 3))\n"
        "ax.bar(df['page_size'], df['tpmc'], color='tab:blue')\n"
        "ax.set_ylabel('TpmC')\n"
        "plt.show()",
    ),
    ("code-hidden", f"print('{HIDDEN_MARKER}')"),
]
CODE_SNIPPETS = ("import pandas", "plt.subplots", "pd.DataFrame", "ax.bar")


def _kernel_name() -> str:
    from jupyter_client.kernelspec import KernelSpecManager

    specs = KernelSpecManager().find_kernel_specs()
    for name in ("python3", "pagelab"):
        if name in specs:
            return name
    pytest.fail(f"no Jupyter kernel to execute the test notebook (have {sorted(specs)}); run `make setup`")


def _require_tools() -> None:
    missing = [name for name in ("pdftoppm", "pdftotext") if shutil.which(name) is None]
    if chromium.find_browser() is None:
        missing.append("chromium")
    if missing:
        pytest.fail(f"the report tests need {', '.join(missing)}: run `make setup` (apt: chromium poppler-utils)")


def _pages_text(pdf_path: Path) -> list[str]:
    """The text of each page (pdftotext separates pages with a form feed)."""
    pages = pdf_pages.pdf_text(pdf_path).split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _leftovers(directory: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


@pytest.fixture(scope="module")
def executed_notebook(tmp_path_factory) -> Path:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    _require_tools()
    cells = []
    for kind, source in CELLS:
        if kind == "markdown":
            cells.append(new_markdown_cell(source))
        elif kind == "code-hidden":
            cells.append(new_code_cell(source, metadata={"tags": ["remove-cell"]}))
        else:
            cells.append(new_code_cell(source))
    work = tmp_path_factory.mktemp("notebook")
    source_nb = work / "report_in.ipynb"
    executed = work / "report.ipynb"
    nbformat.write(new_notebook(cells=cells), source_nb)
    execute_notebook(source_nb, executed, kernel_name=_kernel_name(), cwd=work)
    return executed


@pytest.fixture(scope="module")
def exported(executed_notebook, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pdf") / "reports" / "smoke.pdf"  # parent made by the exporter
    # how long the export takes is a figure of bench/bench_report.py, not a test's assertion
    return pdf.notebook_to_pdf(executed_notebook, out, title=TITLE, title_rows=TITLE_ROWS)


@pytest.fixture(scope="module")
def report_pdf(exported) -> Path:
    return exported


def test_export_writes_a_pdf_in_place_and_nothing_else(report_pdf):
    assert report_pdf.is_file()
    assert report_pdf.read_bytes()[:5] == b"%PDF-"
    assert _leftovers(report_pdf.parent, {report_pdf.name}) == []  # no temp dir, html or partial left


def test_pages_render_to_non_blank_images(report_pdf, tmp_path):
    pages = pdf_pages.pdf_page_images(report_pdf, tmp_path / "pages", dpi=50)
    assert len(pages) >= 2  # the title page, then the report
    assert [p.name for p in pages] == sorted((p.name for p in pages), key=lambda n: int(re.findall(r"\d+", n)[0]))
    blank = [p.name for p in pages if pdf_pages.is_blank(p)]
    assert blank == []


def test_pages_are_a4(report_pdf):
    import subprocess

    if shutil.which("pdfinfo") is None:
        pytest.fail("pdfinfo is not installed: run `make setup` (it installs poppler-utils)")
    info = subprocess.run(["pdfinfo", str(report_pdf)], capture_output=True, text=True, check=True).stdout
    assert "(A4)" in info


def test_pdf_has_the_markdown_and_the_table_but_no_code(report_pdf):
    text = pdf_pages.pdf_text(report_pdf)
    assert MARKDOWN_TITLE in text
    assert "TpmC per page size" in text
    assert TABLE_VALUE in text
    assert "page_size" in text  # the table's header
    for code in CODE_SNIPPETS:
        assert code not in text, f"code leaked into the report: {code!r}"
    assert "In [" not in text and "Out[" not in text  # no prompts


def test_stderr_and_cells_tagged_remove_are_left_out(report_pdf):
    text = pdf_pages.pdf_text(report_pdf)
    assert HIDDEN_MARKER not in text
    assert STDERR_MARKER not in text


def test_title_page_stands_alone_with_its_rows(report_pdf):
    pages = _pages_text(report_pdf)
    first = pages[0]
    assert TITLE in first
    for key, value in TITLE_ROWS:
        assert re.search(rf"{re.escape(key)}\s+{re.escape(value)}", first), (key, value, first)
    assert MARKDOWN_TITLE not in first  # the page break holds
    assert MARKDOWN_TITLE in "".join(pages[1:])


def test_the_figure_page_carries_more_ink_than_text_alone(report_pdf, tmp_path):
    pages = pdf_pages.pdf_page_images(report_pdf, tmp_path / "pages", dpi=50)
    # The title page holds two lines and a small table; the next holds a table and a bar chart.
    assert pdf_pages.ink_fraction(pages[1]) > 2 * pdf_pages.ink_fraction(pages[0])


def test_html_has_no_code_and_no_network_needed(executed_notebook):
    page = print_html.notebook_to_html(executed_notebook)
    for code in CODE_SNIPPETS:
        assert code not in page
    assert "data:image/png;base64," in page  # the figure is embedded, not linked
    assert "<section class=\"pagelab-title-page\"" not in page  # no title page unless asked for


def test_missing_browser_names_the_fix(executed_notebook, tmp_path, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv(chromium.BROWSER_ENV, str(tmp_path / "no-such-chromium"))
    assert chromium.find_browser() is None
    assert chromium.browser_version() is None
    out = tmp_path / "out.pdf"
    with pytest.raises(MissingDependencyError) as err:
        pdf.notebook_to_pdf(executed_notebook, out)
    assert "PAGELAB_CHROMIUM" in str(err.value)
    assert "apt-get install chromium" in str(err.value)
    assert not out.exists()

    monkeypatch.delenv(chromium.BROWSER_ENV)
    with pytest.raises(MissingDependencyError, match=r"no Chromium found.*sudo apt-get install chromium"):
        pdf.notebook_to_pdf(executed_notebook, out)
    assert not out.exists()


def test_timeout_kills_chromium_and_leaves_no_file(executed_notebook, tmp_path):
    out_dir = tmp_path / "reports"
    out_dir.mkdir()
    out = out_dir / "late.pdf"
    with pytest.raises(PagelabError, match="did not finish"):
        pdf.notebook_to_pdf(executed_notebook, out, timeout_s=0.05)
    assert not out.exists()
    assert _leftovers(out_dir, set()) == []
    assert _processes_mentioning(str(out_dir)) == []  # no browser process left behind


def test_failed_export_keeps_the_previous_pdf(executed_notebook, tmp_path):
    out = tmp_path / "kept.pdf"
    out.write_bytes(b"%PDF-1.4 the previous report\n%%EOF\n")
    before = out.read_bytes()
    with pytest.raises(PagelabError):
        pdf.notebook_to_pdf(executed_notebook, out, timeout_s=0.05)
    assert out.read_bytes() == before
    assert _leftovers(tmp_path, {"kept.pdf"}) == []


def _stand_in_browser(tmp_path: Path, body: str) -> Path:
    """A program in place of Chromium that fails the way a broken browser would."""
    script = tmp_path / "broken-chromium"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_browser_failure_reports_its_stderr(executed_notebook, tmp_path, monkeypatch):
    browser = _stand_in_browser(
        tmp_path,
        "echo '[1:1:ERROR:bus.cc] Failed to connect to the bus' >&2\n"
        "echo 'FATAL: cannot open shared object libnss3.so' >&2\nexit 3\n",
    )
    monkeypatch.setenv(chromium.BROWSER_ENV, str(browser))
    out = tmp_path / "out" / "r.pdf"
    with pytest.raises(PagelabError) as err:
        pdf.notebook_to_pdf(executed_notebook, out)
    message = str(err.value)
    assert "wrote no PDF" in message and "exit status 3" in message
    assert "libnss3.so" in message
    assert "bus.cc" not in message  # noise is filtered from the tail
    assert not out.exists()
    assert _leftovers(out.parent, set()) == []


def test_a_non_pdf_output_is_refused(executed_notebook, tmp_path, monkeypatch):
    browser = _stand_in_browser(
        tmp_path,
        'for a in "$@"; do case "$a" in --print-to-pdf=*) printf "<html>oops" > "${a#--print-to-pdf=}";; esac; done\n',
    )
    monkeypatch.setenv(chromium.BROWSER_ENV, str(browser))
    out = tmp_path / "r.pdf"
    with pytest.raises(PagelabError, match="non-PDF"):
        pdf.notebook_to_pdf(executed_notebook, out)
    assert not out.exists()


def test_missing_notebook_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="notebook not found"):
        pdf.notebook_to_pdf(tmp_path / "nope.ipynb", tmp_path / "x.pdf")
    assert not (tmp_path / "x.pdf").exists()


def test_browser_is_found_and_reports_its_version():
    _require_tools()
    browser = chromium.find_browser()
    assert browser is not None and os.access(browser, os.X_OK)
    version = chromium.browser_version(browser)
    assert version and re.search(r"(Chromium|Chrome)\D*\d+\.\d+", version), version


def test_is_blank_tells_a_white_page_from_one_with_text(tmp_path):
    from PIL import Image, ImageDraw

    white = Image.new("RGB", (413, 585), "white")
    white.save(tmp_path / "white.png")
    numbered = white.copy()
    ImageDraw.Draw(numbered).text((200, 570), "2 / 9", fill="black")  # a bare page number
    numbered.save(tmp_path / "numbered.png")
    heading = white.copy()
    ImageDraw.Draw(heading).rectangle((30, 40, 330, 60), fill="black")  # a heading's worth of ink
    heading.save(tmp_path / "heading.png")
    assert pdf_pages.is_blank(tmp_path / "white.png")
    assert pdf_pages.is_blank(tmp_path / "numbered.png")
    assert not pdf_pages.is_blank(tmp_path / "heading.png")


# --- `pagelab report NOTEBOOK`: any of the project's notebooks as a PDF --------------------------


def test_any_notebook_becomes_a_pdf_that_opens_with_its_findings(tmp_path):
    from tests.conftest import pagelab_here  # in-process: the notebook runs in a kernel of its own anyway

    target = tmp_path / "writes.pdf"
    done = pagelab_here("report", "notebooks/random_write_cost.ipynb",
                        "-p", "page_sizes", "[4096, 8192]", "-p", "transactions", "200",
                        "-p", "items_per_transaction", "20", "-p", "sqlite", "false", "--pdf", target)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "random_write_cost.ipynb").is_file()
    text = " ".join(pdf_pages.pdf_text(target).split())
    assert "Findings" in text and "pages per transaction with sequential keys" in text
    assert text.index("Findings") < text.index("The prototype: the Voron post's workload"), "findings come first"
    assert "import pandas" not in text and "run_random_write_cost" not in text  # no code


def test_a_notebook_parameter_it_does_not_have_is_refused_before_running(tmp_path):
    from tests.conftest import pagelab_here

    done = pagelab_here("report", "notebooks/random_write_cost.ipynb", "-p", "transaction", "200",
                        "--pdf", tmp_path / "x.pdf")
    assert done.returncode == 2
    assert "has no parameter transaction" in done.stderr and "transactions" in done.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("captured, kept", [
    ("shutdown-interrupt.kernel.log", False),  # the interrupt jupyter_client sends before every shutdown
    ("handler-exception.kernel.log", True),  # a sweep stopped by Ctrl-C mid-reply: a traceback worth keeping
])
def test_a_kernel_log_is_kept_only_when_it_says_more_than_the_shutdown(captured, kept, tmp_path):
    from pagelab.report.execute import remove_if_only_shutdown_noise

    log = tmp_path / "run.kernel.log"
    log.write_bytes((CAPTURED_KERNEL_LOGS / captured).read_bytes())
    remove_if_only_shutdown_noise(log)
    assert log.exists() == kept


def test_libzmqs_assertion_at_shutdown_is_noise_only_after_every_cell_ran(tmp_path):
    """libzmq's "Assertion failed: pfd.revents & POLLIN (src/signaler.cpp:…)", captured from a smoke sweep's
    report kernel in CI after its notebook had finished: noise then, and kept when the notebook did not finish
    (the kernel's death would be what stopped it)."""
    from pagelab.report.execute import remove_if_only_shutdown_noise

    log = tmp_path / "report.kernel.log"
    captured = (CAPTURED_KERNEL_LOGS / "zmq-assertion-at-shutdown.kernel.log").read_bytes()
    assert captured.startswith(b"Assertion failed: pfd.revents & POLLIN")
    log.write_bytes(captured)
    remove_if_only_shutdown_noise(log, completed=False)
    assert log.exists()
    remove_if_only_shutdown_noise(log, completed=True)
    assert not log.exists()


def test_an_empty_kernel_log_is_removed_and_a_missing_one_is_no_error(tmp_path):
    from pagelab.report.execute import remove_if_only_shutdown_noise

    log = tmp_path / "run.kernel.log"
    remove_if_only_shutdown_noise(log)
    log.write_text("")
    remove_if_only_shutdown_noise(log)
    assert not log.exists()


def _figure_then_long_text_notebook(path: Path) -> Path:
    """An executed notebook, its outputs written in: a paragraph of text, then one code cell whose
    outputs are a heading, a figure a third of a page tall and a caption with a page and a half of
    lines after it, as the report's IOPS cell has (a figure, then its caption and the pair lines)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300" viewBox="0 0 600 300">'
           '<rect x="10" y="10" width="580" height="280" fill="#36c"/></svg>')
    line = "A pair line of the family, long enough to wrap across the page's width at the report's font size. " * 3
    cell = new_code_cell("", outputs=[
        new_output("display_data", {"text/markdown": "### A section"}),
        new_output("display_data", {"image/svg+xml": svg}),
        new_output("display_data", {"text/markdown": "**Figure 1.** The caption.\n\n"
                                    + "\n".join(f"- {i}: {line}" for i in range(12))})])
    filler = new_markdown_cell("Text before the figure. " * 40)
    nbformat.write(new_notebook(cells=[filler, cell]), path)
    return path


def test_no_page_is_left_nearly_blank_by_a_figure_and_its_long_caption(tmp_path):
    # A cell kept whole on one page (and JupyterLab's print CSS keeps each output whole) moved to the
    # next page when it was taller than the room left, and left a nearly blank page behind (the course
    # report's pages 10 and 12). Every page but the last must be filled at least 60% of the way down.
    _require_tools()
    out = pdf.notebook_to_pdf(_figure_then_long_text_notebook(tmp_path / "nb.ipynb"), tmp_path / "r.pdf")
    pages = pdf_pages.pdf_page_images(out, tmp_path / "pages", dpi=40)
    filled = [round(pdf_pages.filled_height(page), 2) for page in pages]
    assert len(filled) >= 2, filled
    assert all(height >= 0.6 for height in filled[:-1]), filled
    # the figure keeps its caption: "Figure 1." is on the figure's page
    pages_text = _pages_text(out)
    assert any("A section" in text and "Figure 1." in text for text in pages_text), pages_text
