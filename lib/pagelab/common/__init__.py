"""Small helpers every layer uses: errors, sizes, paths, whole-file writes, locks, processes,
progress bars, the references' published tables, and the five TPC-C transactions' names. Nothing here
imports the rest of pagelab."""
