"""The HTTP conformance runner: check any server against the ToolResponse v1 HTTP binding.

One run has three parts, and one report:

1. **The document.** The binding's OpenAPI document refers to the v1 schema by
   relative ``$ref``; schemathesis resolves such a reference only when it loads
   the document from a file, and a response schema it cannot resolve is
   skipped without a word. So the runner loads the resolved copy that
   ``make generate`` ships (``resolved_binding_document()``: the single-file
   schema in ``components/schemas``, every reference pointing there), refuses
   a document that still refers to another file, and then proves, before any
   request, that schemathesis rejects a non-conforming body under every
   documented response of every operation.
2. **The binding's own checks**: the tool list (``GET /tools``: a success
   ToolResponse whose ``data.tools`` names each tool once, with JSON Schemas),
   then the language-neutral HTTP fixtures (``tests/conformance/v1/http``,
   shipped in ``toolresponse_generated``; ``load_fixtures()``) and a few
   derived from that list: a body that is not JSON, not an object, of the
   wrong types or over the limit, an unknown tool, a bad call-id header, an
   undocumented method or path. Every answer must be a ToolResponse
   (``toolresponse.validate``), served as JSON, whose HTTP status is its
   code's (200 for success and partial; the body-limit and missing-method
   answers where the binding says so: ``STATUS_EXCEPTIONS``).
3. **schemathesis**, with every standard check it has (response-schema
   conformance among them) and one of the runner's own (``BINDING_CHECK``: the
   status follows the code, and INTERNAL_ERROR is never an answer), over a
   fixed budget: at most ``max_examples`` generated cases per operation and
   phase, from a fixed ``seed``. Each served tool also becomes an operation of
   its own, whose body schema is the tool's parameter schema, so that each tool
   gets valid and invalid parameters of its own, not only the generic object.

Two of schemathesis's checks are told what the binding allows on the invoke
operations, where a generic document cannot know the tool: parameters the
document accepts may still be refused by the tool (``positive_data_acceptance``
then accepts each status the binding gives a code), and the 5xx statuses of
the codes a tool answers (EXECUTION_ERROR, TIMEOUT ...) are answers, not
server errors (``not_a_server_error``), while ``BINDING_CHECK`` holds the body
to such a code. The stateful phase is off: the binding has no links between
operations.

A server that requires a bearer token is checked with one (``token``: every request of the
run carries ``Authorization: Bearer <token>``); the token is never printed. A server that
answers the run's first request (``GET /tools``) 401 is not checked at all: every check would
fail the same way, so the run is refused with ``ConformanceTokenError``, saying whether a token
was given.

An answer that the server's HTTP layer gives before the application sees the request (a
status such as 400, 408, 413, 431 or 503 with a body that is not JSON, as uvicorn answers HTTP
that does not parse or a connection over its cap) is a **transport error**, reported as such,
never judged as a ToolResponse body: the binding leaves the transport its own refusals, but a
conforming request the runner sends must not get one.

The exit status is 0 when everything passed, 1 when anything failed (or the
server could not be reached), 2 for a usage error (a token missing or refused included).
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from http import HTTPStatus
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, TextIO
from urllib.parse import quote, urlsplit

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from toolresponse_generated import ErrorCode
from toolresponse_generated.http_binding import (
    BEARER_SCHEME,
    CONFORMANCE_FIXTURE_DIR,
    DOCUMENT_NAME,
    FIXTURE_SCHEMA_NAME,
    HTTP_STATUS,
    INVOKE_METHOD,
    INVOKE_PATH,
    LIST_TOOLS_METHOD,
    LIST_TOOLS_PATH,
    MEDIA_TYPE,
    RESOLVED_DOCUMENT_NAME,
    STATUS_EXCEPTIONS,
    SUCCESS_STATUS,
    TOOL_NAME_PARAMETER,
    TOOL_NAME_PATTERN,
    UNAUTHORIZED_STATUS,
)

from .._errors import ConformanceError, ConformanceTokenError, MalformedJsonError
from .._response import loads_strict
from ..validation import validate
from ._access import TOKEN_ENV
from ._refs import rewrite_refs

__all__ = [
    "BINDING_CHECK",
    "DEFAULT_MAX_EXAMPLES",
    "DEFAULT_SEED",
    "DOCUMENT_NAME",
    "RESOLVED_DOCUMENT_NAME",
    "CheckResult",
    "ConformanceError",
    "ConformanceReport",
    "ConformanceTokenError",
    "Fixture",
    "add_tool_operations",
    "binding_document",
    "load_fixtures",
    "resolved_binding_document",
    "run_conformance",
    "status_problem",
    "transport_refusal",
]

DEFAULT_MAX_EXAMPLES = 50
DEFAULT_SEED = 20260101
DEFAULT_TIMEOUT_S = 10.0
_MISSING_EXTRA = (
    "toolresponse conformance needs the optional extra 'conformance' ({name} is not installed):"
    " pip install 'toolresponse[conformance]'"
)
_GENERATED = "toolresponse_generated"


# -- the document --------------------------------------------------------------------------


def _packaged(name: str) -> Traversable:
    """A file shipped in ``toolresponse_generated`` (written there by ``make generate``)."""
    packaged = resources.files(_GENERATED)
    for part in name.split("/"):
        packaged = packaged.joinpath(part)
    return packaged


def _packaged_json(name: str, what: str) -> Any:
    packaged = _packaged(name)
    if not packaged.is_file():
        raise ConformanceError(f"{what} ({name}) is not in this installation: {_GENERATED} has no copy of it")
    return json.loads(packaged.read_text("utf-8"))


def binding_document() -> dict[str, Any]:
    """The binding's OpenAPI document as written (it refers to the v1 schema by relative ``$ref``)."""
    document: dict[str, Any] = _packaged_json(DOCUMENT_NAME, "the binding's OpenAPI document")
    return document


def resolved_binding_document() -> dict[str, Any]:
    """The binding's OpenAPI document with the v1 schema placed in ``components/schemas`` and every
    reference pointing there, as ``make generate`` writes it: any loader resolves it."""
    document: dict[str, Any] = _packaged_json(RESOLVED_DOCUMENT_NAME, "the resolved binding document")
    return document


def _external_references(document: Mapping[str, Any]) -> list[str]:
    return sorted({ref for ref in _references(document) if not ref.startswith("#")})


def add_tool_operations(
    document: Mapping[str, Any], tools: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], list[str]]:
    """A copy of the resolved ``document`` with one operation per served tool, and why any tool was left out.

    ``POST /tools/<name>/invoke`` takes the tool's own parameter schema as its body (placed in
    ``components/schemas`` as ``ToolParameters.<name>``, its local references rewritten), with
    the generic operation's parameters and responses; so schemathesis sends each tool valid and
    invalid parameters of its own.
    """
    specialised: dict[str, Any] = copy.deepcopy(dict(document))
    method = INVOKE_METHOD.lower()
    generic = specialised["paths"][INVOKE_PATH][method]
    schemas = specialised["components"]["schemas"]
    tool_name = re.compile(TOOL_NAME_PATTERN)
    left_out: list[str] = []
    for tool in tools:
        name = tool.get("name")
        parameters = tool.get("parameters")
        if not isinstance(name, str) or not tool_name.fullmatch(name) or not isinstance(parameters, dict):
            left_out.append(f"{name!r}: not a valid tool name and parameter schema")
            continue
        component = f"ToolParameters.{name}"
        if any(not ref.startswith("#") for ref in _references(parameters)) or _has_member(parameters, "$id"):
            left_out.append(f"{name}: its parameter schema refers to another document or has an $id")
            continue
        if component in schemas:
            left_out.append(f"{name}: the document already has a component schema {component}")
            continue
        prefix = f"#/components/schemas/{component}"
        body = {key: value for key, value in parameters.items() if key != "$schema"}
        schemas[component] = rewrite_refs(body, _under(prefix))
        operation = {
            **{key: value for key, value in generic.items() if key not in ("operationId", "requestBody")},
            "operationId": f"invokeTool.{name}",
            "summary": f"Run the tool {name}",
            "parameters": [p for p in generic.get("parameters", []) if not _in_path(p, specialised)],
            "requestBody": {
                "required": True,
                "content": {MEDIA_TYPE: {"schema": {"$ref": prefix}}},
            },
        }
        specialised["paths"][_invoke_path(name)] = {method: operation}
    return specialised, left_out


def _under(prefix: str) -> Callable[[str], str]:
    """Where a local reference of a schema placed at ``prefix`` points (``#/$defs/A``: ``prefix/$defs/A``)."""

    def target(ref: str) -> str:
        return prefix + ref[1:]

    return target


def _invoke_path(name: str) -> str:
    """The invoke path of the tool ``name`` (percent-encoded)."""
    return INVOKE_PATH.replace(f"{{{TOOL_NAME_PARAMETER}}}", quote(name, safe=""))


def _in_path(parameter: Mapping[str, Any], document: Mapping[str, Any]) -> bool:
    """Whether an operation's parameter (or the component it refers to) is a path parameter."""
    ref = parameter.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/parameters/"):
        parameter = document["components"]["parameters"][ref.rsplit("/", 1)[-1]]
    return parameter.get("in") == "path"


def _references(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for value in node.values():
            yield from _references(value)
    elif isinstance(node, list):
        for item in node:
            yield from _references(item)


def _has_member(node: Any, member: str) -> bool:
    if isinstance(node, dict):
        return member in node or any(_has_member(value, member) for value in node.values())
    if isinstance(node, list):
        return any(_has_member(item, member) for item in node)
    return False


# -- results -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CheckResult:
    """The outcome of one check: passed, failed (with each problem) or skipped (with the reason)."""

    section: str
    """``document``, ``binding`` or ``schemathesis``."""
    name: str
    problems: tuple[str, ...] = ()
    skipped: str | None = None
    note: str = ""

    @property
    def passed(self) -> bool:
        return not self.problems


@dataclass(kw_only=True)
class ConformanceReport:
    """Every check of one run, in order; ``passed`` when none failed."""

    url: str
    results: list[CheckResult] = field(default_factory=list)

    @property
    def failures(self) -> list[CheckResult]:
        return [result for result in self.results if not result.passed]

    @property
    def passed(self) -> bool:
        return not self.failures

    def failed_checks(self) -> list[str]:
        """The names of the checks that failed, in order."""
        return [result.name for result in self.failures]


# -- the binding's own checks --------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Fixture:
    """One request and what the binding says its answer is: one test of an HTTP fixture file.

    ``path`` may contain ``{tool}`` (a served tool) and ``{unknown}`` (a name no tool has).
    """

    description: str
    method: str
    path: str
    body: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    status: int | None = None
    """The HTTP status required, or None for the code's."""
    code: ErrorCode | None = None
    """The error code required, or None for any answer."""
    not_status: int | None = None
    not_code: ErrorCode | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    """Members ``error_info.details`` must have, with these values."""
    echo_call_id: str | None = None
    """The ``context.call_id`` the answer must carry."""
    response_headers: tuple[str, ...] = ()
    """Headers the answer must have (any value)."""

    @property
    def needs_tool(self) -> bool:
        """Whether the request names a served tool, so that a server serving none skips it."""
        return "{tool}" in self.path


def _body_bytes(body: Mapping[str, Any] | None, where: str) -> bytes | None:
    """The bytes of a fixture's request body (see ``HttpBody`` in the fixture schema)."""
    if body is None:
        return None
    if "base64" in body:
        try:
            decoded: bytes = base64.b64decode(body["base64"], validate=True)
            return decoded
        except binascii.Error as error:
            raise ConformanceError(f"{where}: the body is not base64 ({error})") from None
    text: bytes = body["text"].encode("utf-8")
    size: int = body.get("pad_to_bytes", len(text))
    if size < len(text):
        raise ConformanceError(f"{where}: pad_to_bytes {size} is under the text's {len(text)} bytes")
    return text + b" " * (size - len(text))


def _code(name: str | None, where: str) -> ErrorCode | None:
    if name is None:
        return None
    try:
        return ErrorCode(name)
    except ValueError:
        raise ConformanceError(f"{where}: {name!r} is not an error code") from None


def _fixture(test: Mapping[str, Any], where: str) -> Fixture:
    request = test["request"]
    expected = test["response"]
    return Fixture(
        description=test["description"],
        method=request["method"],
        path=request["path"],
        body=_body_bytes(request.get("body"), where),
        headers=dict(request.get("headers", {})),
        status=expected.get("status"),
        code=_code(expected.get("code"), where),
        not_status=expected.get("not_status"),
        not_code=_code(expected.get("not_code"), where),
        details=dict(expected.get("details", {})),
        echo_call_id=expected.get("call_id"),
        response_headers=tuple(expected.get("headers", ())),
    )


def load_fixtures(directory: Traversable | None = None) -> tuple[Fixture, ...]:
    """The HTTP fixtures: every test of every ``*.json`` file of ``directory`` (default: the copy of
    ``tests/conformance/v1/http`` shipped in ``toolresponse_generated``), in file order.

    Each file is checked against the shipped fixture schema first; a file that is missing,
    malformed or off the schema raises ``ConformanceError``, naming it.
    """
    return _shipped_fixtures() if directory is None else _read_fixtures(directory)


@cache
def _shipped_fixtures() -> tuple[Fixture, ...]:
    return _read_fixtures(_packaged(CONFORMANCE_FIXTURE_DIR))


@cache
def _fixture_file_validator() -> Draft202012Validator:
    schema = _packaged_json(FIXTURE_SCHEMA_NAME, "the schema of the conformance fixtures")
    return Draft202012Validator(schema)


def _read_fixtures(directory: Traversable) -> tuple[Fixture, ...]:
    if not directory.is_dir():
        raise ConformanceError(f"the HTTP conformance fixtures ({directory}) are not in this installation")
    files = sorted((entry for entry in directory.iterdir() if entry.name.endswith(".json")), key=str)
    if not files:
        raise ConformanceError(f"{directory} holds no HTTP conformance fixture")
    validator = _fixture_file_validator()
    fixtures: list[Fixture] = []
    for file in files:
        try:
            groups = json.loads(file.read_text("utf-8"))
        except ValueError as error:
            raise ConformanceError(f"{file.name}: not JSON ({error})") from None
        problems = sorted(validator.iter_errors(groups), key=lambda error: error.json_path)
        if problems:
            first = problems[0]
            raise ConformanceError(
                f"{file.name}: off the fixture schema at {first.json_path}: {first.message}"
            )
        for group in groups:
            for test in group["tests"]:
                if "request" not in test:
                    raise ConformanceError(f"{file.name}: {test['description']!r} is not an HTTP test")
                fixtures.append(_fixture(test, f"{file.name}: {test['description']!r}"))
    return tuple(fixtures)


@dataclass(frozen=True, kw_only=True)
class _Answer:
    status: int
    headers: Mapping[str, str]
    body: bytes


def transport_refusal(status: int, content_type: str) -> str | None:
    """What an answer is, when the server's HTTP layer gave it rather than the application: an error
    status (4xx or 5xx) whose body is not JSON. None for an answer of the application's."""
    media = content_type.split(";")[0].strip().lower()
    if status < HTTPStatus.BAD_REQUEST or media == MEDIA_TYPE or media.endswith("+json"):
        return None
    shown = media or "no Content-Type"
    return (
        f"transport error: the server's HTTP layer answered {status} ({shown}) before the application saw"
        " the request, so there is no ToolResponse to judge"
    )


def _toolresponse_problems(answer: _Answer) -> tuple[Any, list[str]]:
    """The decoded body and what is wrong with it as a ToolResponse answer."""
    problems: list[str] = []
    content_type = answer.headers.get("content-type", "")
    refused = transport_refusal(answer.status, content_type)
    if refused is not None:
        return None, [refused]
    if content_type.split(";")[0].strip().lower() != MEDIA_TYPE:
        problems.append(f"Content-Type is {content_type!r}, not {MEDIA_TYPE}")
    try:
        body = loads_strict(answer.body)
    except MalformedJsonError as error:
        return None, [*problems, f"the body is not JSON ({error.reason}): {answer.body[:120]!r}"]
    verdict = validate(body)
    if not verdict.valid:
        shown = "; ".join(f"{v.pointer or '/'} [{v.keyword}] {v.message}" for v in verdict.errors[:3])
        problems.append(f"the body is not a valid ToolResponse: {shown}")
    return body, problems


def _error_code(body: Any) -> ErrorCode | None:
    if isinstance(body, dict) and isinstance(body.get("error_info"), dict):
        try:
            return ErrorCode(body["error_info"].get("code"))
        except ValueError:
            return None
    return None


def status_problem(status: Any, code: ErrorCode | None, http: int) -> str | None:
    """What is wrong with answering a ToolResponse of ``status`` and ``code`` with HTTP status ``http``."""
    if status != "error" or code is None:
        if http == SUCCESS_STATUS:
            return None
        return f"HTTP status {http} for a {status} response, whose status is {SUCCESS_STATUS}"
    if STATUS_EXCEPTIONS.get(http) is code:
        return None
    expected = HTTP_STATUS[code]
    return None if http == expected else f"HTTP status {http} for {code.value}, whose status is {expected}"


def _judge(fixture: Fixture, answer: _Answer) -> list[str]:
    body, problems = _toolresponse_problems(answer)
    if body is None or problems:
        return [f"answered {answer.status}: {problem}" for problem in problems]
    code = _error_code(body)
    status = body.get("status")
    if fixture.status is not None and answer.status != fixture.status:
        problems.append(f"HTTP status {answer.status}, expected {fixture.status}")
    if fixture.status is None:
        problem = status_problem(status, code, answer.status)
        if problem is not None:
            problems.append(problem)
    if fixture.status is not None and status != "error":
        problems.append(f"status {status!r} on an HTTP {answer.status}, expected an error")
    if fixture.code is not None and code is not fixture.code:
        problems.append(f"code {code.value if code else None}, expected {fixture.code.value}")
    if fixture.not_status is not None and answer.status == fixture.not_status:
        problems.append(f"HTTP status {answer.status}")
    if fixture.not_code is not None and code is fixture.not_code:
        problems.append(f"code {code.value}: {body.get('text', '')}")
    if fixture.details:
        details = body.get("error_info", {}).get("details") or {}
        for key, value in fixture.details.items():
            if details.get(key) != value:
                problems.append(f"error_info.details.{key} is {details.get(key)!r}, expected {value!r}")
    if fixture.echo_call_id is not None:
        context = body.get("context") or {}
        if context.get("call_id") != fixture.echo_call_id:
            problems.append(
                f"context.call_id is {context.get('call_id')!r}, expected {fixture.echo_call_id!r}"
            )
    problems.extend(
        f"no {header} header" for header in fixture.response_headers if header not in answer.headers
    )
    return problems


_WRONG_VALUES: Mapping[str, Any] = {
    "string": 12345,
    "number": "not a number",
    "integer": "not an integer",
    "boolean": "not a boolean",
    "array": "not an array",
    "object": "not an object",
}


def _derived_fixtures(tools: Sequence[Mapping[str, Any]]) -> Iterator[Fixture | CheckResult]:
    """Fixtures built from the served tools' parameter schemas (a skip when no tool has what they need)."""
    required = next(
        (
            tool
            for tool in tools
            if isinstance(tool.get("parameters"), dict) and tool["parameters"].get("required")
        ),
        None,
    )
    missing = "parameters without a required member are 400 INVALID_PARAM"
    if required is None:
        yield CheckResult(section="binding", name=missing, skipped="no served tool has a required parameter")
    else:
        yield Fixture(
            description=missing,
            method="POST",
            path=_invoke_path(str(required["name"])),
            body=b"{}",
            code=ErrorCode.INVALID_PARAM,
        )
    wrong = "a parameter of the wrong type is 400 INVALID_PARAM"
    for tool in tools:
        properties = (tool.get("parameters") or {}).get("properties") or {}
        for member, member_schema in properties.items():
            kind = member_schema.get("type") if isinstance(member_schema, dict) else None
            if isinstance(kind, str) and kind in _WRONG_VALUES:
                body = json.dumps({member: _WRONG_VALUES[kind]}).encode()
                yield Fixture(
                    description=wrong,
                    method="POST",
                    path=_invoke_path(str(tool["name"])),
                    body=body,
                    code=ErrorCode.INVALID_PARAM,
                )
                return
    yield CheckResult(section="binding", name=wrong, skipped="no served tool declares a typed parameter")


def _tool_list_problems(
    answer: _Answer, tool_list_schema: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The tools of a ``GET /tools`` answer, and what is wrong with it: it must be a 200 success
    ToolResponse whose ``data`` matches ``tool_list_schema``, each name once, each schema a schema."""
    body, problems = _toolresponse_problems(answer)
    if answer.status != 200:
        problems.insert(0, f"HTTP status {answer.status}, expected 200")
    if body is None:
        return [], problems
    if validate(body).valid:  # else the ToolResponse violations are reported already
        validator = Draft202012Validator(tool_list_schema)
        problems.extend(
            f"the tool list breaks the binding at {violation.json_path}: {violation.message}"
            for violation in sorted(validator.iter_errors(body), key=lambda v: v.json_path)[:3]
        )
    data = body.get("data") if isinstance(body, dict) else None
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list):
        return [], problems
    names = [tool.get("name") for tool in tools if isinstance(tool, dict)]
    duplicates = sorted({str(name) for name in names if names.count(name) > 1})
    if duplicates:
        problems.append(f"names listed more than once: {', '.join(duplicates)}")
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        for member in ("parameters", "output_schema"):
            declared = tool.get(member)
            if isinstance(declared, dict):
                try:
                    Draft202012Validator.check_schema(declared)
                except SchemaError as error:
                    problems.append(f"{tool.get('name')}: {member} is not a JSON Schema: {error.message}")
    return [tool for tool in tools if isinstance(tool, dict)], problems


def _component_schema(document: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A self-contained JSON Schema for one component of the resolved document."""
    return {"$ref": f"#/components/schemas/{name}", "components": document.get("components", {})}


def _unknown_name(tools: Sequence[Mapping[str, Any]]) -> str:
    served = {tool.get("name") for tool in tools}
    name = "conformance-no-such-tool"
    while name in served:
        name += "-x"
    return name


def _run_binding_checks(
    report: ConformanceReport,
    client: Any,
    document: Mapping[str, Any],
    fixtures: Sequence[Fixture],
    progress: Callable[[CheckResult], None],
) -> list[dict[str, Any]] | None:
    """The binding's own checks; the served tools, or None when the server could not be reached."""

    def record(result: CheckResult) -> None:
        report.results.append(result)
        progress(result)

    def send(method: str, path: str, body: bytes | None, headers: Mapping[str, str]) -> _Answer:
        response = client.request(method, path, content=body, headers=dict(headers))
        return _Answer(status=response.status_code, headers=response.headers, body=response.content)

    import httpx

    name = (
        f"{LIST_TOOLS_METHOD} {LIST_TOOLS_PATH} is a success ToolResponse listing each tool once in"
        " data.tools, with JSON Schemas"
    )
    try:
        listing = send(LIST_TOOLS_METHOD, LIST_TOOLS_PATH, None, {})
    except httpx.HTTPError as error:
        record(
            CheckResult(
                section="binding", name="the server answers", problems=(f"{type(error).__name__}: {error}",)
            )
        )
        return None
    tools, problems = _tool_list_problems(listing, _component_schema(document, "ToolListResponse"))
    record(CheckResult(section="binding", name=name, problems=tuple(problems), note=f"{len(tools)} tools"))
    served = next((str(tool["name"]) for tool in tools if isinstance(tool.get("name"), str)), None)
    unknown = quote(_unknown_name(tools), safe="")
    for item in [*fixtures, *_derived_fixtures(tools)]:
        if isinstance(item, CheckResult):
            record(item)
            continue
        if item.needs_tool and served is None:
            record(CheckResult(section="binding", name=item.description, skipped="the server serves no tool"))
            continue
        path = item.path.replace("{unknown}", unknown).replace("{tool}", quote(served or "", safe=""))
        headers = dict(item.headers)
        if item.body is not None and not any(header.lower() == "content-type" for header in headers):
            headers["Content-Type"] = MEDIA_TYPE
        try:
            answer = send(item.method, path, item.body, headers)
        except httpx.HTTPError as error:
            problems = [f"{item.method} {path}: {type(error).__name__}: {error}"]
        else:
            problems = [f"{item.method} {path}: {problem}" for problem in _judge(item, answer)]
        record(CheckResult(section="binding", name=item.description, problems=tuple(problems)))
    return tools


# -- the document's response schemas are in force ------------------------------------------

_NON_CONFORMING = b'{"status": "ok"}'
_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _documented_statuses(document: Mapping[str, Any]) -> Iterator[tuple[str, str, int]]:
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method not in _HTTP_METHODS:
                continue
            for status in operation.get("responses", {}):
                if status == "default":
                    yield path, method, 599
                elif status.isdigit():
                    yield path, method, int(status)
                elif status[0].isdigit():
                    yield path, method, int(status[0]) * 100 + 99


def _schemas_in_force(schema: Any, document: Mapping[str, Any], url: str) -> CheckResult:
    """Whether schemathesis rejects a non-conforming body under every documented response."""
    import requests
    import schemathesis

    problems: list[str] = []
    count = 0
    for path, method, status in _documented_statuses(document):
        operation = schema[path][method.upper()]
        request = requests.Request(method.upper(), url.rstrip("/") + path).prepare()
        response = schemathesis.Response(
            status, {"content-type": [MEDIA_TYPE]}, _NON_CONFORMING, request, 0.0, True
        )
        count += 1
        if operation.is_valid_response(response):
            problems.append(
                f"{method.upper()} {path} {status}: a non-conforming body passes, so its response schema"
                " is not in force"
            )
    return CheckResult(
        section="document",
        name="schemathesis rejects a non-conforming body under every documented response",
        problems=tuple(problems),
        note=f"{count} responses",
    )


# -- schemathesis --------------------------------------------------------------------------


@dataclass(kw_only=True)
class _OperationTally:
    cases: int = 0
    checks: dict[str, int] = field(default_factory=dict)
    failures: dict[tuple[str, str], str] = field(default_factory=dict)


def _first_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = "\n".join(lines[:count])
    return shown + ("\n..." if len(lines) > count else "")


BINDING_CHECK = "toolresponse_binding_status"
"""The runner's own schemathesis check: on every response whose body is a ToolResponse, the HTTP
status is its code's (200 for success and partial, 413 and 405 where the binding says), and the
code is never INTERNAL_ERROR (the server failed on that input)."""


def toolresponse_binding_status(ctx: Any, response: Any, case: Any) -> bool | None:
    """The schemathesis check named by ``BINDING_CHECK``."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    if not isinstance(body, dict) or body.get("status") not in ("success", "partial", "error"):
        return None
    code = _error_code(body)
    problem = status_problem(body.get("status"), code, response.status_code)
    if problem is not None:
        raise AssertionError(f"{problem} (the binding: the HTTP status follows the code)")
    if code is ErrorCode.INTERNAL_ERROR:
        raise AssertionError(
            "INTERNAL_ERROR: the server failed on this request, which is a bug in the server"
        )
    return None


_registered: list[str] = []


def _register_binding_check() -> None:
    import schemathesis

    if not _registered:
        schemathesis.check(toolresponse_binding_status)
        _registered.append(BINDING_CHECK)


def _run_schemathesis(
    report: ConformanceReport,
    schema: Any,
    progress: Callable[[CheckResult], None],
) -> None:
    from schemathesis.engine import Status, events, from_schema

    _register_binding_check()
    tallies: dict[str, _OperationTally] = {}
    errors: list[str] = []
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            tally = tallies.setdefault(event.recorder.label, _OperationTally())
            tally.cases += len(event.recorder.cases)
            for nodes in event.recorder.checks.values():
                for node in nodes:
                    tally.checks[node.name] = tally.checks.get(node.name, 0) + 1
                    if node.status == Status.FAILURE and node.failure_info is not None:
                        failure = node.failure_info.failure
                        key = (node.name, failure.title)
                        if key not in tally.failures:
                            tally.failures[key] = (
                                f"{node.name}: {failure.title}\n{_first_lines(failure.message)}\n"
                                f"reproduce: {_first_lines(node.failure_info.code_sample, 3)}"
                            )
        elif isinstance(event, events.NonFatalError):
            errors.append(f"{event.label}: {event.info.title}: {_first_lines(event.info.message, 4)}")
        elif isinstance(event, events.FatalError):
            errors.append(f"schemathesis stopped: {type(event.exception).__name__}: {event.exception}")
        elif isinstance(event, events.Interrupted):
            errors.append("schemathesis was interrupted")
        elif isinstance(event, events.EngineFinished):
            if event.stop_reason.skip_explanation is not None:
                errors.append(f"schemathesis stopped early: {event.stop_reason.skip_explanation}")
            errors.extend(
                f"{failure.title}: {_first_lines(failure.message, 4)}" for failure in event.failures
            )
    names: set[str] = set()
    for label in sorted(tallies):
        tally = tallies[label]
        names.update(tally.checks)
        schema_checks = tally.checks.get("response_schema_conformance", 0)
        result = CheckResult(
            section="schemathesis",
            name=label,
            problems=tuple(tally.failures.values()),
            note=f"{tally.cases} cases; {schema_checks} responses checked against their schema",
        )
        report.results.append(result)
        progress(result)
    ran = sum(tally.checks.get("response_schema_conformance", 0) for tally in tallies.values())
    if not ran:
        errors.append("response_schema_conformance never ran: the run proves nothing about the bodies")
    if BINDING_CHECK not in names:
        errors.append(f"{BINDING_CHECK} never ran")
    result = CheckResult(
        section="schemathesis",
        name="the run completes, every check in force",
        problems=tuple(errors),
        note=f"{len(names)} checks: {', '.join(sorted(names))}",
    )
    report.results.append(result)
    progress(result)


_CODE_STATUSES = sorted(set(HTTP_STATUS.values()))
_INVOKE_STATUSES = ["2xx", *(str(status) for status in _CODE_STATUSES)]
"""What a tool may answer to parameters that the document's generic ``Parameters`` schema accepts:
any of its codes (a tool checks its own parameter schema, and may refuse what that allows)."""
_INVOKE_STATUSES_NOT_FAILURES = [
    "2xx",
    "3xx",
    "4xx",
    *(str(status) for status in _CODE_STATUSES if status >= HTTPStatus.INTERNAL_SERVER_ERROR),
]
"""The 5xx statuses of the codes a tool answers (EXECUTION_ERROR, NETWORK_ERROR ...) are answers, not
server errors: ``BINDING_CHECK`` then makes sure the body is such a code, never INTERNAL_ERROR."""


_INVOKE_PATH_REGEX = "^{}$".format(
    "[^/]+".join(re.escape(part) for part in INVOKE_PATH.split(f"{{{TOOL_NAME_PARAMETER}}}"))
)
"""The paths of the invoke operations: the generic one and each served tool's."""


def _schemathesis_schema(
    document: Mapping[str, Any],
    url: str,
    *,
    max_examples: int,
    seed: int,
    timeout_s: float,
    headers: Mapping[str, str],
) -> Any:
    import schemathesis

    config = schemathesis.Config.from_dict(
        {
            "seed": seed,
            **({"headers": dict(headers)} if headers else {}),
            "suppress-health-check": ["too_slow"],
            "base-url": url,
            "request-timeout": timeout_s,
            "workers": 1,
            "generation": {"max-examples": max_examples, "mode": "all", "database": "none"},
            "phases": {"stateful": {"enabled": False}},
            "operations": [
                {
                    "include-path-regex": _INVOKE_PATH_REGEX,
                    "checks": {
                        "positive_data_acceptance": {"expected-statuses": _INVOKE_STATUSES},
                        "not_a_server_error": {"expected-statuses": _INVOKE_STATUSES_NOT_FAILURES},
                    },
                }
            ],
        }
    )
    return schemathesis.openapi.from_dict(copy.deepcopy(dict(document)), config=config)


# -- the run -------------------------------------------------------------------------------


def _check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL with a host")
    if parts.query or parts.fragment:
        raise ValueError(f"{url!r} has a query or fragment; give the server's base URL")
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number
    except ValueError:
        raise ValueError(f"{url!r} has a port that is not a number") from None
    return url.rstrip("/")


def _check_token(client: Any, base: str, token: str | None) -> None:
    """Refuse the run when the server answers its first request 401 (``ConformanceTokenError``).
    A server that cannot be reached is left to the checks, which report it."""
    import httpx

    try:
        status = client.request(LIST_TOOLS_METHOD, LIST_TOOLS_PATH).status_code
    except httpx.HTTPError:
        return
    if status != UNAUTHORIZED_STATUS:
        return
    answered = f"{LIST_TOOLS_METHOD} {LIST_TOOLS_PATH} answered {status} {HTTPStatus(status).phrase}"
    if token is None:
        raise ConformanceTokenError(
            f"{base} needs a bearer token ({answered} without one)", token_given=False
        )
    raise ConformanceTokenError(f"{base} refused the bearer token given ({answered})", token_given=True)


def run_conformance(
    url: str,
    *,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    seed: int = DEFAULT_SEED,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    document: Mapping[str, Any] | None = None,
    progress: Callable[[CheckResult], None] | None = None,
    token: str | None = None,
) -> ConformanceReport:
    """Check the server at ``url`` against the binding; ``progress`` is told each result as it comes.

    Raises ``ValueError`` for a bad URL or budget and ``ConformanceError`` when the run cannot be
    made (an extra missing, the document or the fixtures missing or malformed; the subclass
    ``ConformanceTokenError`` when the server answers the first request 401). ``document`` is a
    resolved binding document (default: ``resolved_binding_document()``); one that still refers to
    another file is refused, since schemathesis would check nothing under such a reference.
    ``token``: the server's bearer token, sent with every request (None: none).
    """
    base = _check_url(url)
    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise ValueError(f"max_examples must be an integer >= 1, not {max_examples!r}")
    tell = progress or (lambda result: None)
    try:
        import httpx
        import schemathesis  # noqa: F401 - fail early, naming the extra
    except ImportError as missing:
        raise ConformanceError(_MISSING_EXTRA.format(name=missing.name)) from None
    resolved = dict(resolved_binding_document() if document is None else document)
    external = _external_references(resolved)
    if external:
        raise ConformanceError(
            f"the document refers to other files ({', '.join(external)}): give a resolved document, with"
            f" every schema in components/schemas ({RESOLVED_DOCUMENT_NAME}, written by make generate)"
        )
    fixtures = load_fixtures()
    report = ConformanceReport(url=base)
    headers = {} if token is None else {"Authorization": f"{BEARER_SCHEME} {token}"}
    with httpx.Client(base_url=base, timeout=timeout_s, follow_redirects=False, headers=headers) as client:
        _check_token(client, base, token)
        schema = _schemathesis_schema(
            resolved, base, max_examples=max_examples, seed=seed, timeout_s=timeout_s, headers=headers
        )
        in_force = _schemas_in_force(schema, resolved, base)
        report.results.append(in_force)
        tell(in_force)
        tools = _run_binding_checks(report, client, resolved, fixtures, tell)
    if tools is None or not in_force.passed:
        return report
    specialised, left_out = add_tool_operations(resolved, tools)
    schema = _schemathesis_schema(
        specialised, base, max_examples=max_examples, seed=seed, timeout_s=timeout_s, headers=headers
    )
    tool_operations = _schemas_in_force(schema, specialised, base)
    result = CheckResult(
        section="document",
        name="each served tool is an operation of its own, its responses in force",
        problems=(*tool_operations.problems, *left_out),
        note=f"{len(tools) - len(left_out)} of {len(tools)} tools",
    )
    report.results.append(result)
    tell(result)
    _run_schemathesis(report, schema, tell)
    return report


# -- the report ----------------------------------------------------------------------------


_MARKS = {"pass": "ok  ", "fail": "FAIL", "skip": "skip"}


def _print_result(result: CheckResult, out: TextIO) -> None:
    mark = _MARKS["skip" if result.skipped else "pass" if result.passed else "fail"]
    note = f" ({result.skipped or result.note})" if result.skipped or result.note else ""
    print(f"  {mark} [{result.section}] {result.name}{note}", file=out)
    for problem in result.problems:
        lines = problem.splitlines()
        print(f"         - {lines[0]}", file=out)
        for line in lines[1:]:
            print(f"           {line}", file=out)
    out.flush()


def report_conformance(
    url: str, *, max_examples: int, seed: int, timeout_s: float, out: TextIO, token: str | None = None
) -> int:
    """Run the suite against ``url``, print each result to ``out``, and return the exit status.

    A run that cannot be made is one line on standard error (exit status 2), with nothing on
    ``out``: the heading is printed with the first result."""
    try:
        base = _check_url(url)
    except ValueError as error:
        print(f"toolresponse conformance: {error}", file=sys.stderr)
        return 2
    heading = [
        f"toolresponse conformance: {base} against the ToolResponse v1 HTTP binding"
        f" (schemathesis: seed {seed}, at most {max_examples} cases per operation and phase"
        f"{'; with a bearer token' if token is not None else ''})"
    ]

    def progress(result: CheckResult) -> None:
        while heading:
            print(heading.pop(), file=out)
        _print_result(result, out)

    try:
        report = run_conformance(
            base, max_examples=max_examples, seed=seed, timeout_s=timeout_s, progress=progress, token=token
        )
    except ConformanceTokenError as error:
        how = "check the token in" if error.token_given else "give it with"
        where = f"--token-file FILE or the environment variable {TOKEN_ENV}"
        print(f"toolresponse conformance: {error}: {how} {where}", file=sys.stderr)
        return 2
    except (ValueError, ConformanceError) as error:
        print(f"toolresponse conformance: {error}", file=sys.stderr)
        return 2
    failed = report.failures
    passed = sum(1 for result in report.results if result.passed and not result.skipped)
    skipped = sum(1 for result in report.results if result.skipped)
    verdict = "PASS" if not failed else "FAIL"
    print(f"{verdict}: {passed} passed, {len(failed)} failed, {skipped} skipped", file=out)
    for result in failed:
        print(f"  failed: [{result.section}] {result.name}", file=out)
    return 0 if not failed else 1
