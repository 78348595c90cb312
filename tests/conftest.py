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


# -- advancing a fake clock while a call waits on it ---------------------------------------

from collections.abc import Callable  # noqa: E402  (this block is kept apart from the one above)

from toolresponse.testing import FakeClock  # noqa: E402

AdvanceWhenWaiting = Callable[[FakeClock, float], threading.Thread]


@pytest.fixture
def advance_when_waiting() -> Iterator[AdvanceWhenWaiting]:
    """Start a thread that advances a fake clock by some seconds once a call waits on it
    (``FakeClock.advance_when_waiting``), and return it; every such thread is joined at
    teardown, and the first error one met (no wait began within its bound) is raised."""
    threads: list[threading.Thread] = []
    errors: list[BaseException] = []

    def start(clock: FakeClock, seconds: float) -> threading.Thread:
        def advance() -> None:
            try:
                clock.advance_when_waiting(seconds)
            except BaseException as error:  # raised at teardown, in the test's own thread
                errors.append(error)

        thread = threading.Thread(target=advance, name="fake-clock-advancer", daemon=True)
        thread.start()
        threads.append(thread)
        return thread

    yield start
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
