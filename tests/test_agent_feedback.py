"""The tool message the model reads is chosen by the response's status and, on error, its kind."""

from __future__ import annotations

from typing import Any

import pytest

from toolresponse import ToolResponse
from toolresponse.agent._feedback import feedback_text, guard_text, partial_why, violations

TOOLS = ("add", "divide")


def _text(response: ToolResponse, tool: str = "add", **options: Any) -> str:
    return feedback_text(response, tool=tool, available_tools=TOOLS, **options)


def test_success_is_the_text_as_it_is() -> None:
    """A success gives the model exactly the response's text."""
    assert "3" == _text(ToolResponse.success("3", data={"value": 3}))


def test_success_without_text_shows_the_data() -> None:
    """A success with empty text shows its data, so the model never reads an empty message."""
    assert '(the tool succeeded with no text; its data: {"value": 3})' == _text(
        ToolResponse.success("", {"value": 3})
    )


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"returned": 100, "total": 500, "truncated": True}, "only 100 of 500 were returned"),
        ({"truncated": True}, "the result was truncated"),
        ({"reason": "rounded to 6 significant digits"}, "rounded to 6 significant digits"),
        ({"returned": 2, "total": 9, "reason": "page size"}, "only 2 of 9 were returned; page size"),
        ({}, "the tool marked it partial; its text says how"),
    ],
)
def test_partial_says_why_it_is_incomplete(data: dict[str, Any], why: str) -> None:
    """The note names the reason from the response's data members."""
    response = ToolResponse.partial("First matches.", data=data)
    assert why == partial_why(response)
    text = _text(response)
    assert text.startswith("PARTIAL RESULT (incomplete): First matches.\n")
    assert f"not the whole answer ({why})" in text


def test_unknown_tool_lists_the_available_tools() -> None:
    """NOT_FOUND for a tool that is not registered lists the tools that are."""
    response = ToolResponse.error("NOT_FOUND", "Unknown tool 'ad'.")
    text = _text(response, tool="ad")
    assert text.endswith(
        "There is no tool named 'ad'. Call one of the available tools by its exact name: add, divide."
    )


def test_not_found_from_a_known_tool_is_a_resource_error() -> None:
    """NOT_FOUND from a tool that exists is about the resource, not the tool name."""
    text = _text(ToolResponse.error("NOT_FOUND", "No such file.", details={"path": "a.txt"}))
    assert 'ERROR NOT_FOUND: No such file.\nDetails: {"path": "a.txt"}\nNOT_FOUND means:' in text
    assert "check the name or path you gave" in text


@pytest.mark.parametrize(
    ("retry_after_ms", "when"),
    [(300_000, "for the next 300 s"), (1500, "for the next 1.5 s"), (0, "until it has recovered")],
)
def test_circuit_open_says_not_to_call_the_tool_before_the_time(retry_after_ms: int, when: str) -> None:
    """CIRCUIT_OPEN tells the model to leave the tool alone until the breaker's recovery time."""
    response = ToolResponse.error(
        "CIRCUIT_OPEN", "Breaker open.", retryable=True, retry_after_ms=retry_after_ms
    )
    assert f"Do not call 'add' again {when}" in _text(response)


def test_invalid_param_lists_each_violation() -> None:
    """A parameter error asks for fixed arguments and lists every violation from its details."""
    details = {
        "violations": [
            {"pointer": "/a", "message": "must be a number"},
            {"field": "b", "message": "required"},
        ]
    }
    text = _text(ToolResponse.error("INVALID_PARAM", "Bad arguments.", details=details))
    assert text.endswith(
        "Fix the arguments and call 'add' again. What is wrong:\n- /a: must be a number\n- b: required"
    )


def test_invalid_param_without_violations_still_asks_for_fixed_arguments() -> None:
    """With no listed violations the details are shown and the advice stays."""
    text = _text(ToolResponse.error("INVALID_FORMAT", "Not JSON.", details={"at": 3}))
    assert text.endswith(
        "Details: {\"at\": 3}\nFix the arguments (see the tool's parameters) and call 'add' again."
    )


@pytest.mark.parametrize(
    ("retries", "waited", "expected"),
    [
        (
            2,
            1.5,
            "The loop already retried this call 2 times over 1.5 s; it still fails. "
            "It may succeed again after 2 s.",
        ),
        (
            1,
            2.0,
            "The loop already retried this call 1 time over 2 s; it still fails. "
            "It may succeed again after 2 s.",
        ),
        (0, 0.0, "The loop did not retry it: the wait it asks for is longer than this run may wait."),
    ],
)
def test_retryable_error_says_what_the_loop_already_did(retries: int, waited: float, expected: str) -> None:
    """After the loop's own retries, the model learns it is temporary and not to retry at once."""
    response = ToolResponse.error("RATE_LIMIT", "Too many calls.", retry_after_ms=2000)
    text = _text(response, retries=retries, waited_s=waited)
    assert expected in text
    assert "Do not call it again right away" in text


def test_other_errors_give_the_meaning_from_the_schema_and_advice_by_category() -> None:
    """A non-retryable error gives the code's meaning (from ERROR_CODE_INFO) and what to change."""
    text = _text(ToolResponse.error("EXECUTION_ERROR", "division by zero"))
    assert (
        "ERROR EXECUTION_ERROR: division by zero\nEXECUTION_ERROR means: The tool ran and failed "
        "(an exception or a failed evaluation). Do not repeat the same call unchanged: "
        "change the inputs or take another approach."
    ) == text


def test_a_retryable_flag_overrides_the_code_default() -> None:
    """``retryable: false`` on a normally retryable code gets the non-retryable advice."""
    text = _text(ToolResponse.error("TIMEOUT", "took too long", retryable=False))
    assert "Do not repeat the same call unchanged" in text


def test_guard_text_names_the_repeated_failure() -> None:
    """A refused repeat says it was not executed, why, and to change strategy."""
    text = guard_text("divide", 2, ToolResponse.error("EXECUTION_ERROR", "division by zero"))
    assert text.startswith(
        "NOT EXECUTED: this exact call ('divide' with these same arguments) already failed 2 times"
    )
    assert "(last: EXECUTION_ERROR: division by zero)" in text
    assert "Change strategy" in text


@pytest.mark.parametrize(
    ("details", "expected"),
    [
        (None, []),
        ({"errors": ["a is required"]}, ["a is required"]),
        ({"field_violations": [{"field": "x", "description": "too big"}]}, ["x: too big"]),
        ({"violations": [{"message": "bad"}]}, ["bad"]),
        ({"violations": [{"odd": 1}]}, ['{"odd": 1}']),
    ],
)
def test_violations_are_read_from_the_usual_detail_shapes(
    details: dict[str, Any] | None, expected: list[str]
) -> None:
    """Lists under violations/errors/field_violations become one line each."""
    assert expected == violations(details)
