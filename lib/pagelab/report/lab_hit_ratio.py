"""The lab's own hit-ratio readings, and what a run's hit ratio over time is set beside: the lab's
status excerpts at its checkpoints (data/reference/week4_lab_innodb.csv), how much faster than the
lab's this sweep's over-time runs grew their data (its TpmC against week4_lab_tpmc.csv), and where the
runbook says why a long run's ratio falls. The hit-ratio claim (pagelab.report.claims) says them."""

from __future__ import annotations

from pagelab.report.figures import read_reference


def lab_hit_status():
    """The lab's status excerpts with a hit rate (data/reference/week4_lab_innodb.csv), read once for the
    claim and passed to `lab_hit_readings` and `lab_hit_checkpoints`; empty without them."""
    status = read_reference("week4_lab_innodb.csv")
    return status if status.empty else status.dropna(subset=["hit_rate"]).sort_values("t_s")


def lab_hit_readings(status) -> str:
    """The lab's own hit rates at its checkpoints, from its status excerpts (`lab_hit_status`)."""
    if status.empty:
        return "the lab's own readings not at hand"
    times = "/".join(f"{t:.0f}" for t in sorted(status["t_s"].unique()))
    each = "; ".join(f"{size} " + ", ".join(f"{v:.0f}" for v in group["hit_rate"])
                     for size, group in status.groupby("page_size", sort=False))
    return f"the lab's own readings at {times} s: {each}"


def lab_hit_checkpoints(status) -> dict[str, tuple[float, float]]:
    """{page size: (the lab's hit rate at its first checkpoint, at its last)} from its status excerpts
    (`lab_hit_status`); {} without them."""
    if status.empty:
        return {}
    return {str(size): (float(group["hit_rate"].iloc[0]), float(group["hit_rate"].iloc[-1]))
            for size, group in status.groupby("page_size", sort=False)}


def growth_against_lab(data) -> str:
    """How much faster than the lab's this sweep's over-time runs grew their data: TPC-C's New-Orders
    insert rows, so a run's growth by a checkpoint goes with its TpmC; the hit-ratio claim is read at
    the lab's seconds, which here saw that many times the lab's growth. '' without both records."""
    lab = read_reference("week4_lab_tpmc.csv")
    summary = data.over_time["summary"] if data.has_over_time_runs else None
    if lab.empty or summary is None or "tpmc" not in summary:
        return ""
    lab_tpmc = dict(zip(lab["page_size"].astype(str), lab["tpmc"].astype(float)))
    ours = summary.groupby("page_size")["tpmc"].median()
    ratios = {size: float(ours[size]) / lab_tpmc[size] for size in data.page_sizes
              if size in ours.index and size in lab_tpmc and lab_tpmc[size] > 0}
    if not ratios:
        return ""
    each = "; ".join(f"{size} {float(ours[size]):,.0f} against {lab_tpmc[size]:,.0f}" for size in ratios)
    low, high = min(ratios.values()), max(ratios.values())
    times = f"{low:.1f}" if round(low, 1) == round(high, 1) else f"{low:.1f}-{high:.1f}"
    # the window said, since the Appendix's block table gives these runs' TpmC over only the part the
    # model counts (after MSER-5's cut): this figure is the summary's, over the whole measurement
    seconds = set(summary["measure_s"].dropna().astype(float)) if "measure_s" in summary else set()
    window = f"its whole {seconds.pop():.0f} s measurement" if len(seconds) == 1 else "its whole measurement"
    return (f"; the over-time runs made {times} times the lab's New-Orders a minute (each run's TpmC over {window}: "
            f"{each}), and each "
            "New-Order adds rows, so by each checkpoint their data had grown that many times as much as the lab's: "
            "the claim is read at the lab's seconds, not at its growth, and where the two differ this much the "
            "verdict says what this machine's runs did by then, not that the lab's runs read otherwise")


# The runbook's section on why a long run's hit ratio falls (tests check that the title is there).
HIT_RATIO_FALL_SECTION = "Why an over-time run's reads rise and its hit ratio falls"


def why_it_fell(fell: list[str]) -> str:
    """Where the ratio fell over the run, where to read why: TPC-C's inserts grow the database during a
    long run, so less of it fits the pool as the run goes on (the TPC-C runbook measures it)."""
    if not fell:
        return ""
    return (f"; the ratio fell over the run at {', '.join(fell)}: TPC-C's inserts grow the database as a run goes "
            "on, so less of it fits the pool, the more so at a higher TpmC than the lab's (runbooks/tpcc-page-size.md, "
            f"\"{HIT_RATIO_FALL_SECTION}\")")
