"""Writes a run's log in tpcc-mysql's `tpcc_start` format, so every tool that reads those logs
(pagelab's own parser, the lab's own scripts, a student's awk) reads ours unchanged:

    ***************************************
    *** ###easy### TPC-C Load Generator ***
    ***************************************
    <Parameters>
         [server]: 127.0.0.1
         ...
    RAMP-UP TIME.(10 sec.)

    MEASURING START.

      10, trx: 1869, 95%: 19.710, 99%: 30.258, max_rt: 126.288, 1872|93.235, 187|9.714, 187|79.165, 187|77.656
    ...
    STOPPING THREADS....

    <Raw Results>
      [0] sc:1183 lt:10505  rt:0  fl:0 avg_rt: 12.1 (5)
    ...
    <TpmC>
                     11688.000 TpmC

An interval line: seconds since measurement start; New-Orders completed (rollbacks included) with
their 95th/99th percentile and maximum response time; then count|max for Payment, Order-Status,
Delivery and Stock-Level. Times in milliseconds. The header never shows the password: tpcc-mysql
prints `option p` and `[pass]`, we leave both lines out.
"""

from __future__ import annotations

from pagelab.common.transactions import TransactionKind
from pagelab.tpcc.stats import IntervalSample, KindTotals

BANNER = (
    "***************************************\n"
    "*** ###easy### TPC-C Load Generator ***\n"
    "***************************************\n"
)

# Clause 5.2.3: the minimum share of each kind in the mix, as tpcc-mysql checks it.
MINIMUM_MIX_PERCENT = {
    TransactionKind.PAYMENT: 43.0,
    TransactionKind.ORDER_STATUS: 4.0,
    TransactionKind.DELIVERY: 4.0,
    TransactionKind.STOCK_LEVEL: 4.0,
}
RESPONSE_TIME_PASS_PERCENT = 90.0


def header(server: str, port: int | str, database: str, user: str, warehouses: int, connections: int,
           rampup_s: int, measure_s: int, interval_s: int, seed: int, driver: str, mode: str) -> str:
    options = [("h", server), ("P", port), ("d", database), ("u", user), ("w", warehouses),
               ("c", connections), ("r", rampup_s), ("l", measure_s), ("i", interval_s)]
    lines = [BANNER.rstrip("\n")]
    lines += [f"option {flag} with value '{value}'" for flag, value in options]
    lines.append("<Parameters>")
    parameters = [("server", server), ("port", port), ("DBname", database), ("user", user),
                  ("warehouse", warehouses), ("connection", connections),
                  ("rampup", f"{rampup_s} (sec.)"), ("measure", f"{measure_s} (sec.)"),
                  ("seed", seed), ("driver", driver), ("mode", mode)]
    # tpcc-mysql right-aligns the names to 13 columns, except [port], which it indents by five.
    lines += [f"{'     [port]' if name == 'port' else f'[{name}]'.rjust(13)}: {value}" for name, value in parameters]
    lines.append("")
    return "\n".join(lines) + "\n"


def rampup_banner(rampup_s: int) -> str:
    return f"RAMP-UP TIME.({rampup_s} sec.)\n"


def measuring_banner() -> str:
    return "\nMEASURING START.\n\n"


def _ms(value: float | None) -> str:
    return f"{value if value is not None else 0.0:.3f}"


def interval_line(t_s: float, sample: IntervalSample) -> str:
    stats = sample.summary()
    new_order = stats[int(TransactionKind.NEW_ORDER)]
    others = ", ".join(
        f"{stats[int(kind)]['count']}|{_ms(stats[int(kind)]['max'])}"
        for kind in (TransactionKind.PAYMENT, TransactionKind.ORDER_STATUS, TransactionKind.DELIVERY,
                     TransactionKind.STOCK_LEVEL)
    )
    return (f"{int(round(t_s)):4d}, trx: {new_order['count']}, 95%: {_ms(new_order['p95'])}, "
            f"99%: {_ms(new_order['p99'])}, max_rt: {_ms(new_order['max'])}, {others}\n")


def stopping_banner() -> str:
    return "\nSTOPPING THREADS....\n"


def _limit_label(limit_ms: float) -> str:
    # tpcc-mysql prints the limit in seconds in brackets: "(5)", "(80)".
    return f"{limit_ms / 1000:g}"


def footer(totals: dict[int, KindTotals], limits_ms: dict, measured_s: float, tpmc: float) -> str:
    lines = ["", "<Raw Results>"]
    for kind in TransactionKind:
        row = totals[int(kind)]
        lines.append(f"  [{int(kind)}] sc:{row.success} lt:{row.late}  rt:{row.retries}  fl:{row.failures} "
                     f"avg_rt: {row.average_ms:.1f} ({_limit_label(limits_ms[kind])})")
    lines.append(f" in {measured_s:g} sec.")
    lines += ["", "<Raw Results2(sum ver.)>"]
    for kind in TransactionKind:
        row = totals[int(kind)]
        lines.append(f"  [{int(kind)}] sc:{row.success}  lt:{row.late}  rt:{row.retries}  fl:{row.failures} ")
    lines += ["", "<Constraint Check> (all must be [OK])", " [transaction percentage]"]
    completed_all = sum(row.completed for row in totals.values())
    for kind, minimum in MINIMUM_MIX_PERCENT.items():
        share = 100.0 * totals[int(kind)].completed / completed_all if completed_all else 0.0
        verdict = "[OK]" if share >= minimum else "[NG] *"
        lines.append(f"{kind.label:>15}: {share:.2f}% (>={minimum:4.1f}%) {verdict}")
    lines.append(" [response time (at least 90% passed)]")
    for kind in TransactionKind:
        row = totals[int(kind)]
        passed = 100.0 * row.success / row.completed if row.completed else 0.0
        verdict = "[OK]" if passed >= RESPONSE_TIME_PASS_PERCENT else "[NG] *"
        lines.append(f"{kind.label:>15}: {passed:.2f}%  {verdict}")
    lines += ["", "<TpmC>", f"{tpmc:26.3f} TpmC", ""]
    return "\n".join(lines)
