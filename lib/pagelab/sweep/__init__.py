"""The Week 4 lab's page-size sweep: its knobs and their value types (`knobs`, `knob_types`,
`server_knob_types`, `tpcc_knob_types`), a profile's values (`profiles`), its plan of run units
(`plan`), one run from datadir to tidy tables (`experiment`), one unit of the plan (`run_unit`),
the disk it needs (`footprint`), and the executors that run the plan: this machine in turn
(`orchestrator`) or a Slurm cluster (`slurm`). The bundle it writes is `pagelab.bundle`."""

# Who runs a sweep's units: this machine, one after another (`local`, the default), or a Slurm
# cluster, one exclusive node per unit (`slurm`). Both run each unit through
# pagelab.sweep.run_unit, so a unit's run directory is the same whichever ran it.
EXECUTORS = ("local", "slurm")
