"""A sweep on two nodes that differ in speed, laid out two ways, each judged as pagelab judges it.

Simulated sweeps of 3 page sizes with no page-size effect, on two nodes --node-gap percent apart
(default 10%). Every run has its own noise (--run-spread); the runs that share a node's minute
share a slow or fast minute (--minute-spread), which is what blocking by round cancels.

- one run per task (how `--executor slurm` ran before rounds were tasks): each unit lands on
  whichever node is free, so a round's three runs land on either node at random and share no
  minute; judged as the old analysis did, round by round; run by run, with no blocks
  (pagelab.bundle.with_blocks) and nothing of the node; and as pagelab now judges a bundle whose
  rounds span nodes, every run unpaired with the node as a random effect
  (pagelab.evidence.node_model);
- one round per task (now): a round's runs run one after another on one node, sharing its speed
  and its minute; the rounds alternate between the nodes; judged round by round.

Printed per layout: the family's false-call rate (sweeps in which any of the 3 pairs is called
faster or slower; nothing is) and the median width of the 16k-vs-4k interval (at the family's
Bonferroni level), in percent.

    .venv/bin/python bench/bench_node_blocks.py [--rounds 8] [--trials 300] [--node-gap 10]
                                                [--run-spread 0.03] [--minute-spread 0.04]
"""

from __future__ import annotations

import argparse
from itertools import combinations

import numpy as np
import pandas as pd

from arguments import at_least_one
from pagelab.evidence import FASTER, SLOWER, compare_family
from pagelab.evidence.node_model import node_effect

PAGE_SIZES = ("4k", "8k", "16k")
PAIRS = list(combinations(range(len(PAGE_SIZES)), 2))  # (4k, 8k), (4k, 16k), (8k, 16k)
PRIMARY = PAIRS.index((0, 2))


def one_run_per_task(rounds: int, args, rng: np.random.Generator) -> list[dict]:
    """Each run on a node drawn at random, with a minute of its own: per page size {round: (value, node)}."""
    levels = np.array([1.0, 1 + args.node_gap / 100])
    sizes = []
    for _ in PAGE_SIZES:
        nodes = rng.integers(2, size=rounds)
        sizes.append({r: (float(levels[nodes[r - 1]] * np.exp(rng.normal(0, args.minute_spread)
                                                               + rng.normal(0, args.run_spread))), int(nodes[r - 1]))
                      for r in range(1, rounds + 1)})
    return sizes


def one_round_per_task(rounds: int, args, rng: np.random.Generator) -> list[dict]:
    """Round r on node r mod 2; its runs share the node and the round's minute."""
    levels = np.array([1.0, 1 + args.node_gap / 100])
    minutes = rng.normal(0, args.minute_spread, rounds)
    return [{r: (float(levels[r % 2] * np.exp(minutes[r - 1] + rng.normal(0, args.run_spread))), r % 2)
             for r in range(1, rounds + 1)} for _ in PAGE_SIZES]


def judge(sizes: list[dict], how: str) -> tuple[bool, float]:
    """(any pair called, the 16k-vs-4k interval's width in %) with pagelab's family rule, the runs
    judged `how`: "rounds" (dicts by round), "runs" (lists, as runs without a block) or "node model"
    (pagelab.evidence.node_model's estimate for every pair, as for a bundle whose rounds span nodes)."""
    values = [{r: value for r, (value, _) in runs.items()} for runs in sizes]
    sides = values if how == "rounds" else [list(runs.values()) for runs in values]
    models = None
    if how == "node model":
        table = pd.DataFrame([{"page_size": PAGE_SIZES[i], "host": f"node-{node}", "tpmc": value}
                              for i, runs in enumerate(sizes) for value, node in runs.values()])
        models = [node_effect(table, "tpmc", PAGE_SIZES[j], PAGE_SIZES[i]) for i, j in PAIRS]
    found = compare_family([(sides[j], sides[i]) for i, j in PAIRS], models=models)
    return any(c.verdict in (FASTER, SLOWER) for c in found), 100 * (found[PRIMARY].high - found[PRIMARY].low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=at_least_one, default=8)
    parser.add_argument("--trials", type=at_least_one, default=300)
    parser.add_argument("--node-gap", type=float, default=10.0, help="node-b's speed above node-a's, in %%")
    parser.add_argument("--run-spread", type=float, default=0.03, help="each run's own log-normal spread")
    parser.add_argument("--minute-spread", type=float, default=0.04, help="a minute's, shared by the runs in it")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    layouts = (("one run per task, judged round by round (before)", one_run_per_task, "rounds"),
               ("one run per task, judged run by run, no node", one_run_per_task, "runs"),
               ("one run per task, node as a random effect (its rounds span nodes)", one_run_per_task, "node model"),
               ("one round per task, judged round by round (now)", one_round_per_task, "rounds"))
    print(f"{args.trials} simulated sweeps each: {len(PAGE_SIZES)} page sizes alike, {args.rounds} rounds, two nodes "
          f"{args.node_gap:g}% apart, run spread {100 * args.run_spread:g}%, minute spread "
          f"{100 * args.minute_spread:g}%")
    print(f"{'layout':<70} {'false calls':>12} {'16k vs 4k interval width':>26}")
    for name, layout, how in layouts:
        called, widths = 0, []
        for _ in range(args.trials):
            any_called, width = judge(layout(args.rounds, args, rng), how)
            called += any_called
            widths.append(width)
        print(f"{name:<70} {100 * called / args.trials:>11.1f}% {np.nanmedian(widths):>21.1f} pts")


if __name__ == "__main__":
    main()
