"""The variance components in words: the lines `pagelab stats` prints for them, and the sentences
the report's Method repeats, a in %²·s and the floor f as a spread √f in %, each with its interval.
The components themselves are computed in pagelab.evidence.components."""

from __future__ import annotations

import math

from pagelab.evidence.components import Estimate, SizeComponents, VarianceComponents
from pagelab.evidence.numbers import signed_text

# The units of the two components in plain words, wherever they are printed (pagelab stats, the
# report's Method): a is on the log scale x 100², so a log-scale variance of 0.0001 (1% squared) is 1 %².
COMPONENTS_WORDS = ("Here a is the within-run part: the variance of a T-second run's mean TpmC is a/T, in percent "
                    "squared (%²), so a is in %²·s (percent squared × seconds) and a longer run averages it down; f "
                    "is the between-run floor, the variance a restart adds whatever the run's length, and √f, its "
                    "square root, is in percent.")
# The question the pair lines answer in rounds, as the report's precision paragraph and `pagelab plan` ask it:
# a 5% effect (a 5% fall, -log 0.95 on the log scale), two-sided at 5%, 80% power.
PLAN_EFFECT = 0.05
PLAN_ALPHA = 0.05
# What a block's within variance takes, said wherever the pooled a is printed (SizeComponents.role_a)
GROUP_A_WORDS = ("Each block's within variance w_b takes the a of its runs' group, not the pooled a: a round's the "
                 "verdict runs' a, the over-time block's the over-time runs' own.")


def _groups_text(size: SizeComponents) -> str:
    """'35 batch means of 20 s from 7 verdict runs, lag-1 +0.34; 3 of 320 s from 4k-over-time, lag-1 -0.59':
    each group a pools, with its own batch size (a size without groups: its one batch size)."""
    if not size.groups:
        return f"{size.batches} batch means of {size.lag1.batch_s:g} s, lag-1 {signed_text(size.lag1.autocorrelation, 2)}"
    said = []
    for group in size.groups:
        if not group.batches:
            continue
        whose = f"{len(group.runs)} verdict runs" if len(group.runs) > 1 else group.runs[0]
        # each group's own a, which a block of its runs takes (GROUP_A_WORDS): the pooled a is not it
        own = f", a = {1e4 * group.within_a.value:,.0f}" if math.isfinite(group.within_a.value) else ""
        said.append(f"{group.batches}{' batch means' if not said else ''} of {group.lag1.batch_s:g} s from {whose}"
                    f"{own}, lag-1 {signed_text(group.lag1.autocorrelation, 2)}")
    return "; ".join(said)


def _rounds_for_text(pair, alpha: float = 0.05) -> str:
    """'; a 5% effect at 80% power and the 5% level needs 23 verdict rounds of 90 s': the planner's rounds at this
    spread, verdict rounds alone (no over-time block), so a pilot on other machines, which `pagelab plan`
    refuses (its runs are on several hosts), still gives the rounds to plan by (runbooks/slurm.md); '' with
    no spread."""
    from pagelab.evidence import planner

    a, f = pair.within_a.value, pair.between_f.value
    if not (math.isfinite(a) and math.isfinite(f)):
        return ""
    effect = -math.log(1 - PLAN_EFFECT)
    needed = planner.rounds_for_power(a, max(f, 0.0), pair.run_s, alpha, effect)
    at = (f"a {100 * PLAN_EFFECT:g}% effect at {100 * planner.DEFAULT_POWER:.0f}% power and the "
          f"{100 * alpha:.3g}% level needs")
    if needed is None:
        return f"; {at} more than {planner.MOST_ROUNDS:,} rounds of {pair.run_s:g} s"
    return f"; {at} {needed} verdict rounds of {pair.run_s:g} s (the planner's, without an over-time block)"


def components_lines(components: VarianceComponents, levels: dict | None = None) -> list[str]:
    """The components as `pagelab stats` prints them, per page size and then per pair: a in %²·s
    (100² x the log-scale figure) and the floor as a spread, sqrt(f) in %, each with its interval, and
    the rounds a 5% effect needs at the level each pair's line tests it at (`levels`, {(a, b): alpha};
    5% where not given)."""
    def said(estimate: Estimate, name: str, text, unit: str, missing: str) -> str:
        if not math.isfinite(estimate.value):
            return missing
        interval = (f" [{text(estimate.low)}, {text(estimate.high)}]"
                    if math.isfinite(estimate.low) and math.isfinite(estimate.high) else " (no interval)")
        return f"{name} = {text(estimate.value)}{interval}{unit}"

    def within(estimate: Estimate) -> str:
        return said(estimate, "a", lambda v: f"{1e4 * v:,.0f}", " %²·s", "—")

    def floor(estimate: Estimate) -> str:
        return said(estimate, "√f", lambda v: f"{100 * math.sqrt(max(v, 0.0)):.1f}%", "", "√f —")

    lines = [f"Variance components of log TpmC, a run of T s varying as a/T + f ({100 * components.confidence:g}% "
             "intervals): a within runs (batch means), f between runs", f"  {COMPONENTS_WORDS}"]
    for s in components.sizes:
        if s.batches == 0:
            continue
        lines.append(f"  {s.page_size:>4}: within {within(s.within_a)} ({_groups_text(s)}), between "
                     f"{floor(s.between_f)} over {s.runs} runs")
    for p in components.pairs:
        if p.rounds == 0:
            continue
        spread = p.round_variance()  # not a number while f has no estimate (one round)
        spread_text = (f"{100 * math.sqrt(spread):.1f}%" if math.isfinite(spread) and spread >= 0
                       else "— (two rounds needed)")
        lines.append(f"  {p.a} vs {p.b}: within {within(p.within_a)} (the verdict runs' a, as its rounds' w), between {floor(p.between_f)} over {p.rounds} "
                     f"rounds of {p.run_s:g} s; a round's log-ratio spreads {spread_text}"
                     f"{_rounds_for_text(p, (levels or {}).get((p.a, p.b), PLAN_ALPHA))}")
    lines += [f"  {GROUP_A_WORDS}"] if any(p.rounds for p in components.pairs) else []
    lines += [f"  note: {note}" for note in components.notes]
    return lines
