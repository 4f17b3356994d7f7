"""`python -m pagelab.cli`, the same as the `pagelab` command."""

import sys

from pagelab.cli import main

sys.exit(main())
