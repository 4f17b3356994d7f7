"""The report's Method: what each run did (instances, load, snapshot, restore, pool, driver, ramp-up,
measurement, sampling), how the rounds were ordered, and the machine's own noise, in the words of
the bundle's records.

Apart from the tables of the Setup (pagelab.report.setup_tables) because it changes with how a run
is made (pagelab.sweep.experiment, pagelab.sweep.run_unit), not with the lab's tables.
"""

from __future__ import annotations

import pandas as pd

from pagelab.bundle import ROUND_ORDER_DRAWN
from pagelab.common.units import size_text
from pagelab.report.lab_report import ReportData, summary_values
from pagelab.report.seed_configuration import (measured_seconds_sentence, memory_budget_sentence, not_applicable_sentence,
                                              pool_share_text)


def method_markdown(data: ReportData) -> str:
    profile = data.profile
    db = summary_values(data, "db_bytes")
    pools = summary_values(data, "buffer_pool_bytes")
    pool_text = str(profile.get("buffer_pool"))
    summary = data.tables["summary"]
    if isinstance(profile.get("buffer_pool"), list) and "level_buffer_pool" in summary:
        # a grid over the pool: each level's bytes, the same for every page size
        levels = summary.groupby("level_buffer_pool", sort=False)["buffer_pool_bytes"].median()
        shown = [f"{level} ({size_text(levels[level])})" for level in profile["buffer_pool"] if level in levels]
        pool_text = (", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else "".join(shown)) + \
            ", one level of the grid per run"
    elif pool_share_text(summary):
        pool_text = pool_share_text(summary)
    if profile.get("rampup_s") == "auto":
        # runs from before a pool still filling could take the ramp-up past the cap record no ceiling
        ceilings = summary_values(data, "rampup_ceiling_s")
        extension = f", or {max(ceilings):g} s while the pool was still filling" if ceilings else ""
        # ended by a rule, not shown steady after: `measured_seconds_sentence` says what the seconds after it are
        rampup = (f"an automatic ramp-up (it ended once the buffer pool no longer filled and MSER-5 found the rows "
                  f"written and pages read per second level, or at the cap: at most {profile.get('max_rampup_s')} s"
                  f"{extension})")
        taken = summary_values(data, "rampup_s")
        if taken:
            shortest, longest = round(min(taken)), round(max(taken))
            rampup += (f", which took {shortest}-{longest} s" if shortest != longest
                       else f", which took {shortest} s in every run")
            ended = summary["rampup_ended_by"].value_counts() if "rampup_ended_by" in summary else pd.Series(dtype=int)
            past_cap = int(ended.get("filled", 0) + ended.get("ceiling", 0))
            if past_cap:
                rampup += (f"; in {past_cap} of {len(taken)} runs the pool was still filling at the cap, and the "
                           f"ramp-up went on until it stopped" + (f" ({int(ended['ceiling'])} reached twice the cap)"
                                                              if ended.get("ceiling", 0) else ""))
            elif shortest >= profile.get("max_rampup_s", float("inf")):
                rampup += " (the cap ended every ramp-up)"
    else:
        rampup = f"{profile.get('rampup_s')} s of ramp-up"
    if profile.get("measure_s") == "auto":
        measure = (f"measurement until the 95% batch-means interval of TpmC was within {profile.get('target_ci_pct')}% "
                   f"(at most {profile.get('max_measure_s')} s)")
    else:
        measure = f"{profile.get('measure_s')} s measured from its end" if profile.get("rampup_s") == "auto" else \
            f"{profile.get('measure_s')} s measured"
    measure_s = profile.get("measure_s")
    after = (measured_seconds_sentence(data, float(measure_s)) if profile.get("rampup_s") == "auto"
             and isinstance(measure_s, (int, float)) and not isinstance(measure_s, bool) else "")
    sizes = ", ".join(data.page_sizes)
    repeats = profile.get("repeats", 1)
    # said either way: a reader of a noisy sweep looks for the machine's own noise, and must not take
    # its absence for a quiet machine
    noise = (" The machine's own noise was not measured before the runs (`pagelab sweep --noise` measures it), so "
             "this report has no record of it beside the runs' own variance components.")
    if data.evidence.noise:
        from pagelab.evidence.stats_text import noise_lines

        noise = (" Before the runs the machine's own noise was measured (`pagelab sweep --noise`): "
                 + "; ".join(noise_lines(data.evidence.noise)) + ".")
    noise += load_record_sentence(data)
    from pagelab.evidence.hosts import host_lines

    found_hosts = host_lines(data.evidence)
    hosts = found_hosts[0].split(" Median ")[0] if found_hosts else ""  # which hosts; Table "per host" has the rest
    # Bundles from before every run restored the snapshot and flushed the kernel's writes lack the record.
    restored = ("Each measured run, the first included, restored that snapshot, had the kernel's pending writes "
                "flushed, " if "writeback_dirty_bytes" in summary else
                "Each measured run after a page size's first restored that snapshot (the first ran on the datadir "
                "the load left), ")
    random_seed = profile.get("random_seed", profile.get("seed"))  # `seed` in bundles before its rename
    return (
        f"Each page size ({sizes}) got its own MariaDB instance, initialised with that `innodb_page_size` and "
        f"loaded with {profile.get('warehouses')} TPC-C warehouse{'s' if profile.get('warehouses') != 1 else ''} from random seed {random_seed}, so every page "
        f"size holds the same rows. After the load the datadir was snapshotted. {restored}restarted the server "
        f"with a buffer pool of {pool_text} and `innodb_flush_method="
        f"{profile.get('flush_method')}`, and ran {profile.get('connections')} connections of the "
        f"`{profile.get('driver_mode')}` driver mode {driver_text(profile)} "
        f"{transport_text(profile)} with {rampup}, then {measure}.{after} `iostat`, `SHOW ENGINE INNODB STATUS` and `SHOW "
        f"GLOBAL STATUS` were sampled every {profile.get('sample_interval_s')} s.{memory_budget_sentence(data)}"
        f"{not_applicable_sentence()} "
        + (f"There were {repeats} runs per page size, in rounds of one run per page size, "
           + (f"each round in an order drawn afresh from random seed {random_seed} (the figure of TpmC in run order "
              "shows it), so a slow drift of the machine falls on every page size and a position in the round on none "
              "systematically: repeated, randomised rounds, with every effect given with its interval, as the "
              "benchmarking literature asks (Kalibera & Jones 2013; Hoefler & Belli 2015; Maricq et al. 2018 on "
              "the variability of cloud and testbed machines). " if _rounds_shuffled(data) else
              f"each round in the page sizes' order ({sizes}; this sweep predates the drawn order), so a slow drift of "
              "the machine falls on every page size. ") if repeats > 1 else
           "There was one run per page size, so no difference between page sizes can be told from noise. ") +
        "Per page size the report gives the median of the runs with an order-statistic interval; how each pair of "
        f"page sizes was judged follows below.{noise}" + (f" {hosts}" if hosts else ""))


def load_record_sentence(data: ReportData) -> str:
    """What the bundle recorded of other work on the machine during the runs: the CPU other
    processes used while each run measured (pagelab.report.machine_load), or, in bundles from before
    that record, that there is none, so a reader does not take silence for an idle machine; and where
    the data device completed more read requests than InnoDB issued (pagelab.report.read_requests),
    the largest excess, the trace other work leaves on the disk."""
    from pagelab.report.machine_load import other_work_sentence
    from pagelab.report.read_requests import device_against_innodb

    cpu = other_work_sentence(data)
    text = cpu or (" Nor does the bundle record a load average or anything else of what ran on the machine beside "
                   "the runs (bundles from before pagelab recorded it), so it cannot say whether the machine was "
                   "otherwise idle")
    table = device_against_innodb(data)
    if table.empty:
        return text if cpu else text + "."
    excess = 100 * (table["device_r_s"] / table["innodb_r_s"] - 1)
    worst = table.loc[excess.idxmax()]
    # the bytes too: a few more requests can carry many more bytes, which is what makes a page
    # size's mean read request larger than its page (the Discussion's read-request claim)
    more_bytes = 100 * (table["device_kb_s"] / table["innodb_kb_s"] - 1)
    most_bytes = table.loc[more_bytes.idxmax()] if more_bytes.notna().any() else None
    bytes_text = (f" and read up to {more_bytes.max():.1f}% more bytes than InnoDB read ({most_bytes['page_size']})"
                  if most_bytes is not None and more_bytes.max() >= 1 else "")
    if excess.max() >= 1:
        disk = (f"the data device completed up to {excess.max():.1f}% more read requests than InnoDB issued "
                f"({worst['page_size']}){bytes_text} (Section 4.2)")
        return text + (f" On the disk, {disk}." if cpu else f"; the one trace of other work it keeps is on the data "
                                                             f"device, which {disk.removeprefix('the data device ')}.")
    # said as the numbers show it: a device can complete slightly fewer requests than InnoDB issued (Section
    # 4.2 gives each page size's), so "no more" would be a claim the figures beside it contradict
    from pagelab.evidence.wording import pct_text

    each = ", ".join(f"{row['page_size']} {pct_text(pct)}" for row, pct in zip(table.to_dict("records"), excess))
    if excess.min() > -1:
        disk = (f"the data device completed about as many read requests as InnoDB issued (within 1% either way: "
                f"{each}; Section 4.2): no other work read that disk much")
    else:
        disk = (f"the data device completed fewer read requests than InnoDB issued at some page size ({each}; "
                "Section 4.2), which other work, adding requests, cannot explain")
    return text + (f" On the disk, {disk}." if cpu else f"; {disk}.")


def _rounds_shuffled(data: ReportData) -> bool:
    """Whether the sweep drew its rounds' orders from its seed (pagelab.bundle.ROUND_ORDER_DRAWN)."""
    return data.record.document.get("round_order") == ROUND_ORDER_DRAWN


def driver_text(profile: dict) -> str:
    """What the driver mode is, and, for pagelab's own `statements`, how far it was checked against a
    real tpcc-mysql: the level and the page-size effect agree at 1 warehouse (README, "Driver modes",
    has the measured figures); at 7 (course's shape) a first look of 3 rounds a mode found the level
    within 4% and could not resolve the effects' agreement (runbooks/tpcc-page-size.md); other shapes
    not checked. A paper citing the report needs it."""
    mode = profile.get("driver_mode")
    if mode == "tpcc-mysql":
        return "(a real tpcc-mysql build)"
    if mode == "procedures":
        return "(one stored-procedure call per transaction: a heavier load than tpcc-mysql's, not the lab's workload)"
    shape = ("" if profile.get("warehouses") == 1 else
             "; at 7 warehouses a first look of 3 rounds a mode found the level within 4% but could not tell the "
             "effects apart (their difference's interval about ±20 points)" if profile.get("warehouses") == 7 else
             f", not at this sweep's {profile.get('warehouses')} warehouses")
    return ("(tpcc-mysql's statements, transaction boundaries and mix, sent by pagelab's own driver, not by "
            "tpcc-mysql's binary: against a real tpcc-mysql on one machine it ran a few percent below tpcc-mysql's "
            "TpmC with the same ratios between page sizes, measured at 1 warehouse" + shape
            + "; README, \"Driver modes\", gives the figures)")



def driver_caveat(profile: dict) -> str:
    """For the Summary and Conclusion, where pagelab's own `statements` driver ran at a shape its
    page-size effects were not shown to match tpcc-mysql's at (only 1 warehouse was): a sentence saying
    so, as a claim citing the verdicts depends on it; '' otherwise."""
    if profile.get("driver_mode") != "statements" or profile.get("warehouses") == 1:
        return ""
    return (f" These runs used pagelab's own driver (`statements`: tpcc-mysql's statements, not its binary); its "
            f"page-size effects match a real tpcc-mysql's at 1 warehouse, and at this sweep's "
            f"{profile.get('warehouses')} warehouses that is not yet settled (the Method's driver paragraph; "
            "`--mode tpcc-mysql` runs the real binary).")

def transport_text(profile: dict) -> str:
    """How the driver reached the server, for the Method; a bundle from before the knob says so."""
    transport = profile.get("transport")
    if transport == "socket":
        return "over the instance's unix socket"
    if transport == "tcp":
        return "over TCP to 127.0.0.1 (as tpcc-mysql is documented)"
    return "(the transport was not recorded: this bundle predates the knob)"
