"""The report's Setup: the lab's "System setup" and "Benchmark setup" tables, this sweep beside the lab's;
the settings a `--set` changed from the profile, and how long the sweep took by its records.

Apart from the Method because these follow the lab's own tables (data/reference/week4_lab_setup.csv)
row by row, and change when the lab's rows or the course guide's settings do.
"""

from __future__ import annotations

import pandas as pd

from pagelab.report.grid_report import levels_text, pool_level_labels
from pagelab.report.lab_report import ReportData, shipped_profile_values, summary_values
from pagelab.report.seed_configuration import loaded_text, pool_share_text, seed_pool_quote, server_setting_rows


def benchmark_setup(data: ReportData) -> pd.DataFrame:
    """The lab's "Benchmark setup" table, ours beside the lab's."""
    from pagelab.report.figures import read_reference

    profile = data.profile
    db = summary_values(data, "db_bytes")
    pools = summary_values(data, "buffer_pool_bytes")
    ours = {
        "DB size": (f"{loaded_text(data.tables['summary'])} ({profile.get('warehouses')} "
                    f"warehouse{'' if profile.get('warehouses') == 1 else 's'})") if db else "—",
        "Buffer Pool Size": (pool_share_text(data.tables["summary"])
                             if pools and db and not isinstance(profile.get("buffer_pool"), list)
                             else levels_text(profile.get("buffer_pool"), pool_level_labels(data))),
        "Benchmark Tool": f"pagelab, driver mode {profile.get('driver_mode')}",
        "Runtime": (f"{profile.get('measure_s')} s" if profile.get("measure_s") != "auto" else "auto") +
                   f" × {profile.get('repeats')} run{'s' if profile.get('repeats') != 1 else ''} per page size" +
                   (f", then {profile.get('over_time_s')} s once" if profile.get("over_time_s") else ""),  # fits a cell
        "Connections": str(profile.get("connections")),
    }
    seed = read_reference("week4_lab_setup.csv")
    seed = seed[seed["table"] == "Benchmark setup"].set_index("key")["value"] if not seed.empty else pd.Series(dtype=str)
    if "Buffer Pool Size" in seed:  # the lab's text; its server had another pool (seed_configuration)
        seed["Buffer Pool Size"] = seed_pool_quote(seed["Buffer Pool Size"])
    rows = [{"Setting": key, "This sweep": value, "Week 4 lab": seed.get(key, "—")} for key, value in ours.items()]
    return pd.DataFrame(rows + server_setting_rows(data))


def db_size_sentence(data: ReportData) -> str:
    """How Table 2's DB size is measured, and the same range in MB, as the lab and the docs write sizes;
    '' when the runs recorded none."""
    summary = data.tables["summary"]
    if summary.empty or "db_bytes" not in summary or summary["db_bytes"].dropna().empty:
        return ""
    per_size = summary.dropna(subset=["db_bytes"]).groupby("page_size")["db_bytes"].median()
    low, high = per_size.min() / 1e6, per_size.max() / 1e6
    return ("**What DB size counts.** The data and index bytes of the TPC-C tables as information_schema.tables "
            "reported them in each run (data_length + index_length), each page size's median over its runs, in "
            f"MiB (2²⁰ bytes): {low:,.0f}–{high:,.0f} MB in the lab's decimal units, differing by page size because "
            "pages hold rows differently; the lab's 700MB is its own figure.")


def pool_reason_sentence(data: ReportData) -> str:
    """Why the sweep's pool is what it is, where it is the lab's server's: the lab's text gives
    another figure, its own status output this one (seed_configuration.seed_pool_pages, the one
    place it is read from). '' when the runs' pool is not the lab's server's or is not recorded."""
    from pagelab.common.units import size_text
    from pagelab.report.figures import read_reference
    from pagelab.report.seed_configuration import seed_pool_pages

    pages = seed_pool_pages()
    pools = summary_values(data, "buffer_pool_bytes")
    seed_bytes = {n for _, n in pages.values()}
    if len(seed_bytes) != 1 or not pools or set(pools) != seed_bytes:
        return ""
    setup = read_reference("week4_lab_setup.csv")
    stated = setup[(setup["table"] == "Benchmark setup") & (setup["key"] == "Buffer Pool Size")]["value"]
    counts = [f"{count:,} {'pages ' if not index else ''}at {size}" for index, (size, (count, _)) in enumerate(pages.items())]
    counts = ", ".join(counts[:-1]) + f" and {counts[-1]}" if len(counts) > 1 else counts[0]
    text = (f"its own status output shows a pool of {counts}, {size_text(next(iter(seed_bytes)))} at each (MySQL 5.7 "
            "rounds a pool up to a multiple of innodb_buffer_pool_chunk_size, 128 MiB)")
    said = f"The lab's text gives its pool as \u201c{stated.iloc[0]}\u201d, but " if not stated.empty else "The lab's "
    return (f"**Why the pool is {size_text(next(iter(seed_bytes)))}.** {said}{text}: the pool its server really had, "
            "so the sweep runs that.")


def system_setup(data: ReportData) -> pd.DataFrame:
    """The lab's "System setup" table, this machine beside the lab's; its Server row is the server the
    runs recorded (`server_text`)."""
    from pagelab.machine.system import system_setup_table
    from pagelab.report.figures import read_reference

    seed = read_reference("week4_lab_setup.csv")
    seed = seed[seed["table"] == "System setup"].set_index("key")["value"] if not seed.empty else pd.Series(dtype=str)
    return pd.DataFrame([{"Type": key, "This machine": server_text(data, value) if key == "Server" else value,
                          "Week 4 lab": seed.get(key, "—")}
                         for key, value in system_setup_table(data.record.document["machine"])])


def system_setup_notes(data: ReportData) -> str:
    """What Table 1's CPU and disk rows can and cannot say, from the machine record: its cpu_model is
    /proc/cpuinfo's "model name" (pagelab.machine.system.cpu_model), which on a virtual machine may
    name no model number; a data device whose driver is a virtual disk's
    (pagelab.machine.devices.VIRTUAL_DISK_DRIVERS) hides the storage behind it, so the disk is known by
    what it does: its random reads as the sweep measured them (`disk_speed_text`), or why they were not.
    '' when none of these applies. Said under the table, where there is room for why."""
    from pagelab.machine.devices import VIRTUAL_DISK_DRIVERS

    machine = data.record.document["machine"]
    notes = []
    model = machine.get("cpu_model")
    if model and not any(character.isdigit() for character in model):
        notes.append(f"The CPU is named as this machine's /proc/cpuinfo names it, \u201c{model}\u201d, whole: "
                     "the machine gives no model number.")
    device = machine.get("data_device") or {}
    speed, its = disk_speed_text(data)
    if device.get("driver") in VIRTUAL_DISK_DRIVERS:
        name = device.get("disk") or device.get("device") or "the data device"
        # what it does is what a reader can know of it: said next, when the sweep measured it
        notes.append(f"The data device, {name} ({device['driver']}), is a virtual disk; the storage behind it is "
                     "not visible to the guest, so this report cannot say what kind of disk it is"
                     + (", only what it does." if its else "."))
        speed = f"Its {speed}" if its else speed
    elif its:
        speed = f"The data disk's {speed}"
    return " ".join(notes + [speed] if speed else notes)


def disk_speed_text(data: ReportData) -> tuple[str, bool]:
    """The data disk's random reads at the sweep's page sizes as the bundle recorded them
    (pagelab.machine.disk_speed, knob disk_profile), and whether the text is one disk's figures,
    to follow "Its" or "The data disk's": ('random reads, one at a time (...): 4 KiB 5,210 IOPS (mean
    190 µs), ...', True). Several hosts: each host's; none measured: why, in a sentence. ('', False)
    for a bundle made before the knob, whose report reads as it did."""
    records = data.disk_profiles
    knob = data.profile.get("disk_profile")
    if not records:
        if knob is None:
            return "", False
        if not knob:
            return "The data disk's random reads were not measured (disk_profile off).", False
        return ("The data disk's random reads were not measured: no run of this sweep has started yet (the first "
                "run on each host measures them)."), False
    sizes = [int(size) for size in data.profile.get("page_sizes") or []]
    if len(records) == 1:
        (record,) = records.values()
        if "not_measured" in record:
            return f"The data disk's random reads were not measured: {record['not_measured']}.", False
        return _reads_text(record, sizes), True
    each = [f"{host}: " + (f"not measured: {record['not_measured']}" if "not_measured" in record
                           else _reads_text(record, sizes).rstrip(".")) for host, record in records.items()]
    return "Each host's data disk, as that host measured it before its first run: " + "; ".join(each) + ".", False


def _reads_text(record: dict, page_sizes: list[int]) -> str:
    """'random reads, one at a time (vda; fio 3.33: psync, O_DIRECT, QD1, 5 s per size, measured ... UTC):
    4 KiB 5,210 IOPS (mean 190 µs), ...' from a measured record."""
    from pagelab.machine.disk_speed import profile_of

    profile = profile_of(record)
    settings = [profile.ioengine or "?", "O_DIRECT" if profile.direct else "buffered", f"QD{profile.iodepth or '?'}"]
    if profile.runtime_s:
        settings.append(f"{profile.runtime_s:g} s per size")
    when = f", measured {profile.measured_at[:16].replace('T', ' ')} UTC" if profile.measured_at else ""
    figures = [f"{result.block_size_bytes // 1024} KiB {result.iops:,.0f} IOPS"
               + (f" (mean {result.lat_mean_us:,.0f} µs)" if result.lat_mean_us else "") for result in profile.results]
    missing = [f"{size // 1024} KiB not measured" for size in page_sizes if profile.result_for(size) is None]
    return (f"random reads, one at a time ({profile.disk}; fio {profile.fio_version or '?'}: {', '.join(settings)}"
            f"{when}): " + ", ".join(figures + missing) + ".")
