"""A notebook as one self-contained HTML page for printing: the report's first step.

nbconvert's HTMLExporter (the `lab` template) with every code input and every prompt left out, so
the page holds the markdown, the tables (pandas HTML) and the figures (base64 PNGs embedded in the
notebook). Cells tagged remove-cell, outputs of cells tagged remove-output and stderr streams are
left out; errors stay. An optional title page and the print CSS (A4, margins, page numbers,
nothing wider than the page, figures and tables not split) are added, with a script that fits a
wide table to the page once it is laid out.
"""

from __future__ import annotations

import copy
import html
import os
import re
from collections.abc import Sequence
from pathlib import Path

from pagelab.common.errors import UsageError

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

