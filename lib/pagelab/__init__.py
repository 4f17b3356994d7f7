"""pagelab: reproduce how a database's page size changes its performance.

The library layer: every experiment's logic lives here, and the notebooks only call it.
"""

import sys

__version__ = "0.1.0"

# jsonschema, which nbformat (and so papermill) imports, builds some 35 Earley parsers of
# rfc3987_syntax at its import when that package is installed (JupyterLab's jupyter-events brings
# it): about 3 s of CPU in every pagelab process that runs or reads a notebook, a sweep's every
# start and resume among them, for the two "iri" formats that no notebook schema uses. Marked
# absent, it is not imported, and jsonschema goes without those two format checks.
if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)

# mysql-connector's C extension bundles an OpenSSL newer than some distributions' (Debian 12 has
# 3.0). If Python's own ssl module loads the system library first, the extension then fails to
# load and every query costs several times more client CPU in the pure-Python protocol. Loading
# the extension first makes its OpenSSL the process's, which the ssl module accepts.
try:
    import _mysql_connector  # noqa: F401
except ImportError:  # not installed, or ssl was imported earlier: the pure-Python path still works
    pass
