"""The Voron post presented: the post's table beside ours, pages per transaction, the expected random cost, plots."""


from __future__ import annotations

import math

import pandas as pd

from pagelab.workloads.random_writes.run import KEY_ORDERS, SEED_PAGE_SIZE, SEED_TABLE
from pagelab.common.errors import UsageError
from pagelab.common.reference import reference_table
from pagelab.common.units import KIB, page_size_label

# -- the post beside ours -------------------------------------------------------------------------

def seed_table() -> pd.DataFrame:
    """The Voron post's published table (data/reference/voron_random_writes.csv): statistic
    (average, max, total, std_dev), sequential_pages, random_pages; Voron, 4 KiB pages."""
    return reference_table(SEED_TABLE)


STATISTICS = {"average": "pages_avg", "max": "pages_max", "total": "pages_total", "std_dev": "pages_std"}


def seed_comparison(*results: pd.DataFrame, page_size: int = SEED_PAGE_SIZE) -> pd.DataFrame:
    """The post's table beside ours at one page size (the post's 4k by default).

    One row per statistic (average, max, total, std_dev of pages written per transaction); a
    column per (source, key order): "Voron (the post) sequential", then "<engine> sequential" for each
    frame given (the prototype's, SQLite's), then the same for random keys. An engine without a
    row at this page size is left out."""
    seed = seed_table().set_index("statistic")
    columns: dict[str, list[float]] = {}
    for order in KEY_ORDERS:
        columns[f"Voron (the post) {order}"] = [float(seed.loc[name, f"{order}_pages"]) for name in STATISTICS]
        for frame in results:
            rows = frame[(frame["page_size"] == page_size) & (frame["key_order"] == order)]
            if rows.empty:
                continue
            if len(rows) > 1:
                raise UsageError(f"{len(rows)} rows for {page_size_label(page_size)} {order}; expected one per engine")
            row = rows.iloc[0]
            columns[f"{row['engine']} {order}"] = [float(row[column]) for column in STATISTICS.values()]
    table = pd.DataFrame(columns, index=pd.Index(list(STATISTICS), name="statistic"))
    return table


def ratio_to_seed(results: pd.DataFrame, page_size: int = SEED_PAGE_SIZE) -> pd.DataFrame:
    """Ours ÷ the post's, per statistic and key order, at one page size (1.0: the same)."""
    table = seed_comparison(results, page_size=page_size)
    engine = results["engine"].iloc[0]
    return pd.DataFrame({
        order: table[f"{engine} {order}"] / table[f"Voron (the post) {order}"]
        for order in KEY_ORDERS if f"{engine} {order}" in table
    })


def findings(results: pd.DataFrame, page_size: int = SEED_PAGE_SIZE) -> str:
    """The notebook's opening paragraph: pages per transaction at the post's page size, ours
    beside Voron's, and what random keys cost against sequential ones at every page size."""
    table = seed_comparison(results, page_size=page_size)
    engine = results["engine"].iloc[0]
    seed_seq, seed_rand = table.loc["average", "Voron (the post) sequential"], table.loc["average", "Voron (the post) random"]
    ours_seq, ours_rand = table.loc["average", f"{engine} sequential"], table.loc["average", f"{engine} random"]
    by_size = results.pivot_table(index="page_size", columns="key_order", values="pages_avg")
    ratios = ", ".join(f"{page_size_label(int(size))} {row['random'] / row['sequential']:.0f}×"
                       for size, row in by_size.iterrows() if row.get("sequential"))
    return (f"At {page_size_label(page_size)} pages the prototype wrote {ours_seq:.2f} pages per transaction with "
            f"sequential keys and {ours_rand:.2f} with random keys; Voron, in the post, wrote {seed_seq:.2f} and "
            f"{seed_rand:.2f}. Random keys cost {ours_rand / ours_seq:.0f}× the pages of sequential ones here, "
            f"{seed_rand / seed_seq:.0f}× in the post. Random ÷ sequential per page size: {ratios}. These are counts "
            "of pages written, not timings, so they do not vary from run to run with the machine.")


# -- tables and a plot for the notebook -----------------------------------------------------------

def pages_per_transaction_table(*results: pd.DataFrame) -> pd.DataFrame:
    """Pages written per transaction (avg, max, std) and bytes per transaction, one row per
    (engine, page size), sequential and random side by side, plus random ÷ sequential."""
    frame = pd.concat(results, ignore_index=True)
    wide = frame.pivot_table(index=["engine", "page_size", "page_size_label"], columns="key_order",
                             values=["pages_avg", "pages_max", "pages_std", "bytes_per_txn_avg", "tree_depth"],
                             aggfunc="first")
    wide.columns = [f"{order} {name}" for name, order in wide.columns]
    ordered = [f"{order} {name}" for name in ("pages_avg", "pages_max", "pages_std", "bytes_per_txn_avg", "tree_depth")
               for order in KEY_ORDERS if f"{order} {name}" in wide.columns]
    wide = wide[ordered]
    if {"random pages_avg", "sequential pages_avg"} <= set(wide.columns):
        wide["random ÷ sequential"] = wide["random pages_avg"] / wide["sequential pages_avg"]
    for column in wide.columns:
        if column.endswith("bytes_per_txn_avg"):
            wide[column.replace("bytes_per_txn_avg", "KiB_per_txn_avg")] = wide.pop(column) / KIB
    return wide.reset_index(level="page_size", drop=True)


def plot_pages_per_transaction(*results: pd.DataFrame):
    """Pages and KiB written per transaction by page size, sequential vs random (a seaborn
    figure: one panel per measure, one line style per engine, log scale)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    frame = pd.concat(results, ignore_index=True)
    frame = frame.assign(kib_per_txn=frame["bytes_per_txn_avg"] / KIB)
    order = sorted(frame["page_size"].unique())
    frame["key order"] = frame["key_order"]  # seaborn shows the hue's column name in the legend
    frame["page size"] = pd.Categorical(frame["page_size_label"],
                                        categories=[page_size_label(size) for size in order], ordered=True)
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, column, title in ((axes[0], "pages_avg", "pages written per transaction"),
                              (axes[1], "kib_per_txn", "KiB written per transaction")):
        sns.lineplot(data=frame, x="page size", y=column, hue="key order", hue_order=list(KEY_ORDERS),
                     style="engine", markers=True, dashes=True, ax=ax)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_ylabel(title.split(" written")[0])
    seed = seed_table().set_index("statistic")
    for order, color in zip(KEY_ORDERS, sns.color_palette(n_colors=2)):
        average = float(seed.loc["average", f"{order}_pages"])
        axes[0].scatter([page_size_label(SEED_PAGE_SIZE)], [average], marker="*", s=160, color=color,
                        edgecolor="black", zorder=5, label=f"Voron (the post) {order}")
        axes[1].scatter([page_size_label(SEED_PAGE_SIZE)], [average * SEED_PAGE_SIZE / KIB], marker="*", s=160,
                        color=color, edgecolor="black", zorder=5)
    axes[0].legend(fontsize="small")
    axes[1].get_legend().remove()
    figure.tight_layout()
    return figure


def expected_random_pages(results: pd.DataFrame) -> pd.DataFrame:
    """For random keys: the pages a transaction of k items would dirty if each item landed in a
    leaf chosen uniformly from the final tree's L leaves, L * (1 - (1 - 1/L)**k), beside the
    measured average. (Upper-ish bound: the tree grows from nothing, so early transactions have
    fewer leaves; the interior pages and the header page add the rest.)"""
    rows = []
    for _, row in results[results["key_order"] == "random"].iterrows():
        leaves, k = row["leaf_pages"], row["items_per_transaction"]
        distinct = leaves * (1 - (1 - 1 / leaves) ** k) if leaves else math.nan
        rows.append({"engine": row["engine"], "page_size_label": row["page_size_label"], "leaf_pages": leaves,
                     "items_per_transaction": k, "distinct_leaves_expected": distinct,
                     "pages_avg_measured": row["pages_avg"]})
    return pd.DataFrame(rows)
