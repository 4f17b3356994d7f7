"""How long the report PDF takes: papermill execution of a report-sized notebook, then each step of
the export (notebook -> HTML, Chromium print, pdftoppm check).

The notebook has a markdown title, a table and N figures (seaborn-free, plain matplotlib, so the
numbers are about the exporter). Usage:

    .venv/bin/python bench/bench_report.py [--figures 8] [--repeats 3] [--kernel python3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from pagelab.report import browser as chromium
from pagelab.report import pdf, pdf_pages, print_html
from pagelab.report.execute import execute_notebook


def build(figures: int) -> nbformat.NotebookNode:
    cells = [
        new_markdown_cell("# Report benchmark\n\nA table and some figures."),
        new_code_cell(
            "import numpy as np, pandas as pd, matplotlib.pyplot as plt\n"
            "rng = np.random.default_rng(1)\n"
            "df = pd.DataFrame({'t_s': np.arange(120) * 10, 'tpmc': rng.normal(30000, 900, 120)})\n"
            "df.describe()"
        ),
    ]
    for i in range(figures):
        cells.append(new_markdown_cell(f"## Figure {i + 1}"))
        cells.append(
            new_code_cell(
                "fig, ax = plt.subplots(figsize=(8, 3.5))\n"
                "ax.plot(df['t_s'], df['tpmc'] * rng.uniform(0.8, 1.2))\n"
                f"ax.set_title('series {i + 1}')\nplt.show()"
            )
        )
    return new_notebook(cells=cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kernel", default="python3")
    args = parser.parse_args()

    print(f"browser: {chromium.browser_version() or 'none found'}")
    with tempfile.TemporaryDirectory(prefix="pagelab-bench-report-") as scratch:
        work = Path(scratch)
        nbformat.write(build(args.figures), work / "in.ipynb")
        started = time.perf_counter()
        execute_notebook(work / "in.ipynb", work / "out.ipynb", kernel_name=args.kernel)
        print(f"papermill execute ({args.figures} figures): {time.perf_counter() - started:6.2f} s")

        print(f"{'repeat':>6} {'html s':>7} {'pdf s':>7} {'pages':>5} {'render s':>8} {'KB':>6}")
        for repeat in range(1, args.repeats + 1):
            started = time.perf_counter()
            print_html.notebook_to_html(work / "out.ipynb", title="Bench", title_rows=[("Profile", "bench")])
            html_s = time.perf_counter() - started
            started = time.perf_counter()
            written = pdf.notebook_to_pdf(
                work / "out.ipynb", work / "out.pdf", title="Bench", title_rows=[("Profile", "bench")]
            )
            pdf_s = time.perf_counter() - started  # includes its own HTML export
            started = time.perf_counter()
            pages = pdf_pages.pdf_page_images(written, work / f"pages{repeat}")
            blank = sum(pdf_pages.is_blank(p) for p in pages)
            render_s = time.perf_counter() - started
            print(
                f"{repeat:>6} {html_s:7.2f} {pdf_s:7.2f} {len(pages):>5} {render_s:8.2f} "
                f"{written.stat().st_size / 1024:6.0f}" + (f"  ({blank} blank pages!)" if blank else "")
            )


if __name__ == "__main__":
    main()
