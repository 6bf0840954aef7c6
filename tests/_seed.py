"""The one seed of the tests' random generators: fixed, so every run draws the same values,
and printed in pytest's header (tests/conftest.py). FORSY_TEST_SEED=N explores another one;
a failure's message names the seed it ran with."""

from __future__ import annotations

import os

TEST_SEED = int(os.environ.get("FORSY_TEST_SEED", "20261124"))
