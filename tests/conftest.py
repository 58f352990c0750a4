"""Test-wide settings: under CI (the CI variable set, as .ci/run does) hypothesis runs derandomized, so a
CI run is repeatable and its outcome does not depend on the draw."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
