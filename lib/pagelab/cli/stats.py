"""`pagelab stats BUNDLE` and `pagelab compare A B`: what a sweep's runs support, with intervals."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pagelab.common.errors import UsageError
from pagelab.evidence.intervals import MIN_ROUNDS_FOR_PAIRED
from pagelab.evidence.model import MIN_BLOCKS_FOR_MODEL, MODEL_METHOD

FORMATS = ("table", "csv", "json")


def _resolve_pct(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give a percentage such as 5") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"{value:g} is out of range; give a percentage above 0 and below 100")
    return value


def _print_frame(frame, fmt: str) -> None:
    if fmt == "json":
        print(frame.to_json(orient="records", indent=1))
    else:
        frame.to_csv(sys.stdout, index=False)


def cmd_stats(args: argparse.Namespace) -> int:
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import model_data
    from pagelab.evidence.hosts import host_spread, host_table
    from pagelab.evidence.medians import page_size_table
    from pagelab.evidence.pairs import pairwise_table
    from pagelab.evidence.stats_text import evidence_text

    from pagelab.evidence.grid import cell_table, effect_table, grid_factors, grid_lines
    from pagelab.evidence.nodes import node_lines, node_summary
    from pagelab.evidence.self_checks import (a_a_table, check_lines, first_round_p, first_round_table,
                                              pair_halves_table)

    table = read_runs(Path(args.bundle).resolve())  # relative to here, not to the project
    factors = grid_factors(table)
    if args.format == "table":
        # A grid's runs are compared within each level; pooled over levels they would mix pools.
        print("\n".join(grid_lines(table) + [f"  left out: {name}: {why}" for name, why in table.excluded])
              if factors else evidence_text(table, args.resolve))
        nodes = node_lines(node_summary(table))
        if nodes:
            print("What the nodes did:\n" + "\n".join(f"  {line}" for line in nodes))
        if args.checks:
            print("\n".join(check_lines(table, args.resolve)))
    elif args.format == "csv":
        print("# per page size")
        _print_frame(page_size_table(table), "csv")
        print("# page sizes compared")
        _print_frame(pairwise_table(table, args.resolve), "csv")
        print("# per host")
        _print_frame(host_table(table), "csv")
        for factor in factors:
            print(f"# per cell, {factor}")
            _print_frame(cell_table(table, factor), "csv")
            print(f"# page-size effect per level, {factor}")
            _print_frame(effect_table(table, factor), "csv")
        if args.checks:
            print("# A/A: odd rounds against even rounds")
            _print_frame(a_a_table(table, args.resolve), "csv")
            print("# A/A: TpmC's pair effects by the two-level model, odd rounds against even rounds")
            _print_frame(pair_halves_table(table), "csv")
            print("# the first round against the later rounds")
            _print_frame(first_round_table(table), "csv")
    else:
        import json

        document = {"page_sizes": page_size_table(table).to_dict("records"),
                    "pairs": pairwise_table(table, args.resolve).to_dict("records"),
                    "excluded": [{"run": name, "why": why} for name, why in table.excluded],
                    "looks": {"max_rounds": table.looks.max_rounds, "family_confidence": table.confidence,
                              "looks": [{"look": look.look, "rounds": look.rounds, "time": look.time, "z_boundary": c}
                                        for look, c in zip(table.looks.looks, table.looks.boundaries())]},
                    "hosts": host_table(table).to_dict("records"), "host_spread": host_spread(table),
                    "nodes": node_summary(table),
                    "grid": {factor: {"cells": cell_table(table, factor).to_dict("records"),
                                      "effects": effect_table(table, factor).to_dict("records")}
                             for factor in factors}}
        model = model_data(table)  # the variance components and the over-time runs' share; null without series
        document["components"] = model.components.to_dict() if model else None
        document["over_time"] = [vars(use) for use in model.over_time] if model else []
        if args.checks:
            document["checks"] = {"a_a": a_a_table(table, args.resolve).to_dict("records"),
                                  "a_a_pair_effects": pair_halves_table(table).to_dict("records"),
                                  "first_round": first_round_table(table).to_dict("records"),
                                  "first_round_p": first_round_p(table)}
        print(json.dumps(document, indent=1, default=str).replace("NaN", "null"))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from pagelab.bundle import read_runs
    from pagelab.evidence.runs import METRICS, equivalence_of
    from pagelab.evidence.wording import BOOTSTRAP_WORDS, family_text
    from pagelab.evidence.two_sweeps import (compare_bundles, effect_lines, effect_table, knob_differences,
                                             shift_lines)

    a_dir, b_dir = Path(args.a), Path(args.b)
    a, b = read_runs(a_dir.resolve()), read_runs(b_dir.resolve())
    common = [size for size in a.page_order if size in b.page_order]
    if not common:
        raise UsageError(f"{a_dir} ({', '.join(a.page_order)}) and {b_dir} ({', '.join(b.page_order)}) share no "
                         "page size; compare sweeps of the same page sizes")
    differences = knob_differences(a.profile, b.profile)
    for difference in differences:
        print(f"pagelab compare: warning: the profiles differ in {difference}", file=sys.stderr)
    label_a, label_b = args.label_a or a_dir.name, args.label_b or b_dir.name
    delta = equivalence_of(a)
    levels = compare_bundles(a, b, label_a, label_b, args.resolve, delta)
    effects = effect_table(a, b, delta)
    if args.format == "json":
        import json

        document = {"equivalence_pct": delta, "effects": effects.to_dict("records"), "levels": levels.to_dict("records"),
                    "knob_differences": differences}
        print(json.dumps(document, indent=1, default=str).replace("NaN", "null"))
        return 0
    if args.format == "csv":
        print("# 1 page-size effects, A against B")
        _print_frame(effects, "csv")
        print("# 2 levels per page size, A against B")
        _print_frame(levels, "csv")
        return 0
    print(f"A = {a_dir} ({label_a})\nB = {b_dir} ({label_b})\nequivalence margin ±{delta:g}% (A's equivalence_pct)")
    # Metrics a sweep did not measure (no iostat on this disk) say nothing; they are left out here.
    measured = [metric for metric in METRICS if levels[levels["metric"] == metric.name]["change_pct"].notna().any()]
    for metric in measured:
        part = effects[effects["metric"] == metric.name]
        if part.empty:
            continue
        m = int(part["family_size"].max())
        modelled = part["method"].str.startswith(MODEL_METHOD)
        how = ("t interval (the two-level model's estimate in each sweep, Welch-Satterthwaite degrees of freedom, "
               "p Holm-adjusted" if modelled.all() else
               "interval (each line names its method" if modelled.any() else
               f"bootstrap interval (each sweep's rounds resampled on their own, {BOOTSTRAP_WORDS}")
        print(f"1. Did the page-size effects change? {metric.label}: each pair's effect in A and in B, and their "
              f"difference in log points (100 × difference of log ratios) with a {part['confidence_pct'].iloc[0]:.4g}% "
              f"{how}" + (f"; Bonferroni for a family of {m} pairs)" if m > 1 else ")") + ":")
        for line in effect_lines(effects, label_a, label_b, metric.name):
            print(f"  {line}")
    for metric in measured:
        part = levels[levels["metric"] == metric.name]
        print("2. Did the whole level move, alike for every page size? " +
              family_text(part, f"{metric.label}, A / B per page size"))
        for line in shift_lines(levels, effects, label_a, label_b, metric.name):
            print(f"  {line}")
    print("3. Which knobs differ: " + ("; ".join(differences) if differences else "none that changes what is measured"))
    for name, table in ((label_a, a), (label_b, b)):
        for run, why in table.excluded:
            print(f"  left out of {name}: {run}: {why}")
    return 0


def register(commands) -> None:
    stats = commands.add_parser(
        "stats", help="medians with intervals per page size, and a verdict for each pair",
        description="What a sweep found, in figures: how each page size did, and for each pair of page sizes "
                    "how much faster or slower, with an interval and one word (faster, slower, equivalent, not "
                    "resolved or not tested; README.md's \"Reading the verdicts\" says how to read and write them "
                    "up, runbooks/glossary.md defines the terms). How: read a sweep bundle's finished runs (each "
                    "repeat one independent run) and print, per page "
                    "size, the median TpmC, read and write IOPS, hit ratio and New-Order p95 with an order-statistic "
                    "interval, then each pair of page sizes with an interval and a verdict, its method named on its "
                    "line. TpmC's pairs are judged by a two-level model (the mean log-ratio over blocks: the rounds, "
                    "and a sweep's over-time runs as one block more; a t interval "
                    f"on the blocks less one) where every run kept its interval series and {MIN_BLOCKS_FOR_MODEL} or "
                    "more blocks are shared (the over-time runs' block counts where both page sizes have one). The other metrics' pairs (and TpmC's without series) are a ratio of "
                    f"medians with a bootstrap interval: with {MIN_ROUNDS_FOR_PAIRED} or more rounds (repeats) "
                    "finished by both page sizes compared round by round (the rounds resampled together, the "
                    "Wilcoxon signed-rank test), since the runs of a round run back to back on one machine, within "
                    "minutes of each other; "
                    "else run by run (the Mann-Whitney test). Order of testing, within each metric: a declared "
                    "primary comparison (the knob primary) is tested first, alone, at the full level; the other "
                    "pairs only after it was called faster or slower, as one family (p-values Holm-adjusted, "
                    "intervals at the Bonferroni-adjusted level); without a primary all the pairs of a metric are "
                    "that one family. The verdict: faster/slower only when the interval lies wholly on one side of 0% and the "
                    "test agrees; 'equivalent within ±δ' when the interval lies inside ±δ (the bundle's "
                    "equivalence_pct); else 'not resolved', with the smallest effect these runs resolve and the runs "
                    "δ would need. A sweep grown with `pagelab sweep --resume BUNDLE "
                    "--add-rounds N` is judged at its latest look's group-sequential boundary, and its looks are "
                    "listed. Failed or unfinished runs are left out and named.")
    stats.add_argument("bundle", metavar="BUNDLE", help="a sweep directory (data/runs/<sweep-id>)")
    stats.add_argument("--format", choices=FORMATS, default="table", help="table (default), csv or json")
    stats.add_argument("--resolve", type=_resolve_pct, default=5.0, metavar="PCT",
                       help="the effect, in percent, for which a pair that is not resolved is told how many rounds "
                            "(runs a side, where its runs were not compared round by round) would resolve it "
                            "(default 5)")
    stats.add_argument("--checks", action="store_true",
                       help="also check the sweep against itself: each page size's odd rounds against its even "
                            "rounds, judged as page sizes are (an A/A test: any faster/slower there is a false "
                            "call); where the runs kept interval series, also each TpmC pair's effect by the "
                            "two-level model in the odd and in the even rounds (any 'differ' there is a false "
                            "call); and whether the first round, right after each load, stands apart")
    stats.set_defaults(handler=cmd_stats)

    compare = commands.add_parser(
        "compare", help="two sweeps: did the page-size effects change, did the level move, which knobs differ",
        description="Whether two sweeps agree, for example your sweep and a classmate's, or one machine on two "
                    "days: the words are read as in `pagelab stats` (README.md's \"Reading the verdicts\"). "
                    "How: compare two sweep bundles (two machines, two days, two server settings) in three questions: "
                    "(1) did each pair's page-size effect change (the difference of the two effects in log points "
                    "with a bootstrap interval, or for TpmC, where both sweeps' runs kept interval series, the two-level "
                    "model's estimate in each with a Welch-Satterthwaite t interval: agree within ±δ, differ, or not "
                    "resolved); (2) did the whole level "
                    "move, and alike for every page size (a uniform shift only when every effect agrees, else an "
                    "interaction); (3) which knobs differ (also warned of on stderr). δ is A's equivalence_pct.")
    compare.add_argument("a", metavar="BUNDLE_A", help="a sweep directory (data/runs/<sweep-id>), the reference")
    compare.add_argument("b", metavar="BUNDLE_B", help="another sweep directory, compared with A")
    compare.add_argument("--label-a", help="name of A in the output (default its directory name)")
    compare.add_argument("--label-b", help="name of B in the output (default its directory name)")
    compare.add_argument("--format", choices=FORMATS, default="table", help="table (default), csv or json")
    compare.add_argument("--resolve", type=_resolve_pct, default=5.0, metavar="PCT",
                         help="the effect, in percent, for which a comparison that is not resolved is told how many "
                              "rounds (runs a side, where not compared round by round) would resolve it (default 5)")
    compare.set_defaults(handler=cmd_compare)
