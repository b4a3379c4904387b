"""`python -m rtbench` (used by the tests to run the CLI in a subprocess)."""

import sys

from rtbench.cli import main

sys.exit(main())
