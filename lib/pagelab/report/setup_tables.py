"""The report's Setup: the lab's "System setup" and "Benchmark setup" tables, this sweep beside the lab's.

Apart from the Method because these follow the lab's own tables (data/reference/week4_lab_setup.csv)
row by row, and change when the lab's rows or the course guide's settings do.
"""

from __future__ import annotations

import pandas as pd

from pagelab.common.units import size_text
from pagelab.report.grid_report import levels_text, pool_level_labels
from pagelab.report.lab_report import ReportData, summary_values
from pagelab.report.seed_configuration import pool_share_pct, server_setting_rows


def benchmark_setup(data: ReportData) -> pd.DataFrame:
    """The lab's "Benchmark setup" table, ours beside the lab's."""
    from pagelab.report.figures import read_reference

    profile = data.profile
    db = summary_values(data, "db_bytes")
    pools = summary_values(data, "buffer_pool_bytes")
    ours = {
        "DB size": f"{size_text(sum(db) / len(db))} ({profile.get('warehouses')} warehouse)" if db else "—",
        "Buffer Pool Size": (f"{size_text(max(pools))} ({pool_share_pct(pools, db):.0f}% of the largest loaded database)"
                             if pools and db and not isinstance(profile.get("buffer_pool"), list)
                             else levels_text(profile.get("buffer_pool"), pool_level_labels(data))),
        "Benchmark Tool": f"pagelab, driver mode {profile.get('driver_mode')}",
        "Runtime": (f"{profile.get('measure_s')} s" if profile.get("measure_s") != "auto" else "auto") +
                   f" × {profile.get('repeats')} run(s) per page size" +
                   (f", then {profile.get('over_time_s')} s once" if profile.get("over_time_s") else ""),  # fits a cell
        "Connections": str(profile.get("connections")),
    }
    seed = read_reference("week4_lab_setup.csv")
    seed = seed[seed["table"] == "Benchmark setup"].set_index("key")["value"] if not seed.empty else pd.Series(dtype=str)
    rows = [{"Setting": key, "This sweep": value, "Week 4 lab": seed.get(key, "—")} for key, value in ours.items()]
    return pd.DataFrame(rows + server_setting_rows(data))


def system_setup(data: ReportData) -> pd.DataFrame:
    """The lab's "System setup" table, this machine beside the lab's."""
    from pagelab.machine.system import system_setup_table
    from pagelab.report.figures import read_reference

    seed = read_reference("week4_lab_setup.csv")
    seed = seed[seed["table"] == "System setup"].set_index("key")["value"] if not seed.empty else pd.Series(dtype=str)
    return pd.DataFrame([{"Type": key, "This machine": value, "Week 4 lab": seed.get(key, "—")}
                         for key, value in system_setup_table(data.record.document["machine"])])
