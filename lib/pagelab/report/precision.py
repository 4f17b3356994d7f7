"""The report's paragraph on precision: what this sweep achieved for its primary comparison, the
variance components it measured, the components its design was planned with (the profile's
planned_within_a and planned_floor_pct, where declared) and so whether the machine was noisier than
the design assumed, and what the planner (pagelab.evidence.planner, as `pagelab plan --from BUNDLE`
uses it) says with this bundle's own components: the design's power for a 5% effect, and the
rounds at this run length a 5% effect would need.

Apart from the Method because it changes with the planner and the profiles' designs; every figure
comes from the bundle (its pair rows, its components, its recorded profile), one figure per quantity.
"""

from __future__ import annotations

import math

from pagelab.evidence import planner
from pagelab.evidence.families import primary_pair
from pagelab.evidence.intervals import NOT_RESOLVED
from pagelab.evidence.sequential import planned_looks
from pagelab.evidence.block_weights import EQUAL, PRECISION
from pagelab.evidence.runs import components_of, over_time_kept, weights_of
from pagelab.evidence.wording import and_listed, interval_text
from pagelab.report.lab_report import ReportData, pair_of, shipped_profile_values
from pagelab.report.model_details import floor_text

# The effect the paragraph asks about, as `pagelab plan --resolve` does by default, and the power.
EFFECT = 0.05
# Why a pair's floor is not its page sizes' (said beside the pair's components): a page size's f is
# how its runs' level moves from round to round, whatever moved the whole round included; a pair's f is
# how the round-by-round log-ratio moves, in which what moved the whole round cancels.
PAIR_FLOOR_WORDS = ("A page size's √f counts whatever moved a whole round (the machine's state that minute), which "
                    "cancels in the pair's round-by-round log-ratio, so the pair's √f can be far below either page "
                    "size's; it can also be above them, where the two page sizes' runs moved apart from round to "
                    "round (each page size's √f counts its own runs' spread, the pair's the spread of their ratio).")
# A page size's within-run a more than this many times every other's is named, with its noisiest run.
FAR_ABOVE = 4.0


def designed_pair(data: ReportData) -> tuple[tuple[str, str], bool] | None:
    """The pair `pagelab plan` designs for: the declared primary, else the last page size against the
    first; and whether it was declared."""
    declared = primary_pair(str(data.profile.get("primary") or ""))
    if declared:
        return declared, True
    order = data.page_sizes
    return ((order[-1], order[0]), False) if len(order) > 1 else None


def _alpha(data: ReportData, declared: bool) -> float:
    """The level the planner tests the pair at (cli/plan.py): the full 5% for a declared primary or a
    lone pair, else 5% over the pairs; at the last look's boundary for a sweep made to grow."""
    k = len(data.page_sizes)
    pairs = k * (k - 1) // 2
    alpha = 0.05 if declared or pairs == 1 else 0.05 / pairs
    looks = planned_looks(data.record.document, 0.05)
    return looks.level_at(alpha) if looks else alpha


def noise_reach_text(size: str, floored: dict) -> str:
    """What a page size's within-run noise did to this sweep's intervals: a enters a pair's variance only
    through the floor (pagelab.evidence.model), so it widened the pairs whose variance the floor set and
    no other; the planner's figures use a whatever the floor did. `floored`: (a, b) -> (floor set it, se),
    as model_details.floored_pairs gives it."""
    from pagelab.evidence.wording import and_listed

    mine = {f"{a} vs {b}": used for (a, b), (used, _) in floored.items() if size in (a, b)}
    widened = [name for name, used in mine.items() if used]
    own = [name for name, used in mine.items() if not used]
    planner_words = "that noise enters the planner's figures below (through a)"
    if not mine:
        return f"{planner_words}."
    if not widened:
        return (f"{planner_words}, but the lower bound set the variance of no pair with {size} here, so this sweep's "
                f"intervals for {and_listed(own)} rest on the blocks' own spread, not on that noise.")
    rest = (f"; {and_listed(own)} rest{'s' if len(own) == 1 else ''} on the blocks' own spread" if own else "")
    return (f"{planner_words}, and through the lower bound, which set their variance, it widened {and_listed(widened)}"
            f"{rest}.")


def noisy_size_text(data, components) -> str:
    """The page size whose within-run a is more than FAR_ABOVE times every other's, with the run of it
    noisiest within itself (each run's own a, pagelab.evidence.components.within_component), and
    what that noise did (`noise_reach_text`): the planner's figures, and this sweep's intervals only
    where the floor set them. '' when none is."""
    from pagelab.evidence.components import within_component
    from pagelab.evidence.model import counted_series
    from pagelab.evidence.runs import model_data
    from pagelab.report.model_details import floored_pairs

    table = data.evidence

    within = {s.page_size: s.within_a.value for s in components.sizes if math.isfinite(s.within_a.value)}
    for size, a in within.items():
        others = {other: value for other, value in within.items() if other != size}
        if not others or a <= FAR_ABOVE * max(others.values()):
            continue
        listed = ", ".join(f"{1e4 * value:,.0f} at {other}" for other, value in others.items())
        found = model_data(table)
        floored = floored_pairs(found, data) if found is not None else {}
        counted, _ = counted_series(table.series)
        own = {run.run: within_component([run])[0].value for run in counted if run.page_size == size}
        own = {name: value for name, value in own.items() if math.isfinite(value)}
        worst = max(own, key=own.get) if own else None
        most = (f", and most in {worst} (a = {1e4 * own[worst]:,.0f} %²·s on its own" +
                ("; the page size's a is that run's alone, and the Method's components say why" if
                 abs(own[worst] / a - 1) < 0.005 else "") + ")" if worst else "")
        return (f"{size}'s within-run a, {1e4 * a:,.0f} %²·s, is far above the other page sizes' ({listed}): its "
                f"runs' TpmC varied most within themselves{most}; {noise_reach_text(size, floored)} (The test of "
                "runs far below their page size's others looks at each run's TpmC, not at its noise within, so it "
                "need not name such a run.)")
    return ""


def _planned(data: ReportData) -> tuple[dict, str]:
    """The components the design was planned with, as the bundle recorded them; for a bundle made
    before the knobs, as the profile of its name ships them now (the knobs change no run), said so."""
    knobs = ["planned_within_a", "planned_floor_pct"]
    if any(knob in data.profile for knob in knobs):
        return data.profile, ""
    name = data.profile_name
    shipped = shipped_profile_values(str(name), knobs)
    if not shipped:
        return {}, ""
    return shipped, ", as this pagelab ships the profile: this bundle predates recording them"


def _spread_pct(a: float, f: float, run_s: float) -> float:
    """How much one round's log-ratio of the pair varies at runs of `run_s` s: √(a/T + f), in %."""
    return 100 * math.sqrt(a / run_s + f)


def plan_verdict(spread_larger: bool, pair, planned_a: float, planned_f: float) -> str:
    """Whether the machine was noisier than the design assumed: said only where a planned component lies
    below this sweep's own interval for it (a larger spread that its intervals hold is no evidence; a
    component below the plan's makes the machine no noisier)."""
    if not spread_larger:
        return "the machine was no noisier than the design assumed"

    def beyond(estimate, planned: float) -> bool:
        return math.isfinite(estimate.low) and estimate.low > planned

    if beyond(pair.between_f, planned_f) or beyond(pair.within_a, planned_a):
        return "the machine was noisier than the design assumed, beyond this sweep's intervals for its components"
    held = (f"its floor's interval {floor_ends_text(pair.between_f)} holds the planned "
            f"{100 * math.sqrt(planned_f):.1f}%")
    return ("its spread came out above the plan's, but no component lies above the plan beyond its interval (" + held
            + "), so this sweep cannot say the machine was noisier than the design assumed")


def _which_component(a: float, f: float, planned_a: float, planned_f: float, sides=()) -> str:
    """Which of the two components was larger than planned, and which not, in the paragraph's units:
    ': its floor √f was larger (9.4% against 1.6%); its within-run a was not (2,721 against 3,200 %²·s)'.
    `sides`, [(page size, SizeComponents)] of the pair: where a side's verdict runs' a is a lower bound
    (WithinGroup.lower_bound, which the Method's notes on the components say), the pair's a is one too,
    and its comparison says so."""
    lower = [size for size, side in sides if side and any(g.lower_bound for g in side.groups if g.role == "verdict")]
    bound = (f", and {1e4 * a:,.0f} is a lower bound ({and_listed(lower)}'s verdict runs' batch means stay correlated: "
             "the Method's notes on the components), so the runs' true a may be larger" if lower else "")
    said = {"its floor √f": (f"{100 * math.sqrt(f):.1f}%", f"{100 * math.sqrt(planned_f):.1f}%", f > planned_f, ""),
            "its within-run a": (f"{1e4 * a:,.0f}", f"{1e4 * planned_a:,.0f} %²·s", a > planned_a, bound)}
    # a difference the printed figures do not show is said as the same, not as larger ("5.6% against 5.6%")
    same = [f"{name} was about the same ({now} against {then}){note}" for name, (now, then, up, note) in said.items()
            if now == then.removesuffix(" %²·s")]
    larger = [f"{name} was larger ({now} against {then}){note}" for name, (now, then, up, note) in said.items()
              if up and now != then.removesuffix(" %²·s")]
    smaller = [f"{name} was not ({now} against {then}){note}" for name, (now, then, up, note) in said.items()
               if not up and now != then.removesuffix(" %²·s")]
    return ": " + "; ".join(larger + smaller + same)


def precision_markdown(data: ReportData) -> str:
    """The paragraph; '' for a sweep with no pair (one page size, or a grid, judged level by level)."""
    chosen = designed_pair(data)
    if data.pairs.empty or chosen is None:
        return ""
    (first, second), declared = chosen
    row = pair_of(data, "tpmc", first, second)
    if row is None or math.isnan(row["change_pct"]):
        return ""
    which = (f"the primary comparison, {first} vs {second}" if declared else
             f"{first} vs {second} (no primary comparison was declared; this is the pair `pagelab plan` designs for)")
    lead = " ".join(part for part in (f"**Precision this sweep achieved**, for {which}.", quoted_figure(row),
                                      "Below: how this sweep came to it (its interval, its components), then "
                                      "planning figures (against the plan, what a repeat would give).") if part)
    items: list[str] = []  # the paragraph's points, one per bullet, each of its own figures
    if math.isnan(row["low_pct"]):
        items.append("**This sweep's interval:** none.")
    else:
        # from the ends as printed (to 0.1), so a reader's subtraction gives the same figure
        width = round(float(row["high_pct"]), 1) - round(float(row["low_pct"]), 1)
        items.append(f"**This sweep's interval:** {interval_text(row['low_pct'], row['high_pct'], row.get('confidence_pct'))}"
                     f": {width:.1f} percentage points wide (the high end less the low), half of that "
                     f"{width / 2:.1f} points (points, not a ratio's distance: the ends of a ratio's interval are not "
                     "equally far from its effect), from the spread its blocks happened to show (or from the Method's lower bound, "
                     "where that set it: the Method says for which pairs).")

    def said() -> str:
        return lead + "\n\n" + "\n".join(f"- {item}" for item in items)

    components = components_of(data.evidence)
    pair = (components.pair(first, second) or components.pair(second, first)) if components else None
    if pair is None or not (math.isfinite(pair.within_a.value) and math.isfinite(pair.between_f.value)):
        items.append("**The components:** this bundle has none for the pair (its runs kept no interval series, or "
                     "too few rounds were shared), so the planner cannot be asked about it.")
        return said()
    a, f = pair.within_a.value, max(pair.between_f.value, 0.0)
    # the pair's a is its two verdict groups' (SizeComponents.role_a), which the Method's pooled a
    # per page size need not add up to: said with its parts, so a reader can
    sides = [(size, components.size(size)) for size in (pair.a, pair.b)]
    over_time_part = (", the over-time run's part included," if any(side and side.has_role("over_time")
                                                                     for _, side in sides) else "")
    parts = " + ".join(f"{size} {1e4 * side.role_a('verdict').value:,.0f}" for size, side in sides if side)
    noisy = noisy_size_text(data, components)
    profile = data.profile
    measure = profile.get("measure_s")
    run_s = float(measure) if isinstance(measure, (int, float)) and not isinstance(measure, bool) else pair.run_s
    items.append(f"**The components it measured:** for that pair, as `pagelab plan --from BUNDLE` reads them, "
                 f"within-run a = {1e4 * a:,.0f} %²·s, the sum of the two page sizes' verdict runs' a ({parts}: a "
                 f"round's log-ratio carries both runs' noise; each page size's a over all its runs{over_time_part} "
                 f"is in the Method), and between-run floor {floor_text(pair.between_f)}"
                 f"{floor_interval_text(pair.between_f, pair.rounds)}. So a round's log-ratio spreads "
                 f"√(a/T + f) = {_spread_pct(a, f, run_s):.1f}% at T = {run_s:g} s (what `pagelab stats` prints as "
                 f"\"a round's log-ratio spreads\"). {PAIR_FLOOR_WORDS}" + (f" {noisy}" if noisy else ""))
    looks = planned_looks(data.record.document, 0.05)
    rounds = looks.max_rounds if looks else int(profile.get("repeats", 1))
    extra = 1 if profile.get("over_time_s") else 0  # the over-time runs' block, as the planner counts it
    alpha = _alpha(data, declared)
    effect = -math.log(1 - EFFECT)
    # the design as this sweep ran it: a --set over_time_s=0 takes the over-time runs' block out of it
    design = f"{rounds} rounds × {run_s:g} s" + (" and the over-time runs' block" if extra else
                                                " without the over-time runs' block (over_time_s was 0)")
    planned_values, source = _planned(data)
    planned_a = float(planned_values.get("planned_within_a") or 0) / 1e4
    planned_f = (float(planned_values.get("planned_floor_pct") or 0) / 100) ** 2
    if planned_a or planned_f:
        planned, measured = _spread_pct(planned_a, planned_f, run_s), _spread_pct(a, f, run_s)
        # planned before any over-time run: the block counting all of over_time_s, as `pagelab plan`
        # assumes from a bundle that ran none
        expected = planner.design(planned_a, planned_f, planner.Costs(0.0, 0.0, 1), rounds, run_s, alpha,
                                  None, planner.DEFAULT_POWER, extra, float(profile["over_time_s"]) if extra else None,
                                  weights_of(data.evidence)) if rounds + extra >= 2 else None
        verdict = plan_verdict(measured > planned, pair, planned_a, planned_f) + _which_component(a, f, planned_a,
                                                                                                   planned_f, sides)
        if measured > planned:  # where the bundle's record of other work is, and no more
            verdict += "; what the bundle recorded of other work during the runs is in the Method"
        items.append(f"**Against the plan** (planning figures): the design as run, {design}, was planned with a = {1e4 * planned_a:,.0f} %²·s and √f = "
                    f"{100 * math.sqrt(planned_f):.1f}% (the profile's `planned_within_a` and `planned_floor_pct`"
                    f"{source}): "
                    f"a round's log-ratio spread of {planned:.1f}% at {run_s:g} s"
                    + (f", for an expected half-width of about ±{expected.half_width_pct:.1f}% (the planner's, from "
                       "these planned components: not this sweep's achieved interval, given above)" if expected else "")
                    + f"; against this sweep's {measured:.1f}% (its components, above), {verdict}.")
    else:
        items.append(f"**Against the plan** (planning figures): the profile declared no components its design ({design}) was planned "
                     "with (`planned_within_a`, `planned_floor_pct`), so this report cannot say whether the machine "
                     "was noisier than the design assumed.")
    if pair.rounds < planner.MIN_ROUNDS or rounds + extra < 2:
        items.append(f"**What a repeat would give** (planning figures): the planner needs {planner.MIN_ROUNDS} or more shared rounds "
                     f"to rest a design on; this bundle has {pair.rounds}.")
        return said()
    costs = planner.Costs(0.0, 0.0, 1)
    # the over-time block as precise as what of it this sweep counted (all of over_time_s when its
    # over-time runs did not finish), weighed as the sweep declared (pagelab.evidence.planner)
    weights = weights_of(data.evidence)
    kept = over_time_kept(data.evidence, first, second, float(profile["over_time_s"])) if extra else None
    counted = kept.length_s if kept is not None else float(profile["over_time_s"]) if extra else None
    if extra and counted is None:  # a side's over-time run kept nothing: the model counted no over-time block
        extra = 0
    # the over-time block's within-run part from its runs' own a, as the model takes it
    ot_a = pair.over_time_a.value if extra and pair.over_time_a is not None else None
    now = planner.design(a, f, costs, rounds, run_s, alpha, effect, planner.DEFAULT_POWER, extra, counted, weights,
                         ot_a)
    needed = planner.rounds_for_power(a, f, run_s, alpha, effect, extra, over_time_s=counted, weights=weights, over_time_a=ot_a)
    over_time_weighed = "weighed by its precision, as this sweep declared, and " if weights == PRECISION else ""
    over_time_sides = {size: side.role_a("over_time").value for size, side in sides if side is not None}
    over_time_source = ("from what of its over-time runs counted" if kept is not None else
                        "all of each over-time run: they did not finish, so what would count is unknown")
    level = f"at the {100 * alpha:.3g}% level it tests the pair at"
    def power_at(rounds: int) -> float | None:
        return planner.design(a, f, costs, rounds, run_s, alpha, effect, planner.DEFAULT_POWER, extra, counted,
                              weights, ot_a).power

    asides = []  # said in one parenthesis after the rounds
    if needed and needed - 1 + extra >= 2 and power_at(needed - 1) is not None:
        # the power one round short, so that a reader recomputing from rounded components sees where 80% falls
        asides.append(f"{needed - 1} give {100 * power_at(needed - 1):.1f}%, {needed} give "
                      f"{100 * power_at(needed):.1f}%")
    if extra and kept is not None and kept.length_s is not None and abs(kept.seconds[0] - kept.seconds[1]) < 0.5:
        # a pair compares its over-time runs over the seconds both counted, so both sides count as long
        asides.append(f"with the over-time block {over_time_weighed}counting {counted:.0f} s of each of its two runs, "
                      "the seconds both counted")
    elif extra:
        asides.append(f"with the over-time block {over_time_weighed}as precise as a block of {counted:.0f} s on each "
                      f"side, {over_time_source}{harmonic_text(kept, over_time_sides)}")
    need = (f"a {100 * EFFECT:g}% effect would need {needed} rounds × {run_s:g} s for "
            f"{100 * planner.DEFAULT_POWER:.0f}% power" if needed else
            f"no number of rounds up to {planner.MOST_ROUNDS:,} × {run_s:g} s would find a {100 * EFFECT:g}% effect with "
            f"{100 * planner.DEFAULT_POWER:.0f}% power")
    items.append(f"**What a repeat would give** (planning figures): with these components the planner "
                 f"(pagelab.evidence.planner) gives this design a power of {100 * now.power:.0f}% for a "
                 f"{100 * EFFECT:g}% effect, {level}; {need}" + (f" ({'; '.join(asides)})" if asides else "")
                 + (cluster_text(needed, extra, data.profile_name or "PROFILE") if needed else "") + "."
                 + (f" {planner_figures(row, now)}" if not math.isnan(row["low_pct"]) else ""))
    return said()


def cluster_text(needed: int, extra: int, profile_name: str = "PROFILE") -> str:
    """Where rounds that many go (runbooks/slurm.md): verdict rounds, a round per node, at most half as
    many nodes at once as rounds so each node has the 2 rounds its own interval needs."""
    if needed <= 1:
        return ""
    block = " and the over-time block" if extra else ""
    return (f": {needed} verdict rounds{block}; on a cluster, a round per node, `pagelab sweep --profile {profile_name} "
            f"--set repeats={needed} --executor slurm --scratch DIR --slurm-max-running {needed // 2}` (at most "
            f"{needed // 2} nodes at once, so the rounds outnumber them two to one: a node takes 2 on average, some 1 "
            "or 3; runbooks/slurm.md gives the --slurm-args, with --constraint or --reservation to keep the sweep on "
            "nodes of one kind, and the time limit). This figure rests on this one sweep's components: on this machine "
            "several sweeps' pooled (`pagelab plan --from A --from B`) give a steadier one; on a cluster, run a short "
            "pilot there first and read the rounds from its `pagelab stats` (runbooks/slurm.md)")


def harmonic_text(kept, sides: dict | None = None) -> str:
    """What 'as precise as a block of T s on each side' means: the block's within-run part a/T_A + a/T_B
    is that of a round of T-second runs, T the harmonic mean of what of each side's over-time run
    counted (pagelab.evidence.runs.over_time_kept), weighed by `sides` ({page size: its over-time
    run's a}), said so that a reader can recompute T."""
    if kept is None or kept.length_s is None:
        return ""
    first, second = kept.seconds
    given = [f"{size} {1e4 * a:,.0f} %²·s" for size, a in (sides or {}).items() if math.isfinite(a)]
    own = f" ({' and '.join(given)})" if len(given) == 2 else ""
    return (f": its within-run part a_A/T_A + a_B/T_B, each side's a its over-time run's{own}, is that of a block "
            f"of runs that long on each side, the harmonic mean of the {first:.0f} and {second:.0f} s its two runs "
            "counted weighed by the two sides' a")


def floor_ends_text(estimate) -> str:
    """'[4.3%, 16.4%]': the floor's interval as spreads, the √ of each end."""
    low, high = (f"{100 * math.sqrt(max(end, 0.0)):.1f}%" for end in (estimate.low, estimate.high))
    return f"[{low}, {high}]"


def floor_interval_text(estimate, rounds: int) -> str:
    """' [4.3%, 16.4%] (95% interval, 8 rounds)': the floor's interval as `pagelab stats` prints it, the
    spread √ of each end (pagelab.evidence.components), or '' where it has none."""
    if not (math.isfinite(estimate.low) and math.isfinite(estimate.high)):
        return ""
    return (f" {floor_ends_text(estimate)} ({100 * estimate.confidence:g}% interval, {rounds} rounds: f is the "
            f"rounds' sample variance of the log-ratio less a/T, and its ends the χ² interval of that variance on "
            f"{estimate.dof:.3g} degrees of freedom less a/T, cut at 0; the over-time block, of another length, is "
            "not one of the rounds)")


def quoted_figure(row: dict) -> str:
    """The one figure to quote, said first: for a pair not resolved, the verdict line's "resolve effects
    of about ±R%" (the interval's standard error with the 80%-power quantile added,
    pagelab.evidence.intervals, so wider than the half-width); for a pair called, its interval (its line
    prints no R). '' where the line has neither."""
    detectable = row.get("detectable_pct")
    if detectable is None or (isinstance(detectable, float) and math.isnan(detectable)):
        return ""
    scale = ("(± a ratio's distance from 1, as every ± figure here: the glossary's *effect size*)")
    if row["verdict"] == NOT_RESOLVED:
        return (f"**The figure to quote is ±{detectable:.1f}%**, the verdict line's \"resolve effects of about\": "
                f"±{detectable:.1f}% is the smallest true effect that interval's standard error would call with 80% "
                f"power {scale}.")
    # a called pair's line prints no "resolve effects of about": its interval is what to quote
    return (f"**The figure to quote is the interval**: this pair was called, so the figure to quote is its interval. "
            f"±{detectable:.1f}% is the smallest true effect that interval's standard error would call with 80% "
            f"power (what a line not resolved gives as \"resolve effects of about\") {scale}.")


def planner_figures(row: dict, now: planner.Design) -> str:
    """The planner's half-width and detectable effect at this sweep's components, and how they compare
    with the sweep's own interval: the planner uses the variance the components give on average, the
    sweep's interval its blocks' sample variance, bounded below only at the 5% quantile of the
    within-run part's (pagelab.evidence.model.FLOOR_QUANTILE)."""
    # the planner's half-width is on the ratio scale, 100 (exp(h) - 1) with h = t sqrt V; the printed
    # ends' half difference in percentage points is 100 exp(c) sinh(h) for an effect exp(c), another
    # figure, so the two are compared on the ratio scale (a 7.2% fall's ±4.3% is ±3.9 points)
    half = (row["high_pct"] - row["low_pct"]) / 2
    log_half = (math.log1p(row["high_pct"] / 100) - math.log1p(row["low_pct"] / 100)) / 2
    ratio_half = 100 * math.expm1(log_half)
    scale = ("" if round(ratio_half, 1) == round(half, 1) else
             f" (on that scale this sweep's interval is ±{ratio_half:.1f}%: its ends are the effect's ratio multiplied "
             f"and divided by {1 + ratio_half / 100:.3f}; half the distance between its ends, {half:.1f} percentage "
             "points, is another figure, as a ratio interval does not put its ends equally far from its effect)")
    if round(now.half_width_pct, 1) == round(ratio_half, 1):
        compared = ("about the same as this sweep's: its blocks varied about as much as the components give on "
                    "average.")
    elif now.half_width_pct > ratio_half:
        compared = ("wider than this sweep's because this sweep's blocks varied less than the components give on "
                    "average (a sweep's variance may fall to the 5% quantile of what the within-run part alone gives, "
                    "the Method's lower bound, before that bound binds).")
    else:
        compared = ("narrower than this sweep's because this sweep's blocks varied more than the components give on "
                    "average.")
    return (f"For this design the planner's half-width is ±{now.half_width_pct:.1f}% and its 80%-power detectable "
            f"effect {now.detectable_pct:.1f}%, from the variance the components give on average, not from the "
            f"spread these blocks showed (so this detectable effect is not the ±{row['detectable_pct']:.1f}% to "
            f"quote). The planner's half-width is on the ratio scale{scale}; the planner's half-width is "
            + compared)
