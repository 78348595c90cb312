"""The registry the ToolFailure tests serve: tools with an output schema that fail.

``forecast`` declares an output schema (``outputSchema`` in ``tools/list``) and answers NOT_FOUND
with ``data`` that breaks it, so that a client which checked an error against the schema would
reject the answer; ``busy`` answers CIRCUIT_OPEN, retryable after ``retry_after_ms``, with the same
output schema; ``approve`` is refused ACCESS_DENIED, ``echo`` succeeds.
"""

from __future__ import annotations

from typing import Any, Final

from toolresponse import ErrorCode, Tool, ToolRegistry, ToolResponse

CITY: Final = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
FORECAST: Final = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temp_c": {"type": "number"}},
    "required": ["city", "temp_c"],
    "additionalProperties": False,
}
WAIT_MS: Final = 45_000


class Forecast(Tool):
    """The weather in a city: none known."""

    name = "forecast"
    description = "The weather in a city."
    parameters = CITY
    output_schema = FORECAST

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return ToolResponse.error(
            ErrorCode.NOT_FOUND, f"No forecast for {params['city']}.", data={"known_cities": 0}
        )


class Busy(Forecast):
    """A forecast service whose circuit is open (the same output schema)."""

    name = "busy"
    description = "The weather, from a service that is down."

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return ToolResponse.error(
            ErrorCode.CIRCUIT_OPEN, "The forecast service is down.", retry_after_ms=WAIT_MS
        )


class Approve(Tool):
    """Refused to every caller."""

    name = "approve"
    description = "Approve a payment."

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return ToolResponse.error(ErrorCode.ACCESS_DENIED, "Only a person may approve a payment.")


def build_registry() -> ToolRegistry:
    registry = ToolRegistry()
    for tool in (Forecast(), Busy(), Approve()):
        registry.register(tool)

    @registry.tool
    def echo(text: str) -> str:
        """Answer with the text given."""
        return text

    return registry
