"""`python -m forsy.hooks run …`: the command the agents' settings name (see `_run.main`)."""

import sys

from ._run import main

sys.exit(main(sys.argv[1:]))
