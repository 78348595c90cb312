"""The binding's own checks: the tool list, and the HTTP fixtures sent to a server and judged.

The fixtures are the language-neutral ``tests/conformance/v1/http`` files shipped in
``toolresponse_generated``. Every answer must be a valid ToolResponse served as JSON whose HTTP
status is its code's, but an error status whose body is not JSON: a transport refusal.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from toolresponse_generated import ErrorCode
from toolresponse_generated.http_binding import (
    CONFORMANCE_FIXTURE_DIR,
    FIXTURE_SCHEMA_NAME,
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


def packaged_json(name: str, what: str) -> Any:
    """A JSON file shipped in ``toolresponse_generated`` (written there by ``make generate``)."""
    packaged = resources.files("toolresponse_generated").joinpath(*name.split("/"))
    if not packaged.is_file():
        raise ConformanceError(
            f"{what} ({name}) is not in this installation: toolresponse_generated has none"
        )
    return json.loads(packaged.read_text("utf-8"))


@dataclass(frozen=True, kw_only=True)
class Fixture:
    """One HTTP test: a request, and what the answer must be; ``path`` may hold ``{tool}`` (a served
    tool) and ``{unknown}`` (a name no tool has)."""

    description: str
    method: str
    path: str
    body: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    expected: Mapping[str, Any] = field(default_factory=dict)


def _body(body: Mapping[str, Any] | None, where: str) -> bytes | None:
    """The bytes of a request body: ``text`` padded with spaces to ``pad_to_bytes``, or ``base64``."""
    if body is None:
        return None
    if "base64" in body:
        try:
            return base64.b64decode(body["base64"], validate=True)
        except binascii.Error as error:
            raise ConformanceError(f"{where}: the body is not base64 ({error})") from None
    text: bytes = body["text"].encode("utf-8")
    size: int = body.get("pad_to_bytes", len(text))
    if size < len(text):
        raise ConformanceError(f"{where}: pad_to_bytes {size} is under the text's {len(text)} bytes")
    return text + b" " * (size - len(text))


def _fixture(test: Mapping[str, Any], where: str) -> Fixture:
    if "request" not in test:
        raise ConformanceError(f"{where} is not an HTTP test")
    request, expected = test["request"], test["response"]
    for member in ("code", "not_code"):
        if member in expected and _known_code(expected[member]) is None:
            raise ConformanceError(f"{where}: {expected[member]!r} is not an error code")
    return Fixture(
        description=test["description"],
        method=request["method"],
        path=request["path"],
        body=_body(request.get("body"), where),
        headers=request.get("headers", {}),
        expected=expected,
    )


def load_fixtures(directory: Traversable | None = None) -> tuple[Fixture, ...]:
    """Every test of every ``*.json`` file of ``directory`` (default: the shipped fixtures), in file
    order; ``ConformanceError`` for a file missing, malformed or off the fixture schema."""
    if directory is None:
        directory = resources.files("toolresponse_generated").joinpath(*CONFORMANCE_FIXTURE_DIR.split("/"))
    if not directory.is_dir():
        raise ConformanceError(f"the HTTP conformance fixtures ({directory}) are not in this installation")
    files = sorted((entry for entry in directory.iterdir() if entry.name.endswith(".json")), key=str)
    if not files:
        raise ConformanceError(f"{directory} holds no HTTP conformance fixture")
    validator = Draft202012Validator(
        packaged_json(FIXTURE_SCHEMA_NAME, "the schema of the conformance fixtures")
    )
    fixtures: list[Fixture] = []
    for file in files:
        try:
            groups = json.loads(file.read_text("utf-8"))
        except ValueError as error:
            raise ConformanceError(f"{file.name}: not JSON ({error})") from None
        off = min(validator.iter_errors(groups), key=lambda error: error.json_path, default=None)
        if off is not None:
            raise ConformanceError(f"{file.name}: off the fixture schema at {off.json_path}: {off.message}")
        for group in groups:
            fixtures.extend(
                _fixture(test, f"{file.name}: {test['description']!r}") for test in group["tests"]
            )
    return tuple(fixtures)


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


def _known_code(name: Any) -> ErrorCode | None:
    try:
        return ErrorCode(name)
    except (TypeError, ValueError):
        return None


def error_code(body: Any) -> ErrorCode | None:
    """The ``error_info.code`` of a ToolResponse body, when it has one the schema knows."""
    info = body.get("error_info") if isinstance(body, dict) else None
    return _known_code(info.get("code")) if isinstance(info, dict) else None


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
    client: Any, listing: httpx.Response, fixtures: Sequence[Fixture], record: Callable[[CheckResult], None]
) -> list[dict[str, Any]]:
    """Judge the tool list (``listing``), then send each fixture through the httpx ``client``; each
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
    for fixture in fixtures:
        if served is None and "{tool}" in fixture.path:
            skipped = "the server serves no tool"
            record(CheckResult(section="binding", name=fixture.description, skipped=skipped))
            continue
        path = fixture.path.replace("{unknown}", quote(unknown, safe="")).replace(
            "{tool}", quote(served or "", safe="")
        )
        headers = dict(fixture.headers)
        if fixture.body is not None and "content-type" not in {header.lower() for header in headers}:
            headers["Content-Type"] = MEDIA_TYPE
        try:
            answer = client.request(fixture.method, path, content=fixture.body, headers=headers)
            problems = _judge(fixture.expected, answer)
        except httpx.HTTPError as error:
            problems = [f"{type(error).__name__}: {error}"]
        result = tuple(f"{fixture.method} {path}: {problem}" for problem in problems)
        record(CheckResult(section="binding", name=fixture.description, problems=result))
    return tools
