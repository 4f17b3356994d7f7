"""What `pagelab stats` prints for one bundle: the medians, the verdicts of each metric's family,
the variance components, the hosts, the outliers, the runs left out and the machine's noise, in
that order. Only the order and the headings live here; each part's words are its own module's.
"""

from __future__ import annotations

from pagelab.evidence.components_text import components_lines
from pagelab.evidence.hosts import host_lines
from pagelab.evidence.intervals import DEFAULT_RESOLVE_PCT
from pagelab.evidence.medians import page_size_table, page_size_text
from pagelab.evidence.outliers import outlier_lines
from pagelab.evidence.pairs import pairwise_table
from pagelab.evidence.runs import LOADED_CORES, METRICS, RunTable, model_data, other_work_of
from pagelab.evidence.wording import family_text, floor_note, over_time_text, primary_first, verdict_line


def evidence_text(table: RunTable, resolve_pct: float = DEFAULT_RESOLVE_PCT) -> str:
    """What `pagelab stats` prints: medians with intervals, verdicts per pair, runs left out."""
    lines = page_size_text(page_size_table(table))
    if table.looks is not None and table.looks.sequential:
        lines += table.looks.lines()
    pairs = pairwise_table(table, resolve_pct)
    for metric in METRICS:
        part = pairs[pairs["metric"] == metric.name]
        lines.append(family_text(part, f"{metric.label}, page sizes compared"))
        floor = floor_note(part)
        lines += [f"  note: {floor}"] if floor else []
        lines += [f"  {verdict_line(row, metric)}" for row in primary_first(part)]
    data = model_data(table)
    tpmc = pairs[pairs["metric"] == "tpmc"] if not pairs.empty else pairs
    # each pair's rounds at the level its line tests it at (the pairs after a primary at Bonferroni's share)
    levels = {(row["a"], row["b"]): 1 - float(row["confidence_pct"]) / 100 for row in tpmc.to_dict("records")
              if row.get("confidence_pct") == row.get("confidence_pct") and row.get("confidence_pct")}
    lines += components_lines(data.components, levels) + over_time_text(data.over_time, data.long_runs, table.page_order) if data else [
        "No interval series in this bundle's runs: no variance components; the rank tests judged every pair."]
    lines += host_lines(table)
    lines += outlier_lines(table.runs)
    if table.excluded:
        lines.append("Runs left out:")
        lines += [f"  {name}: {why}" for name, why in table.excluded]
    if table.noise:
        lines.append("The machine's noise, measured before the runs (pagelab sweep --noise):")
        lines += [f"  {line}" for line in noise_lines(table.noise)]
    lines += other_work_lines(table.runs)
    return "\n".join(lines)


def other_work_lines(runs) -> list[str]:
    """What the runs recorded of other user processes' CPU while they measured
    (pagelab.machine.other_work); a line saying there is no record for a bundle from before it."""
    found = other_work_of(runs)
    if found is None:
        return ["Other work on the machine while the runs measured: not recorded (a bundle from before pagelab "
                "recorded it)"]
    return [f"Other work on the machine while the runs measured (user processes besides the runs' own): median "
            f"{found.median:.2f} cores over {found.runs} runs, most {found.most:.2f} ({found.most_run}); "
            + (f"{len(found.loaded)} beside more than {LOADED_CORES:g} of a core: {', '.join(found.loaded)}"
               if found.loaded else f"none beside more than {LOADED_CORES:g} of a core")]


def noise_lines(noise: dict) -> list[str]:
    lines = []
    for key, name, unit, decimals in (("disk_read_iops_4k_qd1", "disk, fio 4 KiB random reads QD1", "IOPS", 0),
                                      ("cpu_loop_s", "CPU, a fixed loop", "s", 3)):
        part = noise[key]
        cv = "—" if part["cv_pct"] is None else f"{part['cv_pct']:.1f}%"
        lines.append(f"{name}: median {part['median']:,.{decimals}f} {unit}, coefficient of variation {cv}, "
                     f"range {part['range_pct']:.1f}% of the median, {len(part['values'])} runs")
    return lines
