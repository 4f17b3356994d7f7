"""The report's Setup: the lab's "System setup" and "Benchmark setup" tables, this sweep beside the lab's;
the settings a `--set` changed from the profile, and how long the sweep took by its records.

Apart from the Method because these follow the lab's own tables (data/reference/week4_lab_setup.csv)
row by row, and change when the lab's rows or the course guide's settings do.
"""

from __future__ import annotations

import re

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
    """What Table 1's kernel, CPU and disk rows can and cannot say, from the machine record: its kernel is
    uname's release string (pagelab.machine.system.machine_info), a version and its builder's label; its cpu_model is
    /proc/cpuinfo's "model name" (pagelab.machine.system.cpu_model), which on a virtual machine may
    name no model number; a data device whose driver is a virtual disk's
    (pagelab.machine.devices.VIRTUAL_DISK_DRIVERS) hides the storage behind it, so the disk is known by
    what it does: its random reads as the sweep measured them (`disk_speed_text`), or why they were not.
    '' when none of these applies. Said under the table, where there is room for why."""
    from pagelab.machine.devices import VIRTUAL_DISK_DRIVERS

    machine = data.record.document["machine"]
    notes = []
    kernel = str(machine.get("kernel") or "")
    if kernel:
        # machine_info records platform.release(), uname's release string: a version, then whatever label
        # the kernel's builder appended, which the guest does not explain ("6.18.44-fc-v657")
        version = re.match(r"\d+(?:\.\d+)+", kernel)
        label = kernel[version.end():] if version else ""
        notes.append(f"The kernel is named by its release string as the machine reports it (uname -r), "
                     f"\u201c{kernel}\u201d" + (f": Linux {version.group(0)}, with \u201c{label}\u201d the label its "
                                             "builder gave it, which the machine does not explain." if label else "."))
    model = machine.get("cpu_model")
    if model and not any(character.isdigit() for character in model):
        notes.append(f"The CPU is named as this machine's /proc/cpuinfo names it (its \u201cmodel name\u201d), "
                     f"\u201c{model}\u201d, whole: the machine gives no model number.")
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


# A bundle made before the knob recorded no disk; what measures one now is `pagelab advise`, which takes
# the same fio settings as the knob (pagelab.machine.disk_speed) at 1-64 KiB and prints an IOPS column.
BEFORE_THE_KNOB = ("The data disk's random reads were not measured: this sweep was made before pagelab measured "
                   "them (the knob disk_profile, which sweeps made since take before their first run). On the "
                   "machine that ran it, `pagelab advise --keys 1e9 --key-bytes 32 --device DIR`, DIR a directory "
                   "on the disk the runs used, measures them now as such a sweep does (fio: psync, O_DIRECT, QD1, "
                   "5 s per size, 1-64 KiB) and prints them in its IOPS column: the disk as it is when measured, "
                   "not necessarily as the runs found it.")


def disk_speed_text(data: ReportData) -> tuple[str, bool]:
    """The data disk's random reads at the sweep's page sizes as the bundle recorded them
    (pagelab.machine.disk_speed, knob disk_profile), and whether the text is one disk's figures,
    to follow "Its" or "The data disk's": ('random reads, one at a time (...): 4 KiB 5,210 IOPS (mean
    190 µs), ...', True). Several hosts: each host's; none measured: why, in a sentence, a bundle made
    before the knob included (README promises the figures in every report, or why not)."""
    records = data.disk_profiles
    knob = data.profile.get("disk_profile")
    if not records:
        if knob is None:
            return BEFORE_THE_KNOB, False
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


def server_text(data: ReportData, where_made: str) -> str:
    """The server the runs measured, from their own records (pagelab.report.appendix.run_servers),
    not the one where the sweep was made (`where_made`, sweep.json's machine record), which on Slurm
    is the login node's: the one version all runs recorded, else how many and where the Versions
    table lists them by host; `where_made`, said so, when no run recorded one."""
    from pagelab.report.appendix import run_servers

    versions = [version for version, _, _ in run_servers(data)]
    if not versions:
        return f"{where_made} (where the sweep was made)"
    return versions[0] if len(versions) == 1 else f"{len(versions)} versions: see Versions"


def _knob_value_text(value) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "(empty)" if value in ("", None) else str(value)


def _changes(profile_values: dict, used: dict) -> list[str]:
    """'`over_time_s`: 1200 in the profile, 0 used', one per knob (per option of server_options)."""
    parts = []
    for name in profile_values:
        before, after = profile_values[name], used.get(name)
        if isinstance(before, dict) and isinstance(after, dict):
            parts += [f"`{name}.{option}`: {_knob_value_text(before.get(option, '(unset)'))} in the profile, "
                      f"{_knob_value_text(after.get(option, '(unset)'))} used"
                      for option in dict.fromkeys([*before, *after]) if before.get(option) != after.get(option)]
        elif before != after:
            parts.append(f"`{name}`: {_knob_value_text(before)} in the profile, {_knob_value_text(after)} used")
    return parts


def changed_settings_markdown(data: ReportData) -> str:
    """Which knobs the sweep ran with other values than its profile's (each `--set`: its value in
    the profile and the value used), and the sweep's wall-clock duration from its records."""
    document = data.record.document
    profile = data.profile
    name = data.profile_name
    overrides = list(profile.get("overrides") or [])
    recorded = document.get("changed_knobs")
    source = ""
    if recorded is not None:
        parts = _changes({k: v["profile"] for k, v in recorded.items()}, {k: v["used"] for k, v in recorded.items()})
    elif overrides:
        knobs = list(dict.fromkeys(o.split("=", 1)[0].partition(".")[0].strip() for o in overrides))
        shipped = shipped_profile_values(name, knobs)
        parts = _changes(shipped, profile) if shipped is not None else []
        source = (" (the profile's values as this pagelab ships it: this bundle predates recording them)"
                  if shipped is not None else "")
        if shipped is None:
            parts = [f"`{o}`" for o in overrides]
            source = " (the profile's own values were not recorded)"
    else:
        parts = []
    sets = " ".join(f"`--set {o}`" for o in overrides)
    if recorded is None and not overrides:  # no record of the changed knobs: say how "none" was found
        return _compared_with_shipped(str(name), profile) + duration_sentence(data)
    name = f"`{name}` profile" if name else "profile"  # a bundle made from a dict has no profile name
    if parts:
        text = (f"**Settings changed for this sweep.** It ran the {name} with {sets}, so these knobs "
                f"differ from the profile{source}: " + "; ".join(parts) + ".")
    elif overrides:
        text = f"**Settings changed for this sweep.** It ran the {name} with {sets}, each the profile's own value."
    else:
        text = f"**Settings changed for this sweep.** None: it ran the {name} as its file gives it (no `--set`)."
    return text + duration_sentence(data)


# Recorded profile entries that are no knob a run uses: what the profile says of itself, and the design's
# planned components (they change no run).
NOT_RUN_KNOBS = ("description", "planned_within_a", "planned_floor_pct")


def _compared_with_shipped(name: str, profile: dict) -> str:
    """For a bundle from before sweep.json recorded `changed_knobs` and given no `--set`: the knobs it
    recorded compared with the profile file of its name as this pagelab ships it, so "None" says how
    it was found, and a knob whose shipped value differs is named rather than hidden."""
    import yaml

    from pagelab.common.paths import PROFILES_DIR

    head = "**Settings changed for this sweep.**"
    predates = "this bundle predates recording the changed knobs; no `--set` was given"
    path = PROFILES_DIR / f"{name}.yaml"
    if not name or not path.is_file():
        return (f"{head} None recorded ({predates}), and this pagelab ships no `{name or '?'}` profile to compare "
                "the knobs sweep.json recorded with.")
    shipped = yaml.safe_load(path.read_text()) or {}
    knobs = [knob for knob in shipped if knob in profile and knob not in NOT_RUN_KNOBS]
    differ = [knob for knob in knobs if not _same(shipped[knob], profile[knob], knob)]
    if not differ:
        return (f"{head} None found by comparing the knobs sweep.json recorded with the `{name}` profile as this "
                f"pagelab ships it ({predates}).")
    return (f"{head} These knobs sweep.json recorded differ from the `{name}` profile as this pagelab ships it ("
            f"{predates}, so the file may have changed since the sweep): "
            + "; ".join(_changes({k: shipped[k] for k in differ}, profile)) + ".")


def _same(written, recorded, knob: str) -> bool:
    """Whether a knob's value in a profile file (YAML: '4k', 0, '256M') is the one sweep.json recorded
    (JSON: 4096, '0'): page sizes by their bytes, numbers by value, the rest as text."""
    from pagelab.mysql.pagesize import parse_page_size

    if isinstance(written, dict) and isinstance(recorded, dict):
        return written.keys() == recorded.keys() and all(_same(written[k], recorded[k], k) for k in written)
    if isinstance(written, list) and isinstance(recorded, list):
        return len(written) == len(recorded) and all(_same(a, b, knob) for a, b in zip(written, recorded))
    if knob == "page_sizes":
        try:
            return parse_page_size(str(written)) == parse_page_size(str(recorded))
        except ValueError:  # a value that is no page size (UsageError) differs from one that is
            return False
    try:
        return float(written) == float(recorded)
    except (TypeError, ValueError):
        return str(written) == str(recorded)


def duration_sentence(data: ReportData) -> str:
    """' The sweep took 48 min 24 s of wall-clock time, ...' from sweep.json's creation to its last
    run's end (both recorded); '' when either is missing."""
    import datetime

    def parsed(text):
        try:
            return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z")
        except (TypeError, ValueError):
            return None

    created = parsed(data.record.document.get("created"))
    ends = [t for t in (parsed(e.get("finished")) for e in data.record.runs) if t is not None]
    if created is None or not ends:
        return ""
    seconds = int(round((max(ends) - created).total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    took = (f"{hours} h {minutes} min" if hours else f"{minutes} min {secs} s")
    return (f" The sweep took {took} of wall-clock time, from its creation ({data.record.document['created']}) to its "
            f"last run's end ({max(ends).strftime('%Y-%m-%dT%H:%M:%S%z')}), as sweep.json records them; the report "
            "was made after.")
