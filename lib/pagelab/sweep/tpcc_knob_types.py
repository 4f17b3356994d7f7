"""Sweep knob types whose values are the TPC-C driver's terms: response-time limits per
transaction kind and the driver mode.

They follow the protocol of `pagelab.sweep.knob_types` (`allowed`, `parse`, `text`, `jsonable`;
a rejected value raises `Rejected`) and change with pagelab.tpcc: its transaction kinds, its
default limits, its modes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from pagelab.common.errors import UsageError
from pagelab.common.transactions import TransactionKind
from pagelab.sweep.knob_types import Rejected, SavedAsIs
from pagelab.tpcc.modes import MODE_NAMES, mode_named
from pagelab.tpcc.stats import DEFAULT_RESPONSE_LIMITS_MS


@dataclass(frozen=True)
class ResponseLimits:
    """Milliseconds per transaction kind, for the "90% within the limit" check; kinds not given
    keep the specification's limit (clause 5.2.5.3)."""

    allowed: str = ("KIND=MS pairs, e.g. new_order=2000,stock_level=10000, with KIND one of "
                    + " ".join(kind.column for kind in TransactionKind))

    def parse(self, raw: Any) -> Mapping[str, float]:
        if isinstance(raw, Mapping):
            pairs = list(raw.items())
        elif isinstance(raw, str):
            pairs = [item.partition("=")[::2] for item in re.split(r"[,\s]+", raw.strip()) if item]
        else:
            raise Rejected(f"{raw!r} is not a set of KIND=MS pairs")
        limits = {kind.column: DEFAULT_RESPONSE_LIMITS_MS[kind] for kind in TransactionKind}
        for name, value in pairs:
            try:
                kind = TransactionKind.from_cli_name(str(name))
            except ValueError as problem:
                raise Rejected(str(problem)) from None
            try:
                milliseconds = float(value)
            except (TypeError, ValueError):
                milliseconds = -1.0
            if not milliseconds > 0 or math.isinf(milliseconds):
                raise Rejected(f"{kind.column}: {value!r} is not a positive number of milliseconds")
            limits[kind.column] = milliseconds
        return MappingProxyType(limits)

    def text(self, value: Mapping[str, float]) -> str:
        return ",".join(f"{name}={milliseconds:g}" for name, milliseconds in value.items())

    def jsonable(self, value: Mapping[str, float]) -> dict[str, float]:
        return dict(value)


@dataclass(frozen=True)
class DriverModeChoice(SavedAsIs):
    """One of the driver modes of pagelab.tpcc.modes; an alias reads as the mode it names."""

    allowed: str = " ".join(MODE_NAMES)

    def parse(self, raw: Any) -> str:
        try:
            return mode_named(raw).name
        except UsageError:
            raise Rejected(f"{raw} is not allowed") from None

    def text(self, value: str) -> str:
        return value
