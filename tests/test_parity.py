"""The hand-written runtime uses exactly the members of the generated models."""

from __future__ import annotations

import dataclasses
import typing

import toolresponse
import toolresponse_generated
from toolresponse import ERROR_CODE_INFO, ErrorCode, ToolRegistry, ToolResponse
from toolresponse.validation import bundled_schema


def field_names(cls: type) -> list[str]:
    return [field.name for field in dataclasses.fields(cls)]


def test_response_fields_are_the_generated_ones_plus_extensions() -> None:
    """ToolResponse has the generated model's fields, in order, and then ``extensions``."""
    assert [*field_names(toolresponse_generated.ToolResponse), "extensions"] == field_names(ToolResponse)


def test_response_fields_are_the_schema_members() -> None:
    """The fields other than ``extensions`` are exactly the schema's top-level members."""
    assert list(bundled_schema()["properties"]) == field_names(ToolResponse)[:-1]


def test_generated_types_are_reused() -> None:
    """ErrorInfo, ErrorCode and ToolStatus are the generated classes themselves, not copies."""
    assert (
        toolresponse_generated.ErrorInfo,
        toolresponse_generated.ErrorCode,
        toolresponse_generated.ToolStatus,
    ) == (toolresponse.ErrorInfo, toolresponse.ErrorCode, toolresponse.ToolStatus)
    hints = typing.get_type_hints(ToolResponse)
    assert (toolresponse_generated.ToolStatus, toolresponse_generated.ErrorInfo | None) == (
        hints["status"],
        hints["error_info"],
    )


def test_error_info_members_are_what_to_dict_writes() -> None:
    """A full error_info is written with exactly the generated ErrorInfo's fields."""
    response = ToolResponse.error("RATE_LIMIT", "slow", details={"a": 1}, retryable=True, retry_after_ms=5)
    assert field_names(toolresponse_generated.ErrorInfo) == list(response.to_dict()["error_info"])


def test_registry_context_uses_the_generated_context_fields() -> None:
    """The context the registry fills has exactly the generated Context's fields."""
    registry = ToolRegistry()
    registry.register(lambda: "ok", name="fine")
    context = registry.execute("fine", {}, call_id="c").context or {}
    assert field_names(toolresponse_generated.Context) == list(context)


def test_registry_stats_use_the_generated_stats_fields() -> None:
    """The stats the registry fills have exactly the generated Stats's fields."""
    registry = ToolRegistry()
    registry.register(lambda: "ok", name="fine")
    assert field_names(toolresponse_generated.Stats) == list(registry.execute("fine").stats or {})


def test_every_code_has_metadata() -> None:
    """Retryability comes from the generated metadata, which covers every code."""
    assert set(ErrorCode) == set(ERROR_CODE_INFO)
    assert {code: info.retryable for code, info in ERROR_CODE_INFO.items()} == {
        code: ToolResponse.error(code, "x").is_retryable for code in ErrorCode
    }
