"""Test-suite settings and fixtures shared by every test module.

Property-based tests run derandomized by default, so that CI is reproducible and
a red run can be re-run to the same failure; ``HYPOTHESIS_PROFILE=explore``
draws fresh random examples (with the same per-test budgets) to hunt for new ones.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator

import pytest
from hypothesis import settings

from toolresponse.testing import FakeClock

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


# --- The C extensions of toolresponse.validation.native ---------------------------------------
# A test that runs the C code asks for the fixture ``native_extensions`` (by
# ``pytest.mark.usefixtures``). Where the extensions were not built (an install without a C
# compiler) such a test is skipped, saying so, and the rest of the suite still runs the Python
# twins; where TOOLRESPONSE_REQUIRE_NATIVE=1 (``make test`` and CI set it) it fails instead, so a
# build that lost its extensions cannot pass for one that has them.

REQUIRE_NATIVE = "TOOLRESPONSE_REQUIRE_NATIVE"


@pytest.fixture(scope="session")
def native_extensions() -> None:
    """Skip the test where the C extensions are not built; fail it if they are required."""
    from toolresponse.validation import native

    built = (("_jsonscan", native.NATIVE_SCANS), ("_projector", native.NATIVE_PROJECTOR))
    missing = [name for name, present in built if not present]
    if not missing:
        return
    what = f"the C extensions {', '.join(missing)} of toolresponse.validation.native are not built"
    if os.environ.get(REQUIRE_NATIVE) == "1":
        pytest.fail(f"{what}, and {REQUIRE_NATIVE}=1 requires them", pytrace=False)
    pytest.skip(f"{what} (set {REQUIRE_NATIVE}=1 to make this a failure)")
