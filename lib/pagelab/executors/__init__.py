"""Who runs a sweep's units (pagelab.plan): this machine, one after another (`local`, the
default), or a Slurm cluster, one exclusive node per unit (`slurm`). Both run each unit through
pagelab.run_unit, so a unit's run directory is the same whichever ran it."""

EXECUTORS = ("local", "slurm")
