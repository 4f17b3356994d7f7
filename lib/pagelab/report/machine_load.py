"""What the report says about other work on the machine while the runs measured.

Each run since pagelab recorded it keeps, in summary.json's `other_work`, the mean number of cores
that user processes other than the run's own (server, driver, samplers, pagelab) kept busy during
its measurement, the kernel's threads and interrupts apart from them, and the hypervisor's steal
(pagelab.machine.other_work). The Method gives the median
and the largest; page 1 warns when any verdict run measured beside more than LOADED_CORES, because
a loaded run is slower and noisier and a reader deciding what to hand in needs to know it first.
Bundles from before the record say that they have none.
"""

from __future__ import annotations

import pandas as pd

from pagelab.evidence.runs import LOADED_CORES, other_work_of
from pagelab.report.lab_report import ReportData


def _recorded(data: ReportData) -> pd.DataFrame:
    summary = data.tables["summary"]
    if summary.empty or "other_cores" not in summary:
        return pd.DataFrame()
    return summary.dropna(subset=["other_cores"])


def _cores(value: float) -> str:
    return f"{value:.2f} cores"


def other_work_sentence(data: ReportData) -> str | None:
    """The Method's sentence on the recorded load; None where no run recorded it."""
    recorded = _recorded(data)
    found = other_work_of(recorded)
    if found is None:
        return None
    steal = recorded["steal_cores"].dropna() if "steal_cores" in recorded else pd.Series(dtype=float)
    runs = len(data.tables["summary"])
    text = (f" While each run measured, pagelab read the kernel's CPU accounting at its start and end: processes other "
            f"than the run's own (its server, the driver, the samplers and pagelab) kept a median of "
            f"{_cores(found.median)} busy over the {found.runs} verdict runs that recorded it"
            + (f" of {runs}" if found.runs < runs else "") + f", {_cores(found.most)} at most"
            # a run is named only where its figure is not the quiet 0.00 every run shares
            + (f" ({found.most_run})" if round(found.most, 2) > 0 else ""))
    text += (f"; {len(found.loaded)} run{'s' if len(found.loaded) != 1 else ''} measured beside more than "
             f"{LOADED_CORES:g} of a core of other work ({', '.join(found.loaded)})" if found.loaded else
             f"; no run measured beside more than {LOADED_CORES:g} of a core of other work")
    if not steal.empty:
        text += f", and the hypervisor took (steal) a median of {_cores(steal.median())}, at most {_cores(steal.max())}"
    kernel = recorded["kernel_cores"].dropna() if "kernel_cores" in recorded else pd.Series(dtype=float)
    if not kernel.empty:
        text += (f". The kernel's own threads and interrupts, which mostly serve the runs' own disk and network "
                 f"traffic, kept a median of {_cores(kernel.median())} busy; they are not counted as other work")
    return text + "."


def load_warning(data: ReportData) -> str:
    """Page 1's warning when verdict runs measured beside other work; '' otherwise."""
    recorded = _recorded(data)
    if recorded.empty or "role" not in recorded:
        return ""
    found = other_work_of(recorded[recorded["role"] == "verdict"])
    if found is None or not found.loaded:
        return ""
    verdict_runs = int((data.tables["summary"]["role"] == "verdict").sum())
    return (f"**Other work ran beside {len(found.loaded)} of the {verdict_runs} verdict runs** (more than "
            f"{LOADED_CORES:g} of a core while they measured; most {_cores(found.most)}, in {found.most_run}; "
            "Method). Their TpmC is lower and the intervals wider than on an idle machine. The verdicts stay honest for the spread the runs had; a rerun on an idle machine "
            "is the README's advice, with the report to hand in chosen before the rerun starts.\n\n")
