"""The registry the MCP server tests serve: the calculator, plus tools that fail on purpose.

``flaky`` always fails (behind a breaker that opens after two failures, so the third
call answers CIRCUIT_OPEN); ``slow`` sleeps past its timeout (TIMEOUT); ``lookup`` has an
output schema (``outputSchema`` in ``tools/list``).
"""

from __future__ import annotations

import time
from typing import TypedDict

from toolresponse import CircuitBreaker, ToolRegistry, ToolResponse
from toolresponse.demo.calculator import Calculator


class Found(TypedDict):
    key: str
    value: int


def build_registry() -> ToolRegistry:
    registry = ToolRegistry(breaker=CircuitBreaker(failure_threshold=2, recovery_timeout_s=3600))
    registry.register(Calculator())

    @registry.tool
    def flaky() -> str:
        """Always fails."""
        raise ConnectionError("upstream down")

    @registry.tool(timeout_s=0.2)
    def slow() -> str:
        """Takes longer than its timeout."""
        time.sleep(3)
        return "late"

    @registry.tool
    def lookup(key: str) -> Found:
        """Find a value by key."""
        return {"key": key, "value": len(key)}

    @registry.tool
    def truncated() -> ToolResponse:
        """A partial result."""
        return ToolResponse.partial("First 2 of 5 rows.", {"rows": [1, 2], "returned": 2, "total": 5})

    return registry
