"""TPC-C as tpcc-mysql runs it, in Python.

- `schema`: the nine tables, their indexes and foreign keys, as tpcc-mysql creates them.
- `datagen`: the seeded initial population (clause 4.3.3.1), TSV files for LOAD DATA, cached;
  `population` is what its rows hold, `rowfiles` writes them in parallel.
- `random_primitives`: seeded random streams, NURand and its constants, customer last names,
  shared by the data generator and the driver.
- `inputs`: the run-time inputs of the five transactions, as tpcc-mysql's driver draws them.
- `deck`: which transaction comes next, dealt from a 23-card deck, and a terminal's stream of inputs.

The loader and the driver that put these against a server live beside them.
Submodules are imported on demand, so ``import pagelab.tpcc`` stays cheap.
"""
