"""Test-suite settings and fixtures shared by every test module.

Property-based tests run derandomized by default, so that CI is reproducible and
a red run can be re-run to the same failure; ``HYPOTHESIS_PROFILE=explore``
draws fresh random examples (with the same per-test budgets) to hunt for new ones.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """An event that hung tools wait on; set at teardown so no thread outlives the test."""
    event = threading.Event()
    yield event
    event.set()
