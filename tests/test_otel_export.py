"""Real exports over OTLP/HTTP to a loopback receiver that decodes the protobuf it is sent: once from
an SDK configured in the test, once from ``opentelemetry-instrument toolresponse demo`` configured
only by the standard OTEL_* environment variables (zero code)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from toolresponse import ToolRegistry
from toolresponse.otel import ToolResponseInstrumentor


class Receiver:
    """An OTLP/HTTP receiver on 127.0.0.1 (a free port): it keeps every request body by path and
    answers 200 with an empty protobuf response, as a collector does."""

    def __init__(self) -> None:
        self.bodies: dict[str, list[bytes]] = {}
        self.content_types: set[str] = set()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with receiver._lock:
                    receiver.bodies.setdefault(self.path, []).append(body)
                    receiver.content_types.add(self.headers.get("Content-Type", ""))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="otlp-receiver", daemon=True)
        self._thread.start()

    def spans(self) -> list[tuple[Span, dict[str, Any]]]:
        """Every span received, decoded, with its resource's attributes."""
        found: list[tuple[Span, dict[str, Any]]] = []
        for body in self.bodies.get("/v1/traces", []):
            request = ExportTraceServiceRequest.FromString(body)
            for resource_spans in request.resource_spans:
                resource = _attributes(resource_spans.resource.attributes)
                for scope_spans in resource_spans.scope_spans:
                    found.extend((span, resource) for span in scope_spans.spans)
        return found

    def metric_names(self) -> set[str]:
        names: set[str] = set()
        for body in self.bodies.get("/v1/metrics", []):
            request = ExportMetricsServiceRequest.FromString(body)
            for resource_metrics in request.resource_metrics:
                for scope_metrics in resource_metrics.scope_metrics:
                    names.update(metric.name for metric in scope_metrics.metrics)
        return names

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(_value(item) for item in value.array_value.values)
    return getattr(value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


def test_tool_spans_and_metrics_arrive_over_otlp_http(receiver: Receiver) -> None:
    """The SDK's OTLP/HTTP exporters send the tool spans (with their codes) and the duration metric
    to the receiver, which decodes them."""
    resource = Resource.create({"service.name": "toolresponse-otlp-test"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{receiver.url}/v1/traces"))
    )
    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=f"{receiver.url}/v1/metrics"), export_interval_millis=3_600_000
    )
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    instrumentor = ToolResponseInstrumentor()
    instrumentor.instrument(
        tracer_provider=tracer_provider, meter_provider=meter_provider, capture_content=False
    )
    try:
        registry = ToolRegistry()

        @registry.tool
        def divide(a: float, b: float) -> float:
            """Divide a by b."""
            return a / b

        registry.execute("divide", {"a": 1, "b": 4}, call_id="ok")
        registry.execute("divide", {"a": 1, "b": 0}, call_id="zero")
        assert tracer_provider.force_flush()
        assert meter_provider.force_flush()
    finally:
        instrumentor.uninstrument()
        tracer_provider.shutdown()
        meter_provider.shutdown()

    assert {"application/x-protobuf"} == receiver.content_types
    spans = {
        _attributes(span.attributes)["gen_ai.tool.call.id"]: (span, res) for span, res in receiver.spans()
    }
    assert {"ok", "zero"} == set(spans)
    ok, resource_attributes = spans["ok"]
    zero, _ = spans["zero"]
    assert "toolresponse-otlp-test" == resource_attributes["service.name"]
    assert "execute_tool divide" == ok.name
    assert Span.SpanKind.SPAN_KIND_INTERNAL == ok.kind
    assert Status.StatusCode.STATUS_CODE_UNSET == ok.status.code
    assert Status.StatusCode.STATUS_CODE_ERROR == zero.status.code
    assert {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "divide",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": "zero",
        "gen_ai.tool.description": "Divide a by b.",
        "toolresponse.status": "error",
        "toolresponse.partial": False,
        "error.type": "EXECUTION_ERROR",
        "toolresponse.retryable": False,
        "toolresponse.error.category": "execution",
    } == {key: value for key, value in _attributes(zero.attributes).items() if key != "toolresponse.time_ms"}
    assert {"gen_ai.execute_tool.duration"} <= receiver.metric_names()


def test_zero_code_instrumentation_sends_the_cli_s_spans(receiver: Receiver, tmp_path: Path) -> None:
    """``opentelemetry-instrument toolresponse demo agent`` with only OTEL_* variables set: the
    instrumentor is found by its entry point, and the demo's agent run, chat calls and tool calls
    (with their error codes) reach the endpoint."""
    bin_dir = Path(sys.executable).parent
    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    env.update(
        {
            "OTEL_SERVICE_NAME": "toolresponse-demo",
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_METRICS_EXPORTER": "otlp",
            "OTEL_LOGS_EXPORTER": "none",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
            "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
            "TMPDIR": str(tmp_path),
        }
    )
    completed = subprocess.run(
        [str(bin_dir / "opentelemetry-instrument"), str(bin_dir / "toolresponse"), "demo", "agent"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert 0 == completed.returncode, completed.stderr

    spans = receiver.spans()
    names = [span.name for span, _ in spans]
    assert "invoke_agent" in names
    assert any(name.startswith("chat ") for name in names)
    tools = [span for span, _ in spans if span.name.startswith("execute_tool ")]
    assert tools, names
    codes = {_attributes(span.attributes).get("error.type") for span in tools}
    assert codes - {None}, "no tool span carried an error code"
    agents = {span.span_id for span, _ in spans if span.name == "invoke_agent"}
    assert all(span.parent_span_id in agents for span in tools)
    assert {"toolresponse-demo"} == {resource["service.name"] for _, resource in spans}
    assert "gen_ai.execute_tool.duration" in receiver.metric_names()
