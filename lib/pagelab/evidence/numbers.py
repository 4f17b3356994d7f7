"""How a signed number reads wherever pagelab prints one: a true minus sign (−, not the hyphen),
a plus sign on a positive value, no sign on a value that rounds to zero, and an effect with digits
enough to show it.

The primitive under pagelab.evidence.wording's `pct_text`, kept in a module of its own because
wording imports the model and the components, and they print signed numbers too (a drift, a lag-1
autocorrelation): all of them import this, so there is one rule and no import circle.

The rule for an effect (`effect_decimals`): one decimal, or more when the value needs them for two
significant digits, at most three. So +9.5%, +15.0%, −0.45%, −0.045%, and 0.0% only for a value
under 0.0005% in size: an effect of −0.04% no longer reads as 0.0%, and an interval from −0.52% to
−0.47% no longer as [−0.5%, −0.5%].
"""

from __future__ import annotations

import math

# An effect keeps at least this many significant digits ...
EFFECT_DIGITS = 2
# ... with at least one decimal and at most this many: past a thousandth of a percent a benchmark's
# number is noise, and a float's rounding error (1e-14) must not print as digits.
MOST_DECIMALS = 3


def missing(value) -> bool:
    """None or nan (a Python or a numpy float)."""
    try:
        return value is None or math.isnan(value)
    except TypeError:  # not a number at all (a text cell): shown as it is
        return False


def zero_unsigned(text: str) -> str:
    """'-0.0' and '+0.0' as '0.0': a value shown as zero has no sign (a −0.0% effect reads as a
    direction the number does not have)."""
    digits = text.lstrip("+-")
    return text if any(c in "123456789" for c in digits) else digits


def effect_decimals(value: float) -> int:
    """The decimals an effect prints with: one, or as many as two significant digits need, at most
    MOST_DECIMALS. Taken from the value rounded to two significant digits, so 0.996 prints as 1.0,
    not 1.00."""
    if missing(value) or math.isinf(value) or abs(value) < 0.5 * 10 ** -MOST_DECIMALS:
        return 1  # a value that rounds to zero at the most decimals reads 0.0
    rounded = abs(float(f"{value:.{EFFECT_DIGITS - 1}e}"))
    return min(max(EFFECT_DIGITS - 1 - math.floor(math.log10(rounded)), 1), MOST_DECIMALS)


def signed_text(value: float, decimals: int | None = None) -> str:
    """'+9.5', '−0.045', '0.0', '—' for no value: a signed number with a true minus sign and no sign
    when it rounds to zero; with `decimals` None, as many as `effect_decimals` gives."""
    if missing(value):
        return "—"
    places = effect_decimals(value) if decimals is None else decimals
    return zero_unsigned(f"{value:+.{places}f}").replace("-", "−")
