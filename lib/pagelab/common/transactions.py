"""The five TPC-C transactions and their names, declared once.

In the bottom layer of the library because both the TPC-C driver (pagelab.tpcc) and the log
parser (pagelab.parse) name them, and the parser sits below the driver.
"""

from __future__ import annotations

from enum import IntEnum


class TransactionKind(IntEnum):
    """The five transactions, numbered as tpcc-mysql numbers them in its driver and its log.

    Each has three names, all from the table below: `label` as tpcc-mysql's log prints it
    ("New-Order"), `column` as tidy tables and summary.json name it ("new_order"), and `cli_name`
    as a command-line option takes it ("new-order")."""

    NEW_ORDER = 0
    PAYMENT = 1
    ORDER_STATUS = 2
    DELIVERY = 3
    STOCK_LEVEL = 4

    @property
    def label(self) -> str:
        return _KIND_LABELS[self]

    @property
    def column(self) -> str:
        return self.name.lower()

    @property
    def cli_name(self) -> str:
        return self.column.replace("_", "-")

    @classmethod
    def from_cli_name(cls, text: str) -> "TransactionKind":
        """The kind named `text` ("new-order", "new_order", "New-Order"); ValueError naming the choices."""
        wanted = text.strip().lower().replace("_", "-")
        for kind in cls:
            if kind.cli_name == wanted:
                return kind
        raise ValueError(f"{text!r} is not a transaction; one of {', '.join(k.cli_name for k in cls)}")


_KIND_LABELS = {TransactionKind.NEW_ORDER: "New-Order", TransactionKind.PAYMENT: "Payment",
                TransactionKind.ORDER_STATUS: "Order-Status", TransactionKind.DELIVERY: "Delivery",
                TransactionKind.STOCK_LEVEL: "Stock-Level"}
