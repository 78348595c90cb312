"""The MCP ToolFailure table (each code's ``x-mcp-tool-failure`` in ``error-code.schema.json``): the
generated metadata carries it both ways, it keeps the proposal's rule that only ``reliability`` is
retried, the generator refuses a table it could not read back, and the docs' copy is drift-checked."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_drift import check, copy_checkout
from test_http_binding_generated import ERROR_CODES, GENERATOR

from toolresponse_generated import ERROR_CODE_INFO, TOOL_FAILURE_CODES, ErrorCode, ToolFailureClass

ROOT = Path(__file__).resolve().parent.parent
MEMBER = "x-mcp-tool-failure"
RECOMMENDED = {
    # The baseline vocabulary of the proposal (SEP-3313), by class.
    ToolFailureClass.CAPABILITY: {"capability_unsupported", "resource_not_found", "invalid_input"},
    ToolFailureClass.RELIABILITY: {"retryable_transient_error"},
    ToolFailureClass.GOVERNANCE: {
        "auth_required",
        "permission_denied",
        "policy_blocked",
        "user_action_required",
    },
}


def test_each_codes_tool_failure_is_the_schemas_annotation() -> None:
    expected = {code: ERROR_CODES["x-error-codes"][code][MEMBER] for code in ERROR_CODES["enum"]}
    actual = {
        code.value: {"class": info.mcp_tool_failure.failure_class.value, "code": info.mcp_tool_failure.code}
        for code, info in ERROR_CODE_INFO.items()
    }
    assert expected == actual


def test_the_table_read_backwards_gives_each_code_back() -> None:
    assert len(ErrorCode) == len(TOOL_FAILURE_CODES)
    for code, info in ERROR_CODE_INFO.items():
        assert code is TOOL_FAILURE_CODES[info.mcp_tool_failure.code]


@pytest.mark.parametrize("code", list(ErrorCode), ids=[code.value for code in ErrorCode])
def test_only_the_codes_retryable_by_default_are_reliability_failures(code: ErrorCode) -> None:
    info = ERROR_CODE_INFO[code]
    assert info.retryable == (info.mcp_tool_failure.failure_class is ToolFailureClass.RELIABILITY)


@pytest.mark.parametrize("code", list(ErrorCode), ids=[code.value for code in ErrorCode])
def test_a_tool_failure_code_is_a_recommended_one_of_its_class_or_the_codes_own_name(code: ErrorCode) -> None:
    failure = ERROR_CODE_INFO[code].mcp_tool_failure
    assert failure.code in RECOMMENDED[failure.failure_class] | {code.value}


def test_denials_are_governance_failures() -> None:
    assert {ErrorCode.ACCESS_DENIED, ErrorCode.PERMISSION_DENIED} == {
        code
        for code, info in ERROR_CODE_INFO.items()
        if info.mcp_tool_failure.failure_class is ToolFailureClass.GOVERNANCE
    }


def _metadata() -> dict[str, dict[str, Any]]:
    metadata: dict[str, dict[str, Any]] = copy.deepcopy(ERROR_CODES["x-error-codes"])
    return metadata


def _set(target: str, **failure: Any) -> Callable[[dict[str, dict[str, Any]]], None]:
    def edit(metadata: dict[str, dict[str, Any]]) -> None:
        metadata[target][MEMBER] = {**metadata[target][MEMBER], **failure}

    return edit


def _drop(metadata: dict[str, dict[str, Any]]) -> None:
    del metadata["CONFLICT"][MEMBER]


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        pytest.param(
            _set("TIMEOUT", **{"class": "capability"}),
            "TIMEOUT: class 'capability', but the code is retryable by default",
            id="a code retryable by default in another class",
        ),
        pytest.param(
            _set("NOT_FOUND", **{"class": "reliability"}),
            "NOT_FOUND: class 'reliability', but the code is not retryable by default",
            id="a code not retryable by default in the retryable class",
        ),
        pytest.param(
            _set("BINARY_FILE", **{"class": "transient"}),
            "BINARY_FILE: class 'transient' is not one of capability, reliability, governance",
            id="a class the proposal does not have",
        ),
        pytest.param(
            _set("INVALID_FORMAT", code="invalid_input"),
            "INVALID_FORMAT: the ToolFailure code 'invalid_input' is also INVALID_PARAM's",
            id="one ToolFailure code for two codes",
        ),
        pytest.param(
            _set("ACCESS_DENIED", code="permission-denied"),
            "ACCESS_DENIED: the ToolFailure code 'permission-denied' reads as the code PERMISSION_DENIED",
            id="a ToolFailure code that names another code",
        ),
        pytest.param(
            _set("API_ERROR", code=" "),
            "API_ERROR: the ToolFailure code must be a non-empty string",
            id="a blank ToolFailure code",
        ),
        pytest.param(_drop, f"CONFLICT: {MEMBER} must be an object of class and code", id="no annotation"),
    ],
)
def test_the_generator_refuses_a_table_it_could_not_read_back(
    edit: Callable[[dict[str, dict[str, Any]]], None], reason: str
) -> None:
    metadata = _metadata()
    edit(metadata)
    with pytest.raises(SystemExit) as stopped:
        GENERATOR.check_tool_failures(ERROR_CODES["enum"], metadata)
    assert f"schema/v1/error-code.schema.json: x-error-codes/{reason}" in str(stopped.value)


def test_the_committed_table_passes_the_generators_checks() -> None:
    GENERATOR.check_tool_failures(ERROR_CODES["enum"], _metadata())


def test_the_table_in_the_mcp_binding_document_is_generated(tmp_path: Path) -> None:
    """An edited row of docs/mcp-binding.md's ToolFailure table makes the drift check fail, naming the
    document, and an edited annotation does too until regenerated."""
    checkout = copy_checkout(tmp_path)
    document = checkout / "docs" / "mcp-binding.md"
    row = "| `NOT_FOUND` | capability | `resource_not_found` | absent |"
    text = document.read_text(encoding="utf-8")
    assert row in text
    document.write_text(text.replace(row, row.replace("capability", "governance")), encoding="utf-8")

    result = check(checkout)

    assert 1 == result.returncode
    assert f"+{row}\n" in result.stdout
    assert "docs/mcp-binding.md" in result.stderr

    document.write_text(text, encoding="utf-8")
    schema_path = checkout / "schema" / "v1" / "error-code.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    schema["x-error-codes"]["NOT_FOUND"][MEMBER]["code"] = "missing_resource"
    schema_path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")

    result = check(checkout)

    assert 1 == result.returncode
    assert "+| `NOT_FOUND` | capability | `missing_resource` | absent |\n" in result.stdout
    assert "+        'missing_resource': ErrorCode.NOT_FOUND,\n" in result.stdout
