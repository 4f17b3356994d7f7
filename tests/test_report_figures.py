"""The report's figures draw what their captions and legends name, from synthetic tables."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from pagelab.report import figures


def _iostat() -> pd.DataFrame:
    return pd.DataFrame([{"page_size_bytes": kb * 1024, "page_size": f"{kb}k", "t_s": 5, "r_s": 100.0, "w_s": 50.0,
                          "rareq_kb": float(kb), "wareq_kb": kb * 1.8} for kb in (4, 8, 16)])


def test_the_page_size_reference_line_is_straight_over_the_page_sizes_on_log_axes_above_the_reads():
    figure = figures.request_size_vs_page_size(_iostat())
    axis = figure.axes[0]
    lines = {line.get_label(): line for line in axis.get_lines()}
    reference, reads = lines["= page size"], lines["read request (rareq-sz)"]
    x = list(reference.get_xdata())
    assert list(reference.get_ydata()) == x  # y = x: the request equals the page
    # over exactly the page sizes run (4k to 16k): a reader saw it run on to about 24 KiB
    assert x == [4.0, 16.0], x
    # straight: both axes log, base 2, so y = x is a line (on a linear y it curved), and the labels say so
    assert (axis.get_xscale(), axis.get_yscale()) == ("log", "log")
    assert axis.xaxis.get_transform().base == axis.yaxis.get_transform().base == 2
    assert "log scale, base 2" in axis.get_xlabel() and "log scale, base 2" in axis.get_ylabel()
    assert reference.get_zorder() > reads.get_zorder(), "drawn on top of reads that lie on it"
    assert "= page size" in [text.get_text() for text in axis.get_legend().get_texts()]


def _summary(with_order: bool) -> pd.DataFrame:
    # Round 1 ran 16k, 4k, 8k (a randomised order); the start times say 4k, 8k, 16k.
    rows = []
    for repeat in (1, 2):
        for position, (kb, started) in enumerate(((16, "10:02"), (4, "10:00"), (8, "10:01")), start=1):
            row = {"page_size": f"{kb}k", "page_size_bytes": kb * 1024, "repeat": repeat, "tpmc": 1000.0 * kb,
                   "run_started": f"2026-11-26T{started[:3]}{int(started[3:]) + 10 * repeat:02d}:00+0000"}
            if with_order:
                row["run_order"] = position
            rows.append(row)
    return pd.DataFrame(rows)


def test_the_run_order_is_the_recorded_one_else_the_start_times():
    recorded, how = figures.run_order(_summary(with_order=True))
    assert list(recorded["page_size"]) == ["16k", "4k", "8k"] * 2 and "recorded" in how
    timed, how = figures.run_order(_summary(with_order=False))
    assert list(timed["page_size"]) == ["4k", "8k", "16k"] * 2 and "start time" in how
    assert list(timed["position"]) == [1, 2, 3, 4, 5, 6]


def test_tpmc_by_run_order_colours_each_page_size_at_its_place():
    figure = figures.tpmc_by_run_order(_summary(with_order=True))
    axis = figure.axes[0]
    dots = {line.get_label(): line for line in axis.get_lines() if line.get_marker() == "o"}
    assert set(dots) == {"4k", "8k", "16k"}
    assert list(dots["16k"].get_xdata()) == [1, 4] and list(dots["16k"].get_ydata()) == [16_000.0, 16_000.0]
    assert dots["4k"].get_color() != dots["16k"].get_color()


def test_no_figure_is_labelled_with_a_column_name():
    """seaborn titles a legend with its hue's column (`page_size`) unless told otherwise; a reader
    of the report gets words on every axis, title and legend."""
    from tests.notebook_checks import figure_texts, internal_labels

    runs = pd.DataFrame([{"page_size": f"{kb}k", "page_size_bytes": kb * 1024, "repeat": 1, "t_s": t, "hit_rate": 990.0,
                          "new_order_p95_ms": 5.0, "new_order_p99_ms": 8.0, "r_s": 100.0, "w_s": 50.0,
                          "rareq_kb": float(kb), "wareq_kb": kb * 1.8} for kb in (4, 8, 16) for t in (0, 10)])
    per_size = pd.DataFrame([{"metric": "tpmc", "page_size": f"{kb}k", "runs": 2, "median": 1000.0 * kb,
                              "low": 900.0 * kb, "high": 1100.0 * kb, "confidence_pct": 50.0} for kb in (4, 8, 16)])
    drawn = {"IOPS": figures.iops_over_time(runs), "hit ratio": figures.hit_ratio_over_time(runs),
             "New-Order latency": figures.new_order_latency_over_time(runs),
             "TpmC": figures.tpmc_by_page_size(_summary(with_order=True), per_size),
             "request size": figures.request_size_vs_page_size(runs),
             "run order": figures.tpmc_by_run_order(_summary(with_order=True))}
    found = {name: internal_labels(figure_texts(figure)) for name, figure in drawn.items()}
    assert not any(found.values()), found
    assert "page size" in figure_texts(drawn["hit ratio"])
