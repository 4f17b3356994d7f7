"""The report's words on where the runs ran: TpmC per host, whether the hosts differ more than the
page sizes do, and the node section of a sweep spread over a cluster's nodes.

Apart from the Method because it changes with the executors (local, Slurm) and pagelab.evidence.nodes.
"""

from __future__ import annotations

import pandas as pd

from pagelab.report.lab_report import ReportData


def per_host_tpmc(data: ReportData) -> pd.DataFrame:
    """TpmC per page size and host (pagelab.evidence.hosts.host_table); empty with one host."""
    from pagelab.evidence.hosts import host_table

    if data.evidence.runs.empty or data.evidence.runs["host"].nunique() < 2:
        return pd.DataFrame()
    rows = host_table(data.evidence)
    return rows[(rows["metric"] == "tpmc") & (rows["runs"] > 0)]


def nodes_markdown(data: ReportData) -> str:
    """The node section of a sweep spread over nodes (pagelab.evidence.nodes); "" on one node."""
    from pagelab.evidence.nodes import node_lines, node_summary

    summary = node_summary(data.evidence)
    lines = node_lines(summary)
    if not lines:
        return ""
    first, rest = lines[0], lines[1:]
    body = "\n".join(f"- {line.strip()}" if line.startswith("  ") and not line.startswith("    ")
                     else f"    - {line.strip()}" if line.startswith("    ") else f"\n{line}\n" for line in rest)
    design = ("Some round ran on more than one node, so its runs shared no node's minute: the runs are compared "
              "unpaired, and a node's speed is taken out by the node as a random effect (see below)."
              if summary["split_rounds"] else
              "Each round ran on one node, and its runs are compared within it, so a node's speed cancels out of "
              "the comparisons.")
    return f"**What the nodes did.** {design} {first}\n\n{body}"


def host_verdict(data: ReportData) -> str:
    """Whether the hosts differ more than the page sizes do, in one sentence (host_lines' last)."""
    from pagelab.evidence.hosts import host_lines

    lines = host_lines(data.evidence)
    return lines[-1].strip() if len(lines) > 1 else ""
