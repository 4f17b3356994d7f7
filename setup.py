"""The one thing pyproject.toml cannot declare without an experimental setuptools feature: the
storage prototype's C piece (why it is in C: the comment at the top of _cellsearch.c). Built by
`pip install -e .`, which `make setup` runs; it needs a C compiler and Python's headers, which
`make setup` installs when missing."""

from setuptools import Extension, setup

# A call the Python headers do not declare (an API of a newer Python) is an error at build time,
# not an undefined symbol at import time.
STRICT = ["-Werror=implicit-function-declaration"]

setup(ext_modules=[Extension("pagelab.storage._cellsearch", ["lib/pagelab/storage/_cellsearch.c"], extra_compile_args=STRICT)])
