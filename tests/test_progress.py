"""Progress where no terminal reads it: whole lines, no carriage returns or escape codes."""

from __future__ import annotations

import io

from pagelab.common.progress import PlainProgress, progress_bar


def test_progress_to_a_file_is_plain_lines():
    stream = io.StringIO()
    bar = progress_bar(3, "sweep", "run", stream=stream)
    assert isinstance(bar, PlainProgress)
    bar.every_s = 0  # print at every step, so the test sees each line
    bar.update(1)
    bar.set_postfix_str("8k-r1: measure 20/60 s")
    bar.update(2)
    bar.close()
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].startswith("sweep: 1/3 runs (33%)")
    assert lines[-1].startswith("sweep: 3/3 runs (100%)") and lines[-1].endswith("8k-r1: measure 20/60 s")


def test_a_disabled_bar_prints_nothing():
    stream = io.StringIO()
    bar = progress_bar(10, "load", "row", disable=True, stream=stream)
    bar.update(10)
    bar.close()
    assert stream.getvalue() == ""
