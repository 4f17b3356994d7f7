"""Reading a printed report back: its pages as images and its text (poppler's pdftoppm and
pdftotext), how much of a page is drawn on and how far down its content reaches. Tests check with
these that the pages render to something and that no page is left nearly blank.

Apart from pagelab.report.pdf, which prints the report, because it changes with what is checked,
not with how the PDF is made.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from pagelab.common.errors import MissingDependencyError, PagelabError

POPPLER_FIX = "install it with `sudo apt-get install poppler-utils` (or `make setup`)"
POPPLER_TIMEOUT_S = 180  # as long as printing may take (pagelab.report.pdf.DEFAULT_TIMEOUT_S)
def _require_program(name: str, fix: str) -> str:
    found = shutil.which(name)
    if not found:
        raise MissingDependencyError(f"{name} (from poppler-utils) is not installed: {fix}")
    return found


def pdf_page_images(pdf_path: str | os.PathLike, out_dir: str | os.PathLike, dpi: int = 50) -> list[Path]:
    """Render every page of the PDF to `out_dir/page-N.png` with poppler's pdftoppm; the PNGs in
    page order."""
    pdftoppm = _require_program("pdftoppm", POPPLER_FIX)
    pdf_path = Path(pdf_path)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    _run_poppler([pdftoppm, "-png", "-r", str(dpi), str(pdf_path), str(out_dir / "page")], f"render {pdf_path}")
    # pdftoppm zero-pads the page number to the width of the page count: page-1.png or page-01.png.
    pages = []
    for png in out_dir.glob("page-*.png"):
        match = re.fullmatch(r"page-(\d+)\.png", png.name)
        if match:
            pages.append((int(match.group(1)), png))
    return [png for _, png in sorted(pages)]


def pdf_text(pdf_path: str | os.PathLike) -> str:
    """The PDF's text in reading order (poppler's pdftotext -layout)."""
    pdftotext = _require_program("pdftotext", POPPLER_FIX)
    return _run_poppler([pdftotext, "-layout", str(pdf_path), "-"], f"read {pdf_path}")


def _run_poppler(command: list[str], doing: str) -> str:
    """Run a poppler tool; its stdout, or PagelabError with the end of its stderr."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=POPPLER_TIMEOUT_S,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise PagelabError(f"{Path(command[0]).name} could not {doing}: {done.stderr.strip()[-2000:]}")
    return done.stdout


def ink_fraction(png_path: str | os.PathLike, tolerance: int = 24) -> float:
    """The share of pixels that differ (by more than `tolerance` in some channel) from the image's
    most common colour, i.e. how much of the page is drawn on."""
    import numpy as np
    from PIL import Image

    with Image.open(png_path) as im:
        rgb = im.convert("RGB")
    colors = rgb.getcolors(maxcolors=rgb.width * rgb.height) or []
    if not colors:
        return 0.0
    _, background = max(colors)
    pixels = np.asarray(rgb, dtype=np.int16)
    differs = (np.abs(pixels - np.array(background, dtype=np.int16)) > tolerance).any(axis=2)
    return float(differs.mean())


def _ink_rows(png_path: str | os.PathLike, tolerance: int = 24):
    """Per pixel row of the image, whether any pixel differs from the most common colour."""
    import numpy as np
    from PIL import Image

    with Image.open(png_path) as im:
        rgb = im.convert("RGB")
    colors = rgb.getcolors(maxcolors=rgb.width * rgb.height) or []
    if not colors:
        return np.zeros(rgb.height, dtype=bool)
    _, background = max(colors)
    pixels = np.asarray(rgb, dtype=np.int16)
    return (np.abs(pixels - np.array(background, dtype=np.int16)) > tolerance).any(axis=(1, 2))


# The page number sits in the bottom margin (PRINT_CSS's 18 mm of A4's 297 mm): below this share of
# the page's height, ink is the footer, not the page's content.
FOOTER_FROM = 1 - 18 / 297


def filled_height(png_path: str | os.PathLike) -> float:
    """How far down a page its content reaches, as a share of the page's height (0 for none): the
    last row with ink above the footer. A page whose content stops a quarter of the way down, with
    more report after it, is the nearly blank page a block too tall for the room left leaves behind."""
    import numpy as np

    rows = _ink_rows(png_path)
    body = rows[: int(len(rows) * FOOTER_FROM)]
    inked = np.flatnonzero(body)
    return float((inked[-1] + 1) / len(rows)) if inked.size else 0.0


def is_blank(png_path: str | os.PathLike, min_ink: float = 0.002) -> bool:
    """True when nearly all pixels are the same colour: less than `min_ink` (0.2%) of the page
    drawn on. A bare page number stays under it; a line of heading text does not."""
    return ink_fraction(png_path) < min_ink
