"""The sweep's report step: the report notebook executed over the bundle, printed without code
into BUNDLE/report.pdf behind a title page, and copied into reports/.

    BUNDLE/report.ipynb   the executed report notebook (notebooks/tpcc_page_size_report.ipynb)
    BUNDLE/report.pdf     its PDF: the title page (title_rows), then the notebook's text and figures
    reports/<bundle name>-<6 hex digits of its path>.pdf   a copy, or the --pdf path given

sweep.json's "report" names the last report made; "report_step" is kept only for the sweep's own
report step (`sweep_step`), whose time `pagelab plan` counts, never for a later `pagelab report`.
"""

from __future__ import annotations

import time
from pathlib import Path

from pagelab.bundle import REPORT_STEP, SweepRecord, now_iso, report_step, write_components
from pagelab.common.atomic import atomic_write_bytes
from pagelab.common.errors import MissingDependencyError, PagelabError, UsageError
from pagelab.common.paths import NOTEBOOKS_DIR, PROJECT_ROOT, REPORTS_DIR
from pagelab.report.execute import execute_notebook
from pagelab.report.pdf import check_pdf_path
from pagelab.tpcc.modes import mode_named

REPORT_NOTEBOOK = NOTEBOOKS_DIR / "tpcc_page_size_report.ipynb"
REPORT_PDF = "report.pdf"


def execute_report(record: SweepRecord, pdf_path: Path | None = None, author: str = "", title: str = "",
                   affiliation: str = "", notes: str = "", between_cells=None, sweep_step: bool = False) -> Path:
    """Execute the report notebook over the sweep and print it without code cells into the bundle
    (BUNDLE/report.pdf), with a copy at `pdf_path`, or else in reports/ named after the bundle and
    its location, so two bundles of one name never overwrite each other's report. Returns the
    bundle's PDF; the record's "report" names it and its copy. `sweep_step`: this is the sweep's
    own report step (not a later `pagelab report`), whose time the record keeps (bundle.REPORT_STEP)."""
    started = time.time()
    from pagelab.report.pdf import notebook_to_pdf

    sweep_dir = record.directory
    if not any(entry["status"] == "done" for entry in record.runs):
        raise PagelabError(f"{sweep_dir} has no finished run to report on")
    if notes and not Path(notes).is_file():
        raise UsageError(f"--notes {notes}: no such file; give a Markdown file of your own notes")
    copy_path = check_pdf_path(Path(pdf_path)) if pdf_path else None
    pdf_path = Path(sweep_dir) / REPORT_PDF
    notebook = sweep_dir / "report.ipynb"
    write_components(record)  # the variance components the report's verdicts and a planner read
    execute_notebook(REPORT_NOTEBOOK, notebook,
                     parameters={"sweep_dir": str(sweep_dir), "title": title, "author": author,
                                 "affiliation": affiliation, "notes": str(Path(notes).resolve()) if notes else ""},
                     cwd=PROJECT_ROOT, execution_timeout=1800, between_cells=between_cells)
    if between_cells is not None:
        between_cells()  # a stop swallowed in the notebook's last cell (pagelab.sweep.stop_signals)
    try:
        notebook_to_pdf(notebook, pdf_path, title=title or DEFAULT_REPORT_TITLE,
                        title_rows=title_rows(record, author, affiliation))
    except PagelabError as exc:
        if type(exc) not in (MissingDependencyError, PagelabError):  # a storage fault, bad input: as they are
            raise
        # no browser, or one that does not print (on Ubuntu, chromium-browser's stub for the snap)
        raise type(exc)(f"{exc}\nNo PDF was written, and nothing else is lost: every finished run is kept, and the "
                        f"report itself is executed in {notebook}. Once a browser prints (`pagelab doctor` checks "
                        f"it), `pagelab sweep --resume {sweep_dir}` writes the PDF and finishes the sweep.") from exc
    copy = copy_pdf(pdf_path, copy_path) if copy_path else reports_copy(sweep_dir, pdf_path)
    record.document["report"] = {"notebook": "report.ipynb", "pdf": str(pdf_path), "copy": str(copy),
                                 "written": now_iso()}
    if sweep_step:
        record.document[REPORT_STEP] = report_step(started, time.time())
    record.save()
    return pdf_path


DEFAULT_REPORT_TITLE = "The effect of InnoDB page size on TPC-C: a reproduction of the Week 4 lab"


def reports_copy(sweep_dir: Path, pdf_path: Path) -> Path:
    """reports/<bundle name>-<6 hex digits of its absolute path>.pdf, a copy of the bundle's PDF."""
    import hashlib

    digest = hashlib.sha1(str(Path(sweep_dir).resolve()).encode()).hexdigest()[:6]
    REPORTS_DIR.mkdir(parents=True, exist_ok=True)
    return copy_pdf(pdf_path, REPORTS_DIR / f"{Path(sweep_dir).name}-{digest}.pdf")


def copy_pdf(source: Path, target: Path) -> Path:
    """A whole copy or none (pagelab.common.atomic)."""
    if target.resolve() != Path(source).resolve():
        atomic_write_bytes(target, Path(source).read_bytes())
    return target


def title_rows(record: SweepRecord, author: str = "", affiliation: str = "",
               rendering: tuple[str | None, bool | None] | None = None) -> list[tuple[str, str]]:
    """The title page: who, when the sweep ran (the date to cite) and when the report was made, what
    profile (with each `--set`, said as set for this sweep) and driver, which pagelab ran the sweep and,
    where it differs, which made the report, and how many runs. `rendering`: the commit making the
    report (git_revision's sha and dirty); by default the running pagelab's."""
    from pagelab.machine.system import git_revision, version_naming
    from pagelab.report.references import recorded_version
    from pagelab.sweep.profiles import profile_from_dict

    profile = profile_from_dict(record.document["profile"])
    machine = record.document["machine"]
    overrides = list(record.document["profile"].get("overrides") or [])
    # The profile's first sentence: what it is for. With a --set it describes another sweep (its
    # duration, its over-time runs), so the title page names the knobs set instead.
    first_line = " ".join(profile.description.split()).split(". ")[0].split(" -- ")[0] if profile.description else ""
    # The title page is plain text: the comment's Markdown code quotes would print as backticks.
    first_line = first_line.removeprefix(f"{profile.name}:").strip().replace("`", "")
    name = record.document.get("profile_name") or profile.name
    shown = (f"{name}, with {', '.join(overrides)} (set for this sweep)" if overrides else
             f"{name}" + (f" ({first_line})" if first_line else ""))
    sha, dirty = rendering if rendering is not None else git_revision()
    made = version_naming(sha, dirty)
    ran = recorded_version(machine)
    rows = [("Author", author), ("Affiliation", affiliation),
            ("Sweep ran", sweep_dates(record)),
            ("Report made", time.strftime("%Y-%m-%d", time.gmtime())),  # UTC, as the sweep's dates
            ("Profile", shown),
            ("Driver", mode_named(profile.driver_mode).title),
            ("Runs finished", f"{sum(e['status'] == 'done' for e in record.runs)} of {len(record.runs)}"),
            ("pagelab (sweep)" if not ran.startswith(made + " ") else "pagelab", ran),
            ("pagelab (report)", "" if ran.startswith(made + " ") else
             f"{made} ({f'commit {sha}: ' if sha else ''}the code that computed this report's verdicts and words)"),
            ("Bundle", bundle_name(record))]
    return [(key, value) for key, value in rows if value]


def bundle_name(record: SweepRecord) -> str:
    """The sweep id sweep.json records (the name to quote), and, when the bundle was moved or copied
    to a directory of another name, that directory too: the reports/ copy is named after it."""
    sweep_id = str(record.document.get("sweep_id") or "")
    folder = record.directory.name
    if not sweep_id or folder == sweep_id:
        return sweep_id or folder
    return f"{sweep_id} (the sweep id, to quote; this report was made from a copy in {folder}/)"


def sweep_dates(record: SweepRecord) -> str:
    """'2026-11-28 22:24 to 23:12 UTC (the date to cite)': from sweep.json's creation to its last run's
    end, as recorded; the creation date alone when no run has finished, '' when neither is recorded."""
    import datetime

    def parsed(text):
        try:
            return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z").astimezone(datetime.timezone.utc)
        except (TypeError, ValueError):
            return None

    created = parsed(record.document.get("created"))
    ends = [t for t in (parsed(e.get("finished")) for e in record.runs) if t is not None]
    if created is None:
        return ""
    if not ends:
        return f"{created:%Y-%m-%d} (the date to cite)"
    end = max(ends)
    until = f"{end:%H:%M}" if end.date() == created.date() else f"{end:%Y-%m-%d %H:%M}"
    return f"{created:%Y-%m-%d %H:%M} to {until} UTC (the date to cite)"
