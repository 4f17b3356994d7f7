"""Synthetic sweeps with known variance components, for the benches that check the statistics
(imported by name: each bench script runs with bench/ on its path; tests import it as bench.synthetic).

A run of page size p in block b measures T seconds in intervals of `interval_s`. Its log rate in
interval t is

    log rate = level + effect_p + block_b + node_b + run + e_t

- effect_p: the page size's true effect (log scale; the first page size is 0);
- block_b ~ N(0, block_sd^2): what a round shares (a slow minute of the machine);
- node_b: the node's level when `nodes` > 1 (each block on one node, or, `spread_blocks`, each run
  on a node of its own, as one Slurm task per run did);
- run ~ N(0, f): the between-run floor;
- e_t: the within-run noise, an AR(1) series (coefficient `ar1`) whose mean over T seconds has
  variance a / T for large T (the interval's variance is a / interval_s * (1 - ar1) / (1 + ar1)).

A run's probe (`sweep(..., probes={})`, for CUPED: pagelab.evidence.covariate) is measured before
its measurement: level + probe_effect_p + block_b + node_b + probe_sd z_run, z_run = probe_rho
run / sqrt(f) + sqrt(1 - probe_rho^2) e, e ~ N(0, 1) -- correlated with the run's random effect
(the between-run floor) at probe_rho, and seeing the round's minute as the run does.
probe_effect_p (`probe_effects`, log scale) is how the page size moves the probe: 0 for a probe
taken alike whatever the page size (the machine's), the page size's effect on the ramp-up for a
run's ramp-up rate.

An over-time run may drift: `drift_pct_per_min` adds a linear trend in log rate after
`drift_after_s`. The true effect of a pair is effect_a - effect_b (log scale).

Usage: `sweep(SyntheticDesign(...), rng)` returns `list[RunSeries]` (pagelab.evidence.components),
the shape the evidence code takes from a real bundle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pagelab.evidence.components import RunSeries


@dataclass(frozen=True)
class SyntheticDesign:
    page_sizes: tuple[str, ...] = ("4k", "8k", "16k")
    effects: tuple[float, ...] = (0.0, 0.0, 0.0)  # log-scale effect of each page size
    rounds: int = 7
    run_s: float = 100.0
    interval_s: float = 10.0
    within_a: float = 0.32  # log-scale variance x seconds (3,200 %^2 s)
    between_f: float = 0.00026  # log-scale variance (a floor of 1.6%)
    block_sd: float = 0.05  # what a round shares
    ar1: float = 0.0
    level: float = math.log(15_000)
    over_time_s: float = 0.0  # > 0: one over-time run per page size after the rounds, in one block
    drift_pct_per_min: float = 0.0  # of the over-time runs, after drift_after_s
    drift_after_s: float = 0.0
    drifting_sizes: tuple[str, ...] = field(default_factory=tuple)  # () with a drift: every page size
    nodes: int = 1
    node_sd: float = 0.0
    spread_blocks: bool = False  # each run on a node of its own (the old Slurm layout)
    probe_rho: float = 0.0  # the probe's correlation with the run's random effect (only with probes={})
    probe_sd: float = 0.05  # the probe's own spread, log scale
    probe_effects: tuple[float, ...] = (0.0, 0.0, 0.0)  # how each page size moves the probe, log scale
    # the over-time runs' own within-run a (None: within_a), as course-full's were quieter within
    # than its verdict runs (pagelab.evidence.components' groups)
    over_time_within_a: float | None = None


def _within_series(n: int, design: SyntheticDesign, rng: np.random.Generator, within_a: float | None = None) -> np.ndarray:
    """n intervals of AR(1) noise whose long-run variance of the mean over n * interval_s is a / T
    (a = `within_a`, the design's by default)."""
    rho = design.ar1
    # the mean of n AR(1) values has variance ~ innovation variance / ((1 - rho)^2 n) == a / (n * interval_s)
    sigma2 = (design.within_a if within_a is None else within_a) / design.interval_s * (1 - rho) ** 2
    e = np.empty(n)
    e[0] = rng.normal(0, math.sqrt(sigma2 / (1 - rho ** 2)))
    innovations = rng.normal(0, math.sqrt(sigma2), n)
    for t in range(1, n):
        e[t] = rho * e[t - 1] + innovations[t]
    return e


def _run(design: SyntheticDesign, size_index: int, block: str, shared: float, run_s: float, role: str,
         rng: np.random.Generator, drift: bool, probes: dict | None = None) -> RunSeries:
    n = int(round(run_s / design.interval_s))
    run_effect = rng.normal(0, math.sqrt(design.between_f))
    within = design.over_time_within_a if role == "over_time" else None
    logs = design.level + design.effects[size_index] + shared + run_effect + _within_series(n, design, rng, within)
    if probes is not None:  # drawn only when asked, so the other benches' draws stay as they were
        rho = design.probe_rho
        z = (rho * run_effect / math.sqrt(design.between_f) if design.between_f > 0 else 0.0) \
            + math.sqrt(1 - rho ** 2) * rng.normal()
        probes[design.page_sizes[size_index], block] = (design.level + design.probe_effects[size_index] + shared
                                                       + design.probe_sd * z)
    if drift:
        minutes = np.arange(1, n + 1) * design.interval_s / 60
        after = np.clip(minutes - design.drift_after_s / 60, 0, None)
        logs = logs + design.drift_pct_per_min / 100 * after
    return RunSeries(f"{design.page_sizes[size_index]}-{block}", design.page_sizes[size_index], block,
                     tuple(np.exp(logs)), (design.interval_s,) * n, role)


def sweep(design: SyntheticDesign, rng: np.random.Generator, probes: dict | None = None) -> list[RunSeries]:
    """One synthetic sweep: every page size once per round, then the over-time runs, if any. With
    `probes` (a dict), each run's probe is put in it as {(page size, block): log probe}."""
    node_levels = rng.normal(0, design.node_sd, max(design.nodes, 1))
    runs = []
    for r in range(1, design.rounds + 1):
        block_shift = rng.normal(0, design.block_sd)
        for i in range(len(design.page_sizes)):
            node = (r - 1) % design.nodes if not design.spread_blocks else int(rng.integers(design.nodes))
            runs.append(_run(design, i, f"r{r}", block_shift + node_levels[node], design.run_s, "verdict",
                             rng, False, probes))
    if design.over_time_s:
        block_shift = rng.normal(0, design.block_sd)
        drifting = design.drifting_sizes or design.page_sizes
        for i, size in enumerate(design.page_sizes):
            runs.append(_run(design, i, "over-time", block_shift, design.over_time_s, "over_time", rng,
                             bool(design.drift_pct_per_min) and size in drifting, probes))
    return runs


def true_effect(design: SyntheticDesign, a: str, b: str) -> float:
    """The true log-scale effect of page size a against b."""
    index = {size: i for i, size in enumerate(design.page_sizes)}
    return design.effects[index[a]] - design.effects[index[b]]


def meets_goals(coverage: float, false_low: float) -> bool:
    """The goals the model's checks were set before any was run: 95% intervals that cover the true
    effect 93-97% of the time, and a family false-call rate under no effect of at most 5%, judged
    by its exact binomial interval's lower end (`false_low`): a rate measured above 5% passes
    unless its whole interval lies above it, since a primary tested at 5% first makes 5% itself
    the family's error."""
    return 0.93 <= coverage <= 0.97 and false_low <= 0.05


def write_bundle(runs: list[RunSeries], directory, page_sizes: tuple[str, ...] = ("4k", "8k", "16k"),
                 profile: dict | None = None, with_series: bool = True) -> None:
    """A bundle as a sweep leaves it for `pagelab stats`: sweep.json, and per run summary.json and
    (`with_series`) tpcc_intervals.csv with whole New-Order counts per interval. Enough for the
    evidence, not for the report."""
    import json
    from pathlib import Path

    from pagelab.mysql.pagesize import parse_page_size

    directory = Path(directory)
    entries = []
    rounds: dict[str, int] = {}
    for run in runs:
        name = run.run
        (directory / name).mkdir(parents=True, exist_ok=True)
        seconds = np.asarray(run.seconds)
        counts = np.rint(np.asarray(run.rates) * seconds / 60)
        tpmc = float(counts.sum() / seconds.sum() * 60)
        (directory / name / "summary.json").write_text(json.dumps({"tpmc": tpmc, "measure_s": float(seconds.sum()),
                                                                    "interval_s": float(np.median(seconds))}))
        if with_series:
            ends = np.cumsum(seconds)
            lines = ["t_s,new_order"] + [f"{end:g},{int(count)}" for end, count in zip(ends, counts)]
            (directory / name / "tpcc_intervals.csv").write_text("\n".join(lines) + "\n")
        over_time = run.role == "over_time"
        number = rounds.setdefault(run.block, len(rounds) + 1)
        entries.append({"name": name, "page_size_bytes": parse_page_size(run.page_size), "page_size": run.page_size,
                        "repeat": 1 if over_time else number, "round": number, "status": "done", "role": run.role})
    document = {"runs": entries, "profile": {"page_sizes": [parse_page_size(s) for s in page_sizes],
                                             **(profile or {})},
                "primary": {"comparison": (profile or {}).get("primary", ""), "declared": "before any run"}}
    (directory / "sweep.json").write_text(json.dumps(document))
