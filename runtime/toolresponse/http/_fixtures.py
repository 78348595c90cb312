"""The binding's own checks: the tool list, and the HTTP fixtures sent to a server and judged.

The fixtures are the language-neutral ``tests/conformance/v1/http`` files, checked against the
fixture schema where they are written and shipped unchanged in ``toolresponse_generated``. Every
answer must be a valid ToolResponse served as JSON whose HTTP status is its code's, but an error
status whose body is not JSON: a transport refusal.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from toolresponse_generated import ErrorCode
from toolresponse_generated.http_binding import (
    CONFORMANCE_FIXTURE_DIR,
    HTTP_STATUS,
    LIST_TOOLS_METHOD,
    LIST_TOOLS_PATH,
    MEDIA_TYPE,
    STATUS_EXCEPTIONS,
    SUCCESS_STATUS,
)

from .._errors import ConformanceError, MalformedJsonError
from .._response import loads_strict
from ..validation import validate

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True, kw_only=True)
class CheckResult:
    """The outcome of one check: passed, failed (``problems``) or ``skipped`` (why); ``section`` is
    ``document``, ``binding`` or ``schemathesis``."""

    section: str
    name: str
    problems: tuple[str, ...] = ()
    skipped: str | None = None
    note: str = ""

    @property
    def passed(self) -> bool:
        return not self.problems


def request_body(body: Mapping[str, Any] | None) -> bytes | None:
    """A fixture's request body: ``text`` padded with spaces to ``pad_to_bytes``, or ``base64``."""
    if body is None:
        return None
    if "base64" in body:
        return base64.b64decode(body["base64"], validate=True)
    text: bytes = body["text"].encode("utf-8")
    return text.ljust(body.get("pad_to_bytes", 0), b" ")


def load_fixtures() -> tuple[Mapping[str, Any], ...]:
    """Every test of the shipped fixture files (``HttpTest`` of the fixture schema), in file order;
    ``ConformanceError`` when the installation has none."""
    directory = resources.files("toolresponse_generated").joinpath(*CONFORMANCE_FIXTURE_DIR.split("/"))
    files = []
    if directory.is_dir():
        files = sorted((entry for entry in directory.iterdir() if entry.name.endswith(".json")), key=str)
    if not files:
        raise ConformanceError(f"the HTTP conformance fixtures ({directory}) are not in this installation")
    return tuple(
        test for file in files for group in json.loads(file.read_text("utf-8")) for test in group["tests"]
    )


def transport_refusal(status: int, content_type: str) -> str | None:
    """What an answer is when the server's HTTP layer gave it (an error status, a body not JSON);
    None for an answer of the application's."""
    media = content_type.split(";")[0].strip().lower()
    if status < HTTPStatus.BAD_REQUEST or media == MEDIA_TYPE or media.endswith("+json"):
        return None
    return (
        f"transport error: the server's HTTP layer answered {status} ({media or 'no Content-Type'}) before"
        " the application saw the request, so there is no ToolResponse to judge"
    )


def status_problem(status: Any, code: ErrorCode | None, http: int) -> str | None:
    """What is wrong with answering a ToolResponse of ``status`` and ``code`` with HTTP status ``http``."""
    if status != "error" or code is None:
        if http == SUCCESS_STATUS:
            return None
        return f"HTTP status {http} for a {status} response, whose status is {SUCCESS_STATUS}"
    if STATUS_EXCEPTIONS.get(http) is code or http == HTTP_STATUS[code]:
        return None
    return f"HTTP status {http} for {code.value}, whose status is {HTTP_STATUS[code]}"


def error_code(body: Any) -> ErrorCode | None:
    """The ``error_info.code`` of a ToolResponse body, when it has one the schema knows."""
    info = body.get("error_info") if isinstance(body, dict) else None
    try:
        return ErrorCode(info["code"]) if isinstance(info, dict) else None
    except (KeyError, TypeError, ValueError):
        return None


def _toolresponse(answer: httpx.Response) -> tuple[Any, list[str]]:
    """The decoded body, and what is wrong with it as a ToolResponse answer."""
    content_type = answer.headers.get("content-type", "")
    refused = transport_refusal(answer.status_code, content_type)
    if refused is not None:
        return None, [refused]
    problems = []
    if content_type.split(";")[0].strip().lower() != MEDIA_TYPE:
        problems.append(f"Content-Type is {content_type!r}, not {MEDIA_TYPE}")
    try:
        body = loads_strict(answer.content)
    except MalformedJsonError as error:
        return None, [*problems, f"the body is not JSON ({error.reason}): {answer.content[:120]!r}"]
    verdict = validate(body)
    if not verdict.valid:
        shown = "; ".join(f"{v.pointer or '/'} [{v.keyword}] {v.message}" for v in verdict.errors[:3])
        problems.append(f"the body is not a valid ToolResponse: {shown}")
    return body, problems


def _expected_status(want: int, answer: httpx.Response, body: dict[str, Any]) -> list[str]:
    problems = [f"HTTP status {answer.status_code}, expected {want}"] if answer.status_code != want else []
    if body["status"] != "error":
        problems.append(f"status {body['status']!r} on an HTTP {answer.status_code}, expected an error")
    return problems


def _expected_code(want: str, answer: httpx.Response, body: dict[str, Any]) -> list[str]:
    code = error_code(body)
    return [f"code {code and code.value}, expected {want}"] if code != want else []


def _expected_details(want: Mapping[str, Any], answer: httpx.Response, body: dict[str, Any]) -> list[str]:
    details = body.get("error_info", {}).get("details") or {}
    return [
        f"error_info.details.{key} is {details.get(key)!r}, expected {value!r}"
        for key, value in want.items()
        if details.get(key) != value
    ]


def _expected_call_id(want: str, answer: httpx.Response, body: dict[str, Any]) -> list[str]:
    call_id = (body.get("context") or {}).get("call_id")
    return [f"context.call_id is {call_id!r}, expected {want!r}"] if call_id != want else []


_EXPECTATIONS: dict[str, Callable[[Any, httpx.Response, dict[str, Any]], list[str]]] = {
    "status": _expected_status,
    "code": _expected_code,
    "not_status": lambda want, answer, body: [f"HTTP status {want}"] if answer.status_code == want else [],
    "not_code": lambda want, answer, body: (
        [f"code {want}: {body.get('text', '')}"] if error_code(body) == want else []
    ),
    "details": _expected_details,
    "call_id": _expected_call_id,
    "headers": lambda want, answer, body: [f"no {h} header" for h in want if h not in answer.headers],
}
"""How each member of a fixture's ``response`` is judged (see ``HttpExpectation`` in the fixture schema)."""


def _judge(expected: Mapping[str, Any], answer: httpx.Response) -> list[str]:
    body, problems = _toolresponse(answer)
    if body is None or problems:
        return [f"answered {answer.status_code}: {problem}" for problem in problems]
    if "status" not in expected:
        problems = [p for p in [status_problem(body["status"], error_code(body), answer.status_code)] if p]
    return problems + [
        problem for key, want in expected.items() for problem in _EXPECTATIONS[key](want, answer, body)
    ]


def _tool_list(answer: httpx.Response) -> tuple[list[dict[str, Any]], list[str]]:
    """The tools of a ``GET /tools`` answer, and what is wrong with it beyond its response schema
    (which schemathesis checks)."""
    body, problems = _toolresponse(answer)
    if answer.status_code != SUCCESS_STATUS:
        problems.insert(0, f"HTTP status {answer.status_code}, expected {SUCCESS_STATUS}")
    data = body.get("data") if isinstance(body, dict) else None
    listed = data.get("tools") if isinstance(data, dict) else None
    tools = [tool for tool in listed if isinstance(tool, dict)] if isinstance(listed, list) else []
    names = [tool.get("name") for tool in tools]
    duplicates = sorted({str(name) for name in names if names.count(name) > 1})
    if duplicates:
        problems.append(f"names listed more than once: {', '.join(duplicates)}")
    for tool in tools:
        for member in ("parameters", "output_schema"):
            if isinstance(tool.get(member), dict):
                try:
                    Draft202012Validator.check_schema(tool[member])
                except SchemaError as error:
                    problems.append(f"{tool.get('name')}: {member} is not a JSON Schema: {error.message}")
    return tools, problems


def check_binding(
    client: Any,
    listing: httpx.Response,
    fixtures: Sequence[Mapping[str, Any]],
    record: Callable[[CheckResult], None],
) -> list[dict[str, Any]]:
    """Judge the tool list (``listing``), then send each fixture test through the httpx ``client``; each
    result goes to ``record``. Returns the served tools."""
    import httpx

    tools, problems = _tool_list(listing)
    name = (
        f"{LIST_TOOLS_METHOD} {LIST_TOOLS_PATH} is a success ToolResponse listing each tool once in"
        " data.tools, with JSON Schemas"
    )
    record(CheckResult(section="binding", name=name, problems=tuple(problems), note=f"{len(tools)} tools"))
    served = next((tool["name"] for tool in tools if isinstance(tool.get("name"), str)), None)
    unknown = "conformance-no-such-tool"
    while any(tool.get("name") == unknown for tool in tools):
        unknown += "-x"
    for test in fixtures:
        request, description = test["request"], test["description"]
        if served is None and "{tool}" in request["path"]:
            skipped = "the server serves no tool"
            record(CheckResult(section="binding", name=description, skipped=skipped))
            continue
        path = (
            request["path"]
            .replace("{unknown}", quote(unknown, safe=""))
            .replace("{tool}", quote(served or "", safe=""))
        )
        headers, body = dict(request.get("headers", {})), request_body(request.get("body"))
        if body is not None and "content-type" not in {header.lower() for header in headers}:
            headers["Content-Type"] = MEDIA_TYPE
        try:
            answer = client.request(request["method"], path, content=body, headers=headers)
            problems = _judge(test["response"], answer)
        except httpx.HTTPError as error:
            problems = [f"{type(error).__name__}: {error}"]
        result = tuple(f"{request['method']} {path}: {problem}" for problem in problems)
        record(CheckResult(section="binding", name=description, problems=result))
    return tools
