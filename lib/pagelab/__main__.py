"""`python -m pagelab ...`: the same command as the `pagelab` script the venv installs."""

import sys

from pagelab.cli import main

# The guard matters: multiprocessing's spawned workers import this module again (as __mp_main__)
# and must not run the command a second time.
if __name__ == "__main__":
    sys.exit(main())
