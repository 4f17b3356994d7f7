"""`pagelab plan --from BUNDLE`: the rounds x run length a budget buys, from an earlier bundle's
variance components and timings on this machine (pagelab.evidence.planner)."""

from __future__ import annotations

import argparse
import math
import re
import sys
from itertools import combinations
from pathlib import Path

from pagelab.common.errors import UsageError
from pagelab.evidence.block_weights import EQUAL, PRECISION
from pagelab.report.seed_configuration import STEADY_MEASURE_S
from pagelab.sweep.knobs import RECORD_KNOBS

# Knobs a design chooses or that do not change what a run measures: the rest must match for a
# bundle's components to stand for the planned sweep's.
DESIGN_KNOBS = ("repeats", "measure_s", "over_time_s", "max_rounds", "max_measure_s", "equivalence_pct", "primary",
                "sample_interval_s", "random_seed", "seed", "planned_within_a", "planned_floor_pct", "block_weights",
                *RECORD_KNOBS)
UNITS_S = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}


def duration_s(text: str) -> float:
    """'2h', '10min', '90m', '600s' or '600' (seconds) as seconds."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*", text)
    if not found:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration; give one such as 2h, 10min or 600s")
    if float(found.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} leaves no time for a sweep; give a duration above 0, such as 2h")
    return float(found.group(1)) * UNITS_S[found.group(2) or "s"]


def share(text: str) -> float:
    """'5%' or '5' as 0.05; '80%' as 0.8."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%?\s*", text)
    if not found or not 0 < float(found.group(1)) < 100:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage; give one above 0 and below 100, such as 5%")
    return float(found.group(1)) / 100


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds < 5400 else f"{seconds / 3600:.2f} h"


def _pair_named(text: str, order: list[str]) -> tuple[str, str]:
    found = re.fullmatch(r"\s*(\w+)\s+vs\.?\s+(\w+)\s*", text or "")
    if not found or found.group(1) not in order or found.group(2) not in order or found.group(1) == found.group(2):
        raise UsageError(f"--pair {text!r}: give two of the bundle's page sizes ({', '.join(order)}) as 'A vs B', "
                         f"e.g. '{order[-1]} vs {order[0]}'")
    return found.group(1), found.group(2)


def _refuse_other_machine(record) -> None:
    from pagelab.machine.hosts import other_machines

    done = [entry["name"] for entry in record.runs if entry["status"] == "done"]
    for differences in other_machines(record.directory, done):
        raise UsageError(f"{record.directory} was made on another machine ({differences}), so its variance "
                         "components and timings say nothing about this one: no design. Run a sweep here (e.g. "
                         "pagelab sweep --profile quick) and plan from it; a sweep on a cluster's nodes is planned "
                         "from `pagelab stats BUNDLE` instead (runbooks/slurm.md, \"More rounds for a bundle on the "
                         "cluster\")")


def cmd_plan(args: argparse.Namespace) -> int:
    from pagelab.bundle import SweepRecord, read_runs, run_timings
    from pagelab.evidence import planner
    from pagelab.evidence.sequential import planned_looks
    from pagelab.evidence.runs import components_of
    from pagelab.sweep.profiles import load_profile, profile_from_dict

    paths = [Path(source).resolve() for source in args.sources]
    twice = sorted({str(path) for path in paths if paths.count(path) > 1})
    if twice:
        raise UsageError(f"--from {', '.join(twice)} given more than once: a bundle's rounds would count twice. Give "
                         "each bundle once")
    records = [SweepRecord.load(path) for path in paths]
    record = records[0]  # the costs, the over-time runs' share and a sweep's looks are the first bundle's
    made = profile_from_dict(record.document["profile"])
    tables = []
    for each in records:
        if not args.as_made:
            _refuse_other_machine(each)
        _refuse_other_setup(record, made, each)
        tables.append(read_runs(each))
    table = tables[0]
    all_components = [components_of(each) for each in tables]
    for each, found in zip(records, all_components):
        if found is None:
            raise UsageError(f"{each.directory} kept no interval series of its runs (tpcc_intervals.csv), so it has no "
                             "variance components: no design. Plan from a newer sweep of this machine")
    components = all_components[0]
    target = load_profile(args.profile) if args.profile else made
    order = table.page_order
    declared = target.values.get("primary")
    first, second = (_pair_named(args.pair, order) if args.pair else
                     _pair_named(str(declared), order) if declared else (order[-1], order[0]))
    for each, found in zip(records, all_components):
        one = _pair_of(found, first, second)
        if one is None or one.rounds < planner.MIN_ROUNDS:
            rounds = 0 if one is None else one.rounds
            raise UsageError(f"{each.directory} has {rounds} round(s) in which both {first} and {second} finished; a "
                             f"design needs at least {planner.MIN_ROUNDS} to estimate the between-run floor: no design. "
                             f"Plan from a sweep of {planner.MIN_ROUNDS} or more rounds")
    pair = _pooled(all_components, first, second)
    if not all(math.isfinite(x) for x in (pair.within_a.value, pair.between_f.value)):
        raise UsageError(f"{record.directory}: the components of {first} vs {second} could not be estimated: no design")

    timings = run_timings(record)
    verdict = [t for t in timings if t.role == "verdict"]
    if not verdict:
        raise UsageError(f"{record.directory} recorded no run's timings (phases.csv and summary.json), so what a run "
                         "costs here is unknown: no design. Plan from a newer sweep of this machine")
    overhead = planner.per_run_overhead([t.started for t in verdict], [t.done for t in verdict],
                                        [t.setup_s for t in verdict], [t.measured_s for t in verdict])
    setup = sum(t.setup_s for t in timings)
    report_s, report_note = _report_seconds(record, timings)
    k = len(target.page_sizes)
    over_time = k * (target.over_time_s + overhead) if target.over_time_s else 0.0
    costs = planner.Costs(overhead, setup * k / max(len(order), 1) + report_s + over_time, k)
    m = len(order) * (len(order) - 1) // 2
    alpha = 0.05 if declared or m == 1 else 0.05 / m
    # A sweep made with room to grow is judged at its last look's group-sequential boundary
    looks = planned_looks(record.document, 0.05)
    level_of = looks.level_at if looks else (lambda share: share)
    effect = -math.log(1 - args.resolve)
    # TpmC's model counts the over-time runs as one more block when they pass its drift check
    extra = 1 if target.over_time_s else 0
    a, f = pair.within_a.value, pair.between_f.value
    # the over-time block's w uses the over-time runs' own a, the rounds' the verdict runs'
    # (pagelab.evidence.components.SizeComponents.role_a); the verdict a when the bundle ran none
    ot_a = pair.over_time_a.value if pair.over_time_a is not None else a
    # what of each over-time run the design expects to count: the over-time block's w = a / kept_s,
    # with either weighting (pagelab.evidence.planner); none when a side of the bundle's kept nothing
    # from the first bundle that ran over-time runs of the pair (a pooled bundle without them says nothing of them)
    from pagelab.evidence.runs import over_time_kept

    kept_at = next((i for i, each in enumerate(tables)
                    if over_time_kept(each, first, second, target.over_time_s or 1.0) is not None), 0)
    kept_s, kept_note = _over_time_kept(tables[kept_at], first, second, target.over_time_s) if extra else (None, "")
    if extra and kept_at:
        kept_note = kept_note.replace("the bundle's over-time runs", f"{records[kept_at].directory.name}'s over-time "
                                      "runs (the first bundle that ran them)", 1)
    extra = extra if kept_s is not None else 0
    weights = PRECISION if target.values.get("block_weights") == PRECISION else EQUAL
    precise = weights == PRECISION and bool(extra)

    differences = sorted(name for name in made.values if name not in DESIGN_KNOBS
                         and made.to_dict().get(name) != target.to_dict().get(name))
    source = (f"from {record.directory.name} ({pair.rounds} rounds of {pair.run_s:g} s)" if len(records) == 1 else
              "pooled from " + ", ".join(f"{each.directory.name} ({one.rounds} rounds of {one.run_s:g} s)" for each, one in
                                         zip(records, (_pair_of(c, first, second) for c in all_components)))
              + f", the floor on {pair.between_f.dof:g} degrees of freedom (each bundle's rounds less one; "
                "pagelab.evidence.pooled)")
    print(f"components of {first} vs {second} {source}: "
          f"within-run a = {a:.4g} (log² × s; √a = {100 * math.sqrt(a):.1f}%·√s), between-run floor f = {f:.3g} "
          f"(√f = {100 * math.sqrt(f):.2f}%, 95% interval {100 * math.sqrt(pair.between_f.low):.2f}% to "
          f"{100 * math.sqrt(pair.between_f.high):.2f}%)")
    if extra:
        print(f"over-time runs' a = {ot_a:.4g} (log² × s), their block's w = a/T from it, the rounds' from the verdict "
              "runs' a" if pair.over_time_a is not None else
              "over-time runs' a: the bundle has no over-time runs of this pair, so a design takes the verdict runs' "
              "a for the over-time block too")
    if differences:
        print(f"note: the bundle was made with other values of {', '.join(differences)} than {target.name}; the design "
              "assumes its components and costs carry over", file=sys.stderr)
    if report_note:
        print(f"note: {report_note}", file=sys.stderr)
    if args.as_made:
        print("as made: a design for the machine the bundles were made on, from their own components and timings "
              "(to check a plan made there), not a design for this machine")
    print(f"costs on {'the machine the bundle was made on' if args.as_made else 'this machine'} (from the bundle's "
          f"timings): {overhead:.1f} s a run beyond what it measures "
          f"(restore, restart, ramp-up, record); {setup:.0f} s of init and load for {len(order)} page size(s); "
          f"report {report_s:.0f} s" + (f"; over-time runs {k} × ({target.over_time_s} + {overhead:.0f}) s = "
                                        f"{_minutes(over_time)}" if over_time else ""))
    level = ("the declared primary comparison, tested first at the full 5%" if declared else
             "one pair" if m == 1 else f"the first of {m} pairs under Holm, at 5%/{m}")
    print(f"{first} vs {second}: {level}; the effect to resolve {100 * args.resolve:g}%, power asked "
          f"{100 * args.power:g}%, budget {_minutes(args.budget)}")
    if looks:
        boundary = looks.boundaries(alpha)[-1]
        alpha = level_of(alpha)
        print(f"looks: {record.directory.name} was made for at most {looks.max_rounds} rounds (max_rounds), with looks "
              f"after {', '.join(str(look.rounds) for look in looks.looks)} rounds; its last look is tested at a "
              f"Lan-DeMets O'Brien-Fleming-type boundary, |z| >= {boundary:.3f} (nominal level {alpha:.4g} for this "
              "pair) instead of the fixed-sample level, and a design's rounds are those of its last look")
    t_star = planner.kalibera_jones_length(a, f, overhead)
    print(f"Kalibera & Jones: T* = √(a·o/f) = " + (f"{t_star:.0f} s" if math.isfinite(t_star) else
                                                    "unbounded (no floor measured: the longest runs are best)"))
    if kept_note:
        print(kept_note)
    now = _current(target, looks.max_rounds if looks else target.repeats, a, f, costs, alpha, effect, args.power,
                   extra, kept_s, weights, ot_a)
    if now:
        print(f"  now ({target.name}: {now.rounds} rounds × {now.run_s:g} s{' at its last look' if looks else ''}, "
              f"{_minutes(now.total_s)}): " + _design_text(now))
    best = planner.best_design(a, f, costs, args.budget, alpha, target.interval_s, effect, args.power,
                               extra_blocks=extra, over_time_s=kept_s, weights=weights, over_time_a=ot_a)
    if best is None:
        print(f"no design of {planner.MIN_ROUNDS} or more rounds fits in {_minutes(args.budget)}: the fixed costs "
              f"take {_minutes(costs.fixed_s)}")
        return 1
    print(f"  best within the budget: {best.rounds} rounds × {best.run_s:g} s (--set repeats={best.rounds} --set "
          f"measure_s={best.run_s:g}), {_minutes(best.total_s)}: " + _design_text(best))
    if isinstance(target.measure_s, (int, float)) and target.measure_s > 0:
        alone = planner.rounds_for_power(a, f, float(target.measure_s), alpha, effect, 0, args.power)
        print(f"  rounds alone, whatever they take (a cluster runs them side by side, runbooks/slurm.md): "
              f"{100 * args.power:g}% power for the {100 * args.resolve:g}% effect needs "
              + (f"{alone} verdict rounds of {target.measure_s:g} s" if alone else
                 f"more than {planner.MOST_ROUNDS:,} rounds of {target.measure_s:g} s")
              + " (no over-time block)")
    if best.run_s < STEADY_MEASURE_S:
        steady = planner.best_design(a, f, costs, args.budget, alpha, target.interval_s, effect, args.power,
                                     extra_blocks=extra, over_time_s=kept_s, weights=weights, over_time_a=ot_a,
                                     shortest_s=STEADY_MEASURE_S)
        print(f"  its runs measure less than the {STEADY_MEASURE_S} s after the ramp-up a report needs to check the "
              "lab's throughput claims (they would read \"not checked here\"), and a run's first seconds after the "
              "ramp-up may run faster than the rest; "
              + (f"best with runs of {STEADY_MEASURE_S} s or more: {steady.rounds} rounds × {steady.run_s:g} s "
                 f"(--set repeats={steady.rounds} --set measure_s={steady.run_s:g}), {_minutes(steady.total_s)}: "
                 + _design_text(steady) if steady else
                 f"no design with runs of {STEADY_MEASURE_S} s or more fits the budget"))
    if precise:
        weighed = planner.precision_variance(a, f, best.rounds, best.run_s, kept_s, ot_a)
        print(f"  arithmetic: runs {best.rounds} × {k} × ({best.run_s:g} + {overhead:.1f}) s + fixed {costs.fixed_s:.0f} s "
              f"= {best.total_s:.0f} s; precision weights over {best.blocks} blocks (the rounds' w = a/T = "
              f"{a / best.run_s:.3g}, the over-time block's a_ot/{kept_s:.0f} = {ot_a / kept_s:.3g}), each weighed by "
              f"1/(w + f_U), f_U = {weighed.bound:.3g} the bound of f such rounds give: V = Σv²(w + f)/(Σv)² = "
              f"{best.variance:.3g}, the over-time block {100 * weighed.over_time_share:.0f}% of the weight (with f "
              f"known, 1/Σ 1/(w + f) = {weighed.known_f:.3g}); {best.dof} degrees of freedom, as the estimator's")
    elif extra:
        print(f"  arithmetic: runs {best.rounds} × {k} × ({best.run_s:g} + {overhead:.1f}) s + fixed {costs.fixed_s:.0f} s "
              f"= {best.total_s:.0f} s; equal weights over {best.blocks} blocks (the {best.rounds} rounds and the "
              f"over-time runs' block, if its drift check passes): V = Σ(w + f)/k² = (n(a/T + f) + a_ot/{kept_s:.0f} + f)/k² "
              f"= ({best.rounds} × ({a:.4g}/{best.run_s:g} + {f:.3g}) + {ot_a:.4g}/{kept_s:.0f} + {f:.3g})/{best.blocks}² = "
              f"{best.variance:.3g}; {best.dof} degrees of freedom, as the model's")
    else:
        print(f"  arithmetic: runs {best.rounds} × {k} × ({best.run_s:g} + {overhead:.1f}) s + fixed {costs.fixed_s:.0f} s "
              f"= {best.total_s:.0f} s; V = (a/T + f)/n = ({a:.4g}/{best.run_s:g} + {f:.3g})/{best.blocks} = "
              f"{best.variance:.3g}")
    if extra:
        other = planner.best_design(a, f, costs, args.budget, alpha, target.interval_s, effect, args.power,
                                    extra_blocks=extra, over_time_s=kept_s, weights=EQUAL if precise else PRECISION,
                                    over_time_a=ot_a)
        if other is not None:
            print(f"  with block_weights: {EQUAL if precise else PRECISION} instead (declared before the sweep): best "
                  f"{other.rounds} rounds × {other.run_s:g} s, {_minutes(other.total_s)}: " + _design_text(other))
    others = [(x, y) for x, y in combinations(order, 2) if {x, y} != {first, second}]
    for x, y in others:
        other = _pooled(all_components, x, y)
        if other is None or not math.isfinite(other.within_a.value) or not math.isfinite(other.between_f.value):
            continue
        level = level_of(0.05 / max(m - 1, 1)) if declared else alpha
        shown = [("now", now), ("best", best)] if now else [("best", best)]
        # this pair's own over-time block: what of its own two over-time runs the bundle kept
        own_s = _over_time_kept(table, other.a, other.b, target.over_time_s)[0] if target.over_time_s else None
        own_extra = 1 if own_s is not None else 0
        print(f"  {other.a} vs {other.b}: " + "; ".join(
            f"{label} minimum detectable effect {found.detectable_pct:.1f}% (half-width ±{found.half_width_pct:.1f}%)"
            for label, found in ((label, planner.design(other.within_a.value, other.between_f.value, costs,
                                                        chosen.rounds, chosen.run_s, level, None, args.power,
                                                        own_extra, own_s, weights,
                                                        other.over_time_a.value if other.over_time_a else None))
                                 for label, chosen in shown)))
    return 0


def _refuse_other_setup(record, made, other) -> None:
    """A bundle pooled with the first must be of its set-up: every knob but the design's the same."""
    from pagelab.sweep.profiles import profile_from_dict

    if other is record:
        return
    other_made = profile_from_dict(other.document["profile"])
    theirs, ours = other_made.to_dict(), made.to_dict()
    differ = [f"{name} {ours.get(name)!r} against {theirs.get(name)!r}"
              for name in sorted(set(made.values) | set(other_made.values))
              if name not in DESIGN_KNOBS and ours.get(name) != theirs.get(name)]
    if differ:
        raise UsageError(f"{other.directory} was made with another set-up than {record.directory} ("
                         f"{'; '.join(differ)}), so their components need not be the same: give --from only bundles "
                         "that differ in the design's knobs (repeats, measure_s, over_time_s, random_seed)")


def _pair_of(components, x: str, y: str):
    """A bundle's components of the pair x, y, whichever way round it holds them; None if it lacks them."""
    return components.pair(x, y) or components.pair(y, x)


def _pooled(all_components, x: str, y: str):
    """The pair x, y's components from each bundle, pooled (pagelab.evidence.pooled); None if a
    bundle lacks the pair."""
    from pagelab.evidence.pooled import pooled_pair

    found = [_pair_of(c, x, y) for c in all_components]
    if any(one is None for one in found):
        return None
    try:
        return pooled_pair(found)
    except ValueError as error:
        raise UsageError(f"the bundles' components of {x} vs {y} cannot be pooled: {error}; plan from one --from "
                         "at a time") from None


def _design_text(found) -> str:
    return (f"half-width ±{found.half_width_pct:.1f}% ({found.dof} degrees of freedom, level {found.alpha:.3g}), "
            f"power {100 * found.power:.0f}%, minimum detectable effect {found.detectable_pct:.1f}%")


def _current(target, rounds, a, f, costs, alpha, effect, wanted, extra_blocks, over_time_s, weights, over_time_a):
    from pagelab.evidence import planner

    if not isinstance(target.measure_s, int) or rounds < 2:
        return None
    return planner.design(a, f, costs, rounds, target.measure_s, alpha, effect, wanted, extra_blocks, over_time_s,
                          weights, over_time_a)


def _over_time_kept(table, first: str, second: str, over_time_s: float) -> tuple[float | None, str]:
    """The seconds of the pair's over-time block a design expects to count
    (pagelab.evidence.runs.over_time_kept), and a line saying how they were found."""
    from pagelab.evidence.runs import over_time_kept

    kept = over_time_kept(table, first, second, over_time_s)
    if kept is None:
        return float(over_time_s), (f"over-time block: the bundle ran no over-time runs of {first} and {second}, so "
                                    f"a design assumes all {over_time_s} s of each count (no warm-up cut, no drift); "
                                    "a drift would leave a verdict run's length")
    said = "; ".join(f"{use.page_size} {use.cut_s:g}-{use.cut_s + use.counted_s:g} s of {use.measured_s:g}"
                     for use in kept.uses)
    if kept.length_s is None:
        return None, (f"over-time block: the bundle's over-time runs kept {said}, less than a verdict run's length "
                      "in common (a pair compares its two runs over the seconds both kept): a design counts no "
                      "over-time block")
    first_s, second_s = kept.seconds
    return kept.length_s, (f"over-time block: the bundle's over-time runs kept {said}, compared over the seconds "
                           f"both kept; a design expects as much of "
                           f"each {over_time_s} s run to count, {first_s:.0f} and {second_s:.0f} s, as precise as "
                           f"one block of {kept.length_s:.0f} s on each side (the harmonic mean of the two "
                           "lengths weighed by each side's over-time a: a_A/T_A + a_B/T_B = (a_A + a_B)/T)")


# What the report counts for a bundle made before sweep.json recorded the sweep's report step: the
# time from its last run's end to the tidy-up the sweep did right after its report (sweep.json's
# "instances_removed"), at most this; this when it has no such tidy-up. A report and its PDF take
# seconds here (8-12 s for `course`), and neither figure moves when `pagelab report` rewrites the
# report later.
REPORT_FALLBACK_S = 60.0


def _report_seconds(record, timings) -> tuple[float, str]:
    """The seconds the sweep's own report step took (sweep.json's report_step, pagelab.bundle), and
    how that figure was found, for a note (empty when it was recorded). Never the report's last
    writing: `pagelab report` rewrites it at any later time."""
    import datetime

    from pagelab.bundle import REPORT_STEP

    seconds = (record.document.get(REPORT_STEP) or {}).get("seconds")
    if isinstance(seconds, (int, float)) and seconds >= 0:
        return float(seconds), ""
    older = f"{record.directory.name} predates the record of its report step's time"
    removed = record.document.get("instances_removed")
    if removed and timings:
        at = datetime.datetime.strptime(removed, "%Y-%m-%dT%H:%M:%S%z").timestamp()
        gap = at - max(t.done for t in timings)
        if gap >= 0:
            return min(gap, REPORT_FALLBACK_S), (
                f"{older}: the report counts the {gap:.0f} s from its last run's end to the tidy-up after its "
                f"report (at most {REPORT_FALLBACK_S:.0f} s), not the report's last writing, which `pagelab "
                "report` moves")
    return REPORT_FALLBACK_S, (f"{older}, and has no tidy-up after it: the report counts {REPORT_FALLBACK_S:.0f} s, "
                               "a bound for a report and its PDF on a machine like this")


def register(commands) -> None:
    plan = commands.add_parser(
        "plan", help="choose rounds x run length for a budget from an earlier bundle's variance components",
        description="How many rounds, and how long each run, to resolve a pair that an earlier sweep left not "
                    "resolved, within a time budget: for example `pagelab plan --from data/runs/<sweep-id> --budget "
                    "2h --resolve 5%`. Its answer is a profile's repeats and measure_s (set them with --set). How: "
                    "reads the variance components (within-run a, between-run floor f) and the per-run costs of an "
                    "earlier bundle made on this machine, and prints the rounds x run length that give the narrowest "
                    "interval for the primary comparison within the budget (Var of the mean log-ratio = (a/T + f)/n, "
                    "Kalibera & Jones 2013; with the over-time runs' block, TpmC's model's Σ(w_b + f)/k², that "
                    "block's w from what the bundle's over-time runs kept), with its expected half-width, its power "
                    "for the named effect (noncentral t with the rounds' degrees of freedom) and its minimum detectable effect; and the same for the "
                    "profile's present design. A bundle made with room to grow (max_rounds) is planned at its last "
                    "look's group-sequential boundary (O'Brien-Fleming type, after Lan & DeMets), as it will be judged, "
                    "not at the fixed-sample level. Refused, with no design, for a bundle made on another machine (unless --as-made) "
                    "or with fewer than 3 rounds; a sweep on a cluster's nodes is planned from `pagelab stats` instead (runbooks/slurm.md).")
    plan.add_argument("--from", dest="sources", action="append", required=True, metavar="BUNDLE",
                      help="a sweep's bundle on this machine; give --from more than once to pool the components of "
                           "several sweeps of one set-up (the same knobs but for the design's: rounds, run length, "
                           "over-time runs, seed), the floor f then on all their rounds; the costs and the over-time "
                           "runs' share come from the first")
    plan.add_argument("--profile", help="the profile to design for (its page sizes, interval and over-time runs; "
                                        "default: the bundle's own)")
    plan.add_argument("--budget", type=duration_s, default=duration_s("2h"), metavar="TIME",
                      help="the time the whole sweep may take, e.g. 2h, 10min (default 2h)")
    plan.add_argument("--resolve", type=share, default=share("5%"), metavar="PCT",
                      help="the effect the design should find, e.g. 5%% (a page size that much slower; default 5%%)")
    plan.add_argument("--power", type=share, default=share("80%"), metavar="PCT",
                      help="the power for the minimum detectable effect (default 80%%)")
    plan.add_argument("--pair", metavar="'A vs B'", help="the comparison to design for (default: the profile's "
                                                         "declared primary, else the last page size against the first)")
    plan.add_argument("--as-made", action="store_true",
                      help="plan for the machine the bundles were made on, from their own components and timings, "
                           "wherever this runs: to check a plan made there (the README's figures, from the kept "
                           "sweeps), not to design a sweep for this machine, which needs a bundle made here")
    plan.set_defaults(handler=cmd_plan)
