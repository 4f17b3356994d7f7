"""What a pagelab process pays to run or read a notebook: importing papermill (and nbformat, and
jsonschema under it) does not build rfc3987_syntax's parsers, seconds of CPU at every sweep's start
and resume (pagelab/__init__.py). Light: one fresh interpreter."""

from __future__ import annotations

import importlib.metadata

from tests.conftest import repr_in_another_process


def test_papermill_is_imported_without_building_the_iri_parsers():
    # installed here (JupyterLab's jupyter-events brings it), so the guard has something to keep out
    # (asked of the installed distributions: in this process, pagelab may have marked the module absent)
    installed = {dist.metadata["Name"].lower().replace("_", "-") for dist in importlib.metadata.distributions()}
    assert "rfc3987-syntax" in installed, (
        "rfc3987_syntax is no longer installed: nothing brings its slow import now, and the guard in "
        "pagelab/__init__.py can go with this test")
    imported = repr_in_another_process("import sys, pagelab, papermill, nbformat",
                                       "sorted(name for name, module in sys.modules.items() "
                                       "if module is not None and name.startswith(('rfc3987_syntax', 'lark')))")
    assert imported == "[]", f"imported with papermill: {imported}"
    # nbformat still validates a notebook with jsonschema's other format checks
    valid = repr_in_another_process("import pagelab, nbformat", "nbformat.validate(nbformat.v4.new_notebook()) is None")
    assert valid == "True"
