"""The registry's per-call cost with the OpenTelemetry instrumentation on, against off.

The no-op tool of ``registry_overhead.py`` (one integer parameter, checked on
every call) is called ``--calls`` times per round through ``ToolRegistry.execute``:

* off: not instrumented;
* on: instrumented, an SDK ``TracerProvider`` with a ``BatchSpanProcessor`` and a
  ``MeterProvider``, both exporting to nothing (an exporter that drops what it is given);
* on, content captured: the same with ``capture_content=True`` (arguments and result
  serialised and masked on every call);
* on, not sampled: the same SDK with the ``ALWAYS_OFF`` sampler (the span is not
  recorded; the metric still is).

After a warm-up, ``--repeats`` rounds run every case in turn; each case's median
round is printed in microseconds per call, with its ratio to "off". Figures are
printed, never asserted.

    python benchmarks/otel_overhead.py [--calls N] [--repeats R] [--timer wall|cpu]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    MetricExporter,
    MetricExportResult,
    MetricsData,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, Sampler

from toolresponse import ToolRegistry
from toolresponse.otel import ToolResponseInstrumentor

PARAMS: dict[str, Any] = {"value": 1}


def noop(value: int) -> None:
    """The no-op tool."""


class DropSpans(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


class DropMetrics(MetricExporter):
    def __init__(self) -> None:
        super().__init__(preferred_temporality={}, preferred_aggregation={})

    def export(
        self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any
    ) -> MetricExportResult:
        return MetricExportResult.SUCCESS

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return True

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        pass


def providers(sampler: Sampler) -> tuple[TracerProvider, MeterProvider]:
    tracer_provider = TracerProvider(sampler=sampler)
    tracer_provider.add_span_processor(BatchSpanProcessor(DropSpans()))
    reader = PeriodicExportingMetricReader(DropMetrics(), export_interval_millis=3_600_000)
    return tracer_provider, MeterProvider(metric_readers=[reader])


TIMERS: dict[str, Callable[[], int]] = {"wall": time.perf_counter_ns, "cpu": time.thread_time_ns}


def timed_round(call: Callable[[], object], calls: int, timer: Callable[[], int]) -> float:
    start = timer()
    for _ in range(calls):
        call()
    return (timer() - start) / calls


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--timer", choices=sorted(TIMERS), default="wall", help="cpu: the calling thread's CPU time"
    )
    args = parser.parse_args(argv)

    registry = ToolRegistry()
    registry.register(noop, name="noop")

    def call() -> object:
        return registry.execute("noop", PARAMS)

    instrumentor = ToolResponseInstrumentor()
    sampled = providers(ALWAYS_ON)
    unsampled = providers(ALWAYS_OFF)
    cases: dict[str, Callable[[], None]] = {
        "off": lambda: None,
        "on": lambda: instrumentor.instrument(
            tracer_provider=sampled[0], meter_provider=sampled[1], capture_content=False
        ),
        "on, content captured": lambda: instrumentor.instrument(
            tracer_provider=sampled[0], meter_provider=sampled[1], capture_content=True
        ),
        "on, not sampled": lambda: instrumentor.instrument(
            tracer_provider=unsampled[0], meter_provider=unsampled[1], capture_content=False
        ),
    }
    rounds: dict[str, list[float]] = {name: [] for name in cases}
    for repeat in range(args.repeats + 1):
        for name, setup in cases.items():
            setup()
            try:
                per_call = timed_round(call, args.calls, TIMERS[args.timer])
            finally:
                if instrumentor.is_instrumented_by_opentelemetry:
                    instrumentor.uninstrument()
            if repeat:  # round 0 warms up
                rounds[name].append(per_call)
    # The reference: what the SDK itself costs for one span with these attributes and one histogram
    # record, with no registry around it (the floor of any instrumentation of a call).
    tracer = sampled[0].get_tracer("reference")
    histogram = sampled[1].get_meter("reference").create_histogram("reference", unit="s")
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "noop",
        "gen_ai.tool.type": "function",
    }

    def bare_sdk() -> None:
        span = tracer.start_span("execute_tool noop", attributes=attributes)
        span.set_attributes({"toolresponse.status": "success", "toolresponse.partial": False})
        span.end()
        histogram.record(0.0, {**attributes, "toolresponse.status": "success"})

    reference = statistics.median(
        timed_round(bare_sdk, args.calls, TIMERS[args.timer]) for _ in range(args.repeats)
    )
    base = statistics.median(rounds["off"])
    print(
        f"OpenTelemetry overhead: ToolRegistry.execute of a no-op tool, {args.calls} calls x {args.repeats}"
    )
    print(f"  {'case':<22} {'us/call':>8} {'x off':>6}")
    for name, values in rounds.items():
        median = statistics.median(values)
        print(f"  {name:<22} {median / 1000:8.2f} {median / base:6.2f}")
    print(f"  reference: the SDK alone, one span and one histogram record: {reference / 1000:.2f} us")
    for tracer_provider, meter_provider in (sampled, unsampled):
        tracer_provider.shutdown()
        meter_provider.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
