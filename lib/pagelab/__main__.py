"""`python -m pagelab ...`: the same command as the `pagelab` script the venv installs."""

import sys

from pagelab.cli import main

sys.exit(main())
