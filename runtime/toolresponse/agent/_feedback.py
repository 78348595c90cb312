"""What the model reads after a tool call: the response's status decides the message.

A success is its text; a partial result is its text marked incomplete, with why, so that it is
never taken for the whole; an error is ``ERROR CODE: message`` (``interop.model_text``) and what
to do next, by kind of error, else the code's meaning from the schema and a next step for its
category.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolresponse_generated import ERROR_CODE_INFO, ErrorCategory, ErrorCode

from .._response import ToolResponse
from .._suggest import shortened
from ..interop import model_text
from ..tools._policy import DENIAL_CODES

MAX_DETAILS_CHARS = 600
"""The longest ``details`` JSON shown to the model; longer is cut with an ellipsis."""

_NEXT_STEP_BY_CATEGORY: Mapping[ErrorCategory, str] = {
    ErrorCategory.RESOURCE: "check the name or path you gave, or use another resource",
    ErrorCategory.PARAMETER: "fix the arguments",
    ErrorCategory.EXECUTION: "change the inputs or take another approach",
    ErrorCategory.STATE: "re-read the current state, then decide again",
    ErrorCategory.NETWORK: "use another source, or answer with what you already have",
}

_VIOLATION_LISTS = ("violations", "errors", "field_violations", "problems")
_LOCATION_KEYS = ("field", "path", "pointer", "param", "parameter", "location", "loc")
_MESSAGE_KEYS = ("message", "description", "reason", "msg", "error")


def _seconds(ms: int) -> str:
    seconds = ms / 1000
    if seconds < 1:
        return f"{ms} ms"
    return f"{math.ceil(seconds)} s" if seconds >= 10 else f"{seconds:g} s"


def _compact(value: Any, limit: int = MAX_DETAILS_CHARS) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True, default=str)
    return shortened(text, limit)


def _shown(details: Mapping[str, Any] | None) -> str:
    return f"\nDetails: {_compact(details)}" if details else ""


def partial_why(response: ToolResponse) -> str:
    """Why a partial result is incomplete, in words, from its ``data``."""
    data = response.data
    returned, total = data.get("returned"), data.get("total")
    reasons = (
        [f"only {returned} of {total} were returned"] if returned is not None and total is not None else []
    )
    if data.get("truncated") is True and not reasons:
        reasons.append("the result was truncated")
    reasons += [value for key in ("reason", "note") if isinstance(value := data.get(key), str) and value]
    return "; ".join(reasons) if reasons else "the tool marked it partial; its text says how"


def _violation_line(item: Any) -> str:
    if not isinstance(item, Mapping):
        return str(item)
    where = next((str(item[key]) for key in _LOCATION_KEYS if item.get(key) not in (None, "")), "")
    if not where and item.get("pointer") == "":
        where = "(the arguments)"  # the JSON pointer of the whole arguments object
    what = next((str(item[key]) for key in _MESSAGE_KEYS if item.get(key) not in (None, "")), "")
    return (f"{where}: {what}" if where else what) if what else _compact(item, 200)


def violations(details: Mapping[str, Any] | None) -> list[str]:
    """Each violation listed in an error's ``details``, one line each."""
    for key in _VIOLATION_LISTS:
        items = (details or {}).get(key)
        if isinstance(items, list) and items:
            return [_violation_line(item) for item in items]
    return []


def is_denial(response: ToolResponse) -> bool:
    """Whether the response refuses the call (ACCESS_DENIED or PERMISSION_DENIED): the loop does
    not retry it, and the same call is not made again in the run."""
    return response.code in DENIAL_CODES


# -- what to do next, by kind of error: each writer takes the response, the tool, and the loop's
# retries and seconds waited, and returns what follows the ``ERROR CODE: message`` header.


def _details(response: ToolResponse) -> Mapping[str, Any]:
    return (response.error_info.details if response.error_info else None) or {}


def _circuit_open(response: ToolResponse, tool: str, retries: int, waited_s: float) -> str:
    after = response.retry_after_ms
    when = f"for the next {_seconds(after)}" if after else "until it has recovered"
    return (
        f"\nTool {tool!r} is switched off after repeated failures (its circuit breaker is open). "
        f"Do not call {tool!r} again {when}: use another tool, or answer without it."
    )


def _denied(response: ToolResponse, tool: str, retries: int, waited_s: float) -> str:
    """That the call did not run, who refused it and why, and what instead."""
    details = _details(response)
    approval = details.get("approval")
    asked = approval is not None or details.get("policy") == "approval"
    if approval == "timed_out":
        who = "No one approved it in time, so it was refused."
    elif asked:
        who = "It needed a person's approval and was not approved."
    elif "policy" in details:
        who = "An access policy refused it."
    else:
        shown = {key: value for key, value in details.items() if key != "reason"}
        who = f"The tool refused it.{f' Details: {_compact(shown)}' if shown else ''}"
    if response.code is ErrorCode.ACCESS_DENIED:
        instead = (
            f"You may not use {tool!r}: do not call it again. Use another tool, or answer without it "
            "and tell the user this tool is not available to you."
        )
    elif asked:
        instead = (
            f"Do not make this call to {tool!r} again: go on without it, and tell the user that it "
            "needs their approval."
        )
    else:
        instead = (
            f"Do not make this call to {tool!r} again: it will be refused again. Change what you ask "
            "when the reason shows a way that is allowed (another path, other arguments), or answer "
            "without it and tell the user what was refused and why."
        )
    return f"\nThe call was refused and did not run. {who} {instead}"


def _bad_arguments(response: ToolResponse, tool: str, retries: int, waited_s: float) -> str:
    details = _details(response)
    lines = violations(details)
    if not lines:
        return f"{_shown(details)}\nFix the arguments (see the tool's parameters) and call {tool!r} again."
    listed = "\n".join(f"- {line}" for line in lines)
    return f"\nFix the arguments and call {tool!r} again. What is wrong:\n{listed}"


def _temporary(response: ToolResponse, tool: str, retries: int, waited_s: float) -> str:
    if retries:
        done = f"The loop already retried this call {retries} time{'' if retries == 1 else 's'} over "
        done += f"{waited_s:g} s; it still fails."
    else:
        done = "The loop did not retry it: the wait it asks for is longer than this run may wait."
    after = response.retry_after_ms
    later = f" It may succeed again after {_seconds(after)}." if after else ""
    return (
        f"{_shown(_details(response))}\nThis error is "
        f"temporary. {done}{later} Do not call it again right away: continue with something else, "
        "or answer with what you have."
    )


def _other(response: ToolResponse, tool: str, retries: int, waited_s: float) -> str:
    assert response.code is not None
    info = ERROR_CODE_INFO[response.code]
    return (
        f"{_shown(_details(response))}\n{response.code.value} "
        f"means: {info.description} Do not repeat the same call unchanged: "
        f"{_NEXT_STEP_BY_CATEGORY[info.category]}."
    )


_Writer = Callable[[ToolResponse, str, int, float], str]
_BY_CODE: Mapping[ErrorCode, _Writer] = {
    ErrorCode.CIRCUIT_OPEN: _circuit_open,
    **dict.fromkeys(DENIAL_CODES, _denied),
}
_BY_CATEGORY: Mapping[ErrorCategory, _Writer] = {ErrorCategory.PARAMETER: _bad_arguments}


def guard_text(tool: str, failures: int, last: ToolResponse) -> str:
    """The message for a call the loop refused to run again: it already failed ``failures`` times."""
    code = last.code.value if last.code is not None else last.status.value
    message = last.error_info.message if last.error_info is not None else last.text
    if is_denial(last):
        return (
            f"NOT EXECUTED: this exact call ({tool!r} with these same arguments) was already refused "
            f"({code}: {message}). It would be refused again. "
            "Do not ask for it again: change strategy, or answer with what you know and say what was refused."
        )
    return (
        f"NOT EXECUTED: this exact call ({tool!r} with these same arguments) already failed {failures} times "
        f"(last: {code}: {message}). It would fail again. "
        "Change strategy: different arguments, another tool, or answer with what you know."
    )


def feedback_text(
    response: ToolResponse,
    *,
    tool: str,
    available_tools: Sequence[str],
    retries: int = 0,
    waited_s: float = 0.0,
) -> str:
    """The tool message the model reads for ``response``, chosen by its status; ``retries`` and
    ``waited_s`` say what the loop already did about a retryable error."""
    if response.is_success:
        if response.text:
            return response.text
        if response.data:
            return f"(the tool succeeded with no text; its data: {_compact(response.data)})"
        return "(the tool succeeded with no text and no data)"
    if response.is_partial:
        return (
            f"PARTIAL RESULT (incomplete): {response.text or '(no text)'}\n"
            f"Note: this result is incomplete, not the whole answer ({partial_why(response)}). "
            "Do not present it as complete: say what is missing, or call again for the rest."
        )
    code = response.code
    assert code is not None
    if not tool or (code is ErrorCode.NOT_FOUND and tool not in available_tools):
        listed = ", ".join(available_tools) if available_tools else "(none)"
        missing = f"There is no tool named {tool!r}." if tool else "The call names no tool."
        return (
            f"{model_text(response)}\n{missing} Call one of the available tools by its exact name: {listed}."
        )
    default = _temporary if response.is_retryable else _other
    writer = _BY_CODE.get(code) or _BY_CATEGORY.get(ERROR_CODE_INFO[code].category, default)
    return model_text(response) + writer(response, tool, retries, waited_s)
