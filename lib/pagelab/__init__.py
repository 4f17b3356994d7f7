"""pagelab: reproduce how a database's page size changes its performance.

The library layer: every experiment's logic lives here, and the notebooks only call it.
"""

__version__ = "0.1.0"
