"""Shared pytest configuration."""

import os

from hypothesis import HealthCheck, settings

# Property tests must not flake on a loaded 2-core CI machine: no per-example deadline,
# a fixed number of examples, and derandomized runs so a failure reproduces.
settings.register_profile(
    "book",
    deadline=None,
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "200")),
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("book")
