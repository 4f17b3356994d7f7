"""Looking more than once: group-sequential boundaries for a sweep extended by more rounds.

A sweep made with room to grow (the knob max_rounds above repeats) may be analysed after its
rounds and again after each `pagelab sweep --resume BUNDLE --add-rounds N`. Testing every look at
the full 5% would let "add rounds until it says faster" make a verdict out of noise (Armitage,
McPherson & Rowe, "Repeated significance tests on accumulating data", JRSS A 132, 1969: with
three looks at 5% each the false-call rate is about 10.7%). So each look k is tested at a
boundary c_k on the z scale, chosen so that the chance of crossing any boundary by look k under no
effect is what an alpha-spending function allows at that look's information fraction
t_k = rounds_k / max_rounds (Lan & DeMets, "Discrete sequential boundaries for clinical trials",
Biometrika 70(3), 1983). The spending function is their O'Brien-Fleming type, which spends almost
nothing early and keeps the last look near the fixed-sample boundary; two-sided and symmetric, each
side spends the one-sided function at alpha/2:

    alpha(t) = 2 * (2 - 2 * Phi(z_(1 - alpha/4) / sqrt(t)))

(the form of gsDesign's sfLDOF and rpact's "asOF" at a one-sided alpha/2). The looks' z
statistics are those of a Brownian motion observed at t_1 < t_2 < ...: jointly normal with
corr(Z_i, Z_j) = sqrt(t_i / t_j) for i < j (Jennison & Turnbull, "Group Sequential Methods with
Applications to Clinical Trials", 2000, ch. 3.4). Each boundary is found with
`scipy.optimize.brentq` so that P(|Z_j| < c_j for every j <= k) = 1 - alpha(t_k), the rectangle
probability from `scipy.stats.multivariate_normal.cdf` (Genz's quasi-Monte Carlo, with a fixed
generator so that the root finder sees one function).

No maintained Python library offers these boundaries: statsmodels has none, and the group-
sequential packages on PyPI are early alphas (gsdesign 0.1 holds only gsDesign's numerical
integration, without spending functions). The boundaries are checked against published ones in
tests/test_sequential.py.

A look's test then uses its nominal level 2 * (1 - Phi(c_k)) in place of alpha: a p-value under it
(from whatever test the look uses, a t-test with the rounds' degrees of freedom included: the
"nominal significance level" approach of Jennison & Turnbull ch. 3.8) is a verdict, and the
interval at 1 - that level is the look's repeated confidence interval (ch. 9).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
import scipy  # scipy.stats and scipy.optimize load on first use (2-3 s): every `pagelab sweep` imports this module

# How closely the rectangle probabilities are integrated: a boundary moves by about
# error / (2 * phi(c)), so 1e-6 keeps every boundary within about 1e-5 of its value (three looks
# take a few CPU seconds; 1e-7 moves none of them by more than 2e-6 and takes twice as long).
_ABSOLUTE_ERROR = 1e-6
_QMC_SEED = 20_231_983  # any fixed seed: brentq needs the same function at every call


def obrien_fleming_spending(t: float, alpha: float) -> float:
    """The two-sided alpha spent by information fraction `t` (0 < t <= 1): Lan & DeMets' (1983)
    O'Brien-Fleming-type function, each side spending the one-sided form at alpha / 2."""
    if not 0 < t <= 1:
        raise ValueError(f"an information fraction is in (0, 1], got {t}")
    z = scipy.stats.norm.isf(alpha / 4)
    return float(4 * scipy.stats.norm.sf(z / math.sqrt(t)))


def _correlation(fractions: Sequence[float]) -> np.ndarray:
    t = np.asarray(fractions, float)
    return np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))


def _inside(bounds: Sequence[float], fractions: Sequence[float]) -> float:
    """P(|Z_j| < bounds_j for every j) for the looks at `fractions`, under no effect."""
    bounds = np.asarray(bounds, float)
    if bounds.size == 1:
        return float(1 - 2 * scipy.stats.norm.sf(bounds[0]))
    return float(scipy.stats.multivariate_normal.cdf(bounds, mean=np.zeros(bounds.size), cov=_correlation(fractions),
                                               lower_limit=-bounds, abseps=_ABSOLUTE_ERROR, releps=0,
                                               maxpts=4_000_000, rng=np.random.default_rng(_QMC_SEED)))


def _check_fractions(fractions: Sequence[float]) -> list[float]:
    t = [float(x) for x in fractions]
    if not t or any(not 0 < x <= 1 for x in t) or any(b <= a for a, b in zip(t, t[1:])):
        raise ValueError(f"information fractions must rise within (0, 1], got {fractions}")
    return t


def spending_boundaries(fractions: Sequence[float], alpha: float) -> tuple[float, ...]:
    """The two-sided z boundaries c_1, c_2, ... of looks at information `fractions` (rising, the
    last at most 1) that spend `alpha` by Lan & DeMets' O'Brien-Fleming-type function."""
    return _spending_boundaries(tuple(_check_fractions(fractions)), float(alpha))


@lru_cache(maxsize=64)  # the report, stats and a bench ask for the same looks again and again
def _spending_boundaries(t: tuple[float, ...], alpha: float) -> tuple[float, ...]:
    bounds: list[float] = []
    for k, fraction in enumerate(t):
        target = 1 - obrien_fleming_spending(fraction, alpha)
        looks = t[: k + 1]

        def gap(c: float) -> float:
            return _inside([*bounds, c], looks) - target

        # the boundary lies between the fixed-sample one of what is left to spend and far out
        bounds.append(float(scipy.optimize.brentq(gap, 0.5, 12.0, xtol=1e-6)))
    return tuple(bounds)


def obrien_fleming_boundaries(fractions: Sequence[float], alpha: float) -> tuple[float, ...]:
    """O'Brien & Fleming's own boundaries ("A multiple testing procedure for clinical trials",
    Biometrics 35, 1979): c_k = C / sqrt(t_k), with one constant C chosen so that the whole
    sequence has two-sided level `alpha`. They need the looks fixed in advance, so the sweep uses
    the spending function above; these check the same joint law against other published values."""
    t = _check_fractions(fractions)
    scale = 1 / np.sqrt(np.asarray(t))
    constant = scipy.optimize.brentq(lambda c: _inside(c * scale, t) - (1 - alpha), 0.5, 12.0, xtol=1e-6)
    return tuple(float(constant * s) for s in scale)


def nominal_alpha(boundary: float) -> float:
    """The two-sided level a look is tested at: P(|Z| >= c) for its boundary c."""
    return float(2 * scipy.stats.norm.sf(boundary))


@dataclass(frozen=True)
class Look:
    """One analysis of a sweep: its number, the whole rounds it had, and when it was taken."""

    look: int
    rounds: int
    time: str = ""


@dataclass(frozen=True)
class SequentialPlan:
    """A sweep's looks and the most rounds it may reach (max_rounds). With one look at max_rounds
    (no extension planned) it is a fixed design tested at the full alpha."""

    looks: tuple[Look, ...]
    max_rounds: int
    alpha: float

    def __post_init__(self) -> None:
        rounds = [look.rounds for look in self.looks]
        if not rounds or any(b <= a for a, b in zip(rounds, rounds[1:])) or rounds[0] < 1:
            raise ValueError(f"looks must have rising round counts, got {rounds}")
        if rounds[-1] > self.max_rounds:
            raise ValueError(f"look {len(rounds)} has {rounds[-1]} rounds, past max_rounds {self.max_rounds}")

    @property
    def fractions(self) -> tuple[float, ...]:
        return tuple(look.rounds / self.max_rounds for look in self.looks)

    @property
    def sequential(self) -> bool:
        """False for a fixed design: one look, at all the rounds the sweep was made for."""
        return not (len(self.looks) == 1 and self.looks[0].rounds == self.max_rounds)

    def boundaries(self, alpha: float | None = None) -> tuple[float, ...]:
        """Each look's z boundary when `alpha` (the plan's own by default) is spent over the looks."""
        alpha = self.alpha if alpha is None else alpha
        if not self.sequential:
            return (float(scipy.stats.norm.isf(alpha / 2)),)
        return spending_boundaries(self.fractions, alpha)

    def level_at(self, alpha: float) -> float:
        """The nominal level of the latest look for a hypothesis given `alpha` to spend over the
        looks (alpha itself in a fixed design)."""
        return nominal_alpha(self.boundaries(alpha)[-1])

    def family_confidence(self, pairs: int) -> float:
        """The confidence to hand a Holm family of up to `pairs` hypotheses at this look, so that
        every step of Holm's procedure (the j-th smallest p against alpha' / (m - j + 1)) is at or
        under that step's own group-sequential level: alpha' = min over i <= pairs of
        i * level_at(alpha / i). Holm with each step's local alpha spent over the looks is the
        Bonferroni-based graphical procedure of Maurer & Bretz ("Multiple testing in group
        sequential trials using graphical approaches", Statistics in Biopharmaceutical Research
        5(4), 2013); taking the smallest keeps every step at or below its level. 1 - alpha in a
        fixed design."""
        if not self.sequential:
            return 1 - self.alpha
        return 1 - min(i * self.level_at(self.alpha / i) for i in range(1, max(pairs, 1) + 1))

    def nominal_alphas(self) -> tuple[float, ...]:
        """The two-sided level each look is tested at; the last is the current one."""
        return tuple(nominal_alpha(c) for c in self.boundaries())

    def current_confidence(self) -> float:
        """The confidence level of the latest look's tests and (repeated) intervals."""
        return 1 - self.nominal_alphas()[-1]

    def lines(self) -> list[str]:
        """The looks as the report and `pagelab stats` list them."""
        if not self.sequential:
            return [f"One look, after all {self.max_rounds} rounds the sweep was made for: tested at the full "
                    f"{100 * self.alpha:g}%."]
        spent = [obrien_fleming_spending(t, self.alpha) for t in self.fractions]
        out = [f"Looks: {len(self.looks)} of a sweep made for at most {self.max_rounds} rounds; each look is tested "
               f"at a Lan-DeMets O'Brien-Fleming-type boundary, so the {100 * self.alpha:g}% is spread over every look "
               "that may be taken:"]
        for look, c, level, total in zip(self.looks, self.boundaries(), self.nominal_alphas(), spent):
            when = f", {look.time}" if look.time else ""
            out.append(f"  look {look.look}: {look.rounds} rounds{when}: |z| >= {c:.3f} (nominal level {level:.4f}; "
                       f"{total:.4f} of {self.alpha:g} spent by then)")
        return out


def first_look(rounds: int, time_text: str) -> list[dict]:
    """sweep.json's "looks" of a new sweep: one, after its rounds."""
    return [{"look": 1, "rounds": int(rounds), "time": time_text}]


def recorded_looks(document: dict) -> list[dict]:
    """The analyses a sweep was made for, from its sweep.json document, in order: {"look",
    "rounds", "time"} each, where time is when the look was declared (the sweep's creation, or the
    `--add-rounds` that made it). A bundle from before looks were recorded had one, after its
    repeats."""
    recorded = document.get("looks")
    if recorded:
        return [dict(look) for look in recorded]
    return first_look(int(document.get("profile", {}).get("repeats", 1)), document.get("created", ""))


def plan_of(document: dict, alpha: float) -> SequentialPlan:
    """A sweep's looks (its sweep.json document) as they are tested: each against the most rounds
    it was made for (the knob max_rounds, or its repeats when it declared none)."""
    profile = document.get("profile", {})
    most = int(profile.get("max_rounds") or 0) or int(profile.get("repeats", 1))
    looks = tuple(Look(int(look["look"]), int(look["rounds"]), str(look.get("time", "")))
                  for look in recorded_looks(document))
    return SequentialPlan(looks, max(most, looks[-1].rounds), alpha)


def planned_looks(document: dict, alpha: float) -> SequentialPlan | None:
    """The looks a sweep made with room to grow (max_rounds in its sweep.json document) may take,
    through its last: the looks it recorded, then one at max_rounds. A design for such a sweep
    (`pagelab plan`) is judged at that last look's boundary, not at the fixed-sample level. None
    for a sweep made to be analysed once."""
    most = int(document.get("profile", {}).get("max_rounds") or 0)
    if not most:
        return None
    rounds = sorted({int(look["rounds"]) for look in recorded_looks(document) if int(look["rounds"]) < most})
    return SequentialPlan(tuple(Look(i + 1, r) for i, r in enumerate([*rounds, most])), most, alpha)
