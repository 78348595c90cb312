"""Test-suite settings and fixtures shared by every test module.

Property-based tests run derandomized by default, so that CI is reproducible and
a red run can be re-run to the same failure; ``HYPOTHESIS_PROFILE=explore``
draws fresh random examples (with the same per-test budgets) to hunt for new ones.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

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


# --- OpenTelemetry: the instrumentation recording into the SDK's in-memory exporters -----------


class OtelCapture:
    """The spans and metrics one test's instrumented calls produced (``otel`` fixture)."""

    def __init__(self) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from toolresponse.otel import ToolResponseInstrumentor

        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.instrumentor = ToolResponseInstrumentor()

    def instrument(self, *, capture_content: bool | None = False) -> None:
        if self.instrumentor.is_instrumented_by_opentelemetry:
            self.instrumentor.uninstrument()
        self.instrumentor.instrument(
            tracer_provider=self.tracer_provider,
            meter_provider=self.meter_provider,
            capture_content=capture_content,
        )

    def spans(self) -> list[Any]:
        """The finished spans, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    def span(self, name: str) -> Any:
        """The one finished span called ``name``."""
        found = [span for span in self.spans() if span.name == name]
        assert len(found) == 1, f"{len(found)} spans named {name!r} in {[s.name for s in self.spans()]}"
        return found[0]

    def points(self, metric: str) -> list[Any]:
        """The data points of ``metric`` collected so far."""
        data = self.reader.get_metrics_data()
        if data is None:
            return []
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for recorded in scope.metrics
            if recorded.name == metric
            for point in recorded.data.data_points
        ]

    def close(self) -> None:
        if self.instrumentor.is_instrumented_by_opentelemetry:
            self.instrumentor.uninstrument()
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


@pytest.fixture
def otel() -> Iterator[OtelCapture]:
    """The instrumentation on (content capture off), recording into in-memory exporters; off again
    at teardown."""
    capture = OtelCapture()
    capture.instrument()
    yield capture
    capture.close()
