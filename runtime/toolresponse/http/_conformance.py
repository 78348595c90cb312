"""The HTTP conformance runner: check any server against the ToolResponse v1 HTTP binding.

A run is the binding's own checks (``_fixtures``), then schemathesis with every standard check and
``BINDING_CHECK`` on the resolved binding document (schemathesis silently skips a schema it cannot
resolve), each served tool an operation of its own (``docs/implementing.md``).
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from importlib import resources
from typing import Any
from urllib.parse import quote, urlsplit

from toolresponse_generated import ErrorCode
from toolresponse_generated.http_binding import (
    BEARER_SCHEME,
    HTTP_STATUS,
    INVOKE_METHOD,
    INVOKE_PATH,
    LIST_TOOLS_METHOD,
    LIST_TOOLS_PATH,
    MEDIA_TYPE,
    RESOLVED_DOCUMENT_NAME,
    TOOL_NAME_PARAMETER,
    TOOL_NAME_PATTERN,
    UNAUTHORIZED_STATUS,
)

from .._errors import ConformanceError, ConformanceTokenError
from ._fixtures import CheckResult, check_binding, error_code, load_fixtures, status_problem
from ._refs import rewrite_refs

DEFAULT_MAX_EXAMPLES = 50
DEFAULT_SEED = 20260101
DEFAULT_TIMEOUT_S = 10.0


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


def resolved_binding_document() -> dict[str, Any]:
    """The binding's OpenAPI document with the v1 schema in ``components/schemas`` and every
    reference pointing there (``make generate`` writes it)."""
    packaged = resources.files("toolresponse_generated").joinpath(RESOLVED_DOCUMENT_NAME)
    if not packaged.is_file():
        raise ConformanceError(
            f"the resolved binding document ({RESOLVED_DOCUMENT_NAME}) is not in this installation"
        )
    return dict(json.loads(packaged.read_text("utf-8")))


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in a JSON value, the value itself included."""
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            yield item
        if isinstance(item, dict | list):
            pending.extend(item.values() if isinstance(item, dict) else item)


def _foreign_refs(node: Any) -> list[str]:
    """The references of ``node`` to other documents."""
    refs = {item["$ref"] for item in _objects(node) if isinstance(item.get("$ref"), str)}
    return sorted(ref for ref in refs if not ref.startswith("#"))


def _placed_at(prefix: str) -> Callable[[str], str]:
    """Where a local reference of a schema placed at ``prefix`` points (``#/$defs/A``: ``prefix/$defs/A``)."""
    return lambda ref: prefix + ref[1:]


def add_tool_operations(
    document: Mapping[str, Any], tools: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], list[str]]:
    """A copy of the resolved ``document`` with one operation per served tool, and why any tool was left out.

    ``POST /tools/<name>/invoke`` (``invokeTool.<name>``) takes the tool's parameter schema (placed
    at ``components/schemas/ToolParameters.<name>``) as its body, the generic operation the rest.
    """
    specialised: dict[str, Any] = copy.deepcopy(dict(document))
    method = INVOKE_METHOD.lower()
    generic = specialised["paths"][INVOKE_PATH][method]
    schemas, shared = specialised["components"]["schemas"], specialised["components"].get("parameters", {})
    # the generic operation's parameters but the tool's name, which each path fixes
    parameters = [
        parameter
        for parameter in generic.get("parameters", [])
        if shared.get(parameter.get("$ref", "").rpartition("/")[2], parameter).get("in") != "path"
    ]
    left_out: list[str] = []
    for tool in tools:
        name, schema = tool.get("name"), tool.get("parameters")
        component = f"ToolParameters.{name}"
        if (
            not isinstance(name, str)
            or not re.fullmatch(TOOL_NAME_PATTERN, name)
            or not isinstance(schema, dict)
        ):
            left_out.append(f"{name!r}: not a valid tool name and parameter schema")
        elif _foreign_refs(schema) or any("$id" in item for item in _objects(schema)):
            left_out.append(f"{name}: its parameter schema refers to another document or has an $id")
        elif component in schemas:
            left_out.append(f"{name}: the document already has a component schema {component}")
        else:
            prefix = f"#/components/schemas/{component}"
            body = {key: value for key, value in schema.items() if key != "$schema"}
            schemas[component] = rewrite_refs(body, _placed_at(prefix))
            operation = {
                **generic,
                "operationId": f"invokeTool.{name}",
                "summary": f"Run the tool {name}",
                "parameters": parameters,
                "requestBody": {"required": True, "content": {MEDIA_TYPE: {"schema": {"$ref": prefix}}}},
            }
            path = INVOKE_PATH.replace(f"{{{TOOL_NAME_PARAMETER}}}", quote(name, safe=""))
            specialised["paths"][path] = {method: operation}
    return specialised, left_out


BINDING_CHECK = "toolresponse_binding_status"
"""The runner's own schemathesis check: on every ToolResponse body, the HTTP status is its code's,
and the code is never INTERNAL_ERROR."""


def toolresponse_binding_status(_ctx: Any, response: Any, _case: Any) -> bool | None:
    """The schemathesis check named by ``BINDING_CHECK``."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    if not isinstance(body, dict) or body.get("status") not in ("success", "partial", "error"):
        return None
    code = error_code(body)
    problem = status_problem(body.get("status"), code, response.status_code)
    if problem is not None:
        raise AssertionError(f"{problem} (the binding: the HTTP status follows the code)")
    if code is ErrorCode.INTERNAL_ERROR:
        raise AssertionError(
            "INTERNAL_ERROR: the server failed on this request, which is a bug in the server"
        )
    return None


_CODE_STATUSES = sorted({str(status) for status in HTTP_STATUS.values()})
_INVOKE_PATHS = "^{}$".format("[^/]+".join(map(re.escape, INVOKE_PATH.split(f"{{{TOOL_NAME_PARAMETER}}}"))))
_INVOKE_CHECKS = {
    # a tool checks its own parameter schema, and may refuse what the generic one allows
    "positive_data_acceptance": {"expected-statuses": ["2xx", *_CODE_STATUSES]},
    "not_a_server_error": {
        "expected-statuses": ["2xx", "3xx", "4xx", *(s for s in _CODE_STATUSES if s >= "500")]
    },
}


def _schemathesis_schema(document: Mapping[str, Any], url: str, budget: Mapping[str, Any]) -> Any:
    import schemathesis

    if BINDING_CHECK not in schemathesis.checks.CHECKS.get_all_names():  # registered once per process
        schemathesis.check(toolresponse_binding_status)
    config = schemathesis.Config.from_dict(
        {
            **budget,
            "suppress-health-check": ["too_slow"],
            "base-url": url,
            "workers": 1,
            "phases": {"stateful": {"enabled": False}},
            "operations": [
                {"include-path-regex": _INVOKE_PATHS, "checks": _INVOKE_CHECKS},
                {
                    "include-operation-id-regex": r"^invokeTool\.",
                    "checks": {"negative_data_rejection": {"expected-statuses": ["400"]}},
                },
            ],
        }
    )
    return schemathesis.openapi.from_dict(copy.deepcopy(dict(document)), config=config)


def _first_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[:count]) + ("\n..." if len(lines) > count else "")


def _event_errors(event: Any, events: Any) -> list[str]:
    """What a schemathesis engine event other than a finished scenario says went wrong."""
    if isinstance(event, events.NonFatalError):
        return [f"{event.label}: {event.info.title}: {_first_lines(event.info.message, 4)}"]
    if isinstance(event, events.FatalError):
        return [f"schemathesis stopped: {type(event.exception).__name__}: {event.exception}"]
    if isinstance(event, events.Interrupted):
        return ["schemathesis was interrupted"]
    if not isinstance(event, events.EngineFinished):
        return []
    skipped = event.stop_reason.skip_explanation
    early = [] if skipped is None else [f"schemathesis stopped early: {skipped}"]
    return early + [f"{failure.title}: {_first_lines(failure.message, 4)}" for failure in event.failures]


def _run_schemathesis(schema: Any) -> Iterator[CheckResult]:
    """One result per operation (its failures, each kind once), then one for the run as a whole."""
    from schemathesis.engine import Status, events, from_schema

    cases: Counter[str] = Counter()
    checked: dict[str, Counter[str]] = {}
    failures: dict[str, dict[tuple[str, str], str]] = {}
    errors: list[str] = []
    for event in from_schema(schema).execute():
        if not isinstance(event, events.ScenarioFinished):
            errors.extend(_event_errors(event, events))
            continue
        label = event.recorder.label
        cases[label] += len(event.recorder.cases)
        tally, failed = checked.setdefault(label, Counter()), failures.setdefault(label, {})
        for node in (node for nodes in event.recorder.checks.values() for node in nodes):
            tally[node.name] += 1
            if node.status == Status.FAILURE and node.failure_info is not None:
                failure = node.failure_info.failure
                failed.setdefault(
                    (node.name, failure.title),
                    f"{node.name}: {failure.title}\n{_first_lines(failure.message)}\n"
                    f"reproduce: {_first_lines(node.failure_info.code_sample, 3)}",
                )
    for label in sorted(checked):
        schema_checks = checked[label]["response_schema_conformance"]
        note = f"{cases[label]} cases; {schema_checks} responses checked against their schema"
        yield CheckResult(
            section="schemathesis", name=label, problems=tuple(failures[label].values()), note=note
        )
    names = sorted({name for tally in checked.values() for name in tally})
    if not sum(tally["response_schema_conformance"] for tally in checked.values()):
        errors.append("response_schema_conformance never ran: the run proves nothing about the bodies")
    if BINDING_CHECK not in names:
        errors.append(f"{BINDING_CHECK} never ran")
    note = f"{len(names)} checks: {', '.join(names)}"
    name = "the run completes, every check in force"
    yield CheckResult(section="schemathesis", name=name, problems=tuple(errors), note=note)


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


def _check_token(status: int, base: str, token: str | None) -> None:
    """``ConformanceTokenError`` when the server answers the run's first request 401."""
    if status == UNAUTHORIZED_STATUS:
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

    ``ValueError`` for a bad URL or budget, ``ConformanceError`` when the run cannot be made (an
    extra, the document or the fixtures missing or unusable), ``ConformanceTokenError`` when the
    server answers the first request 401. ``document``: a resolved binding document.
    """
    base = _check_url(url)
    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise ValueError(f"max_examples must be an integer >= 1, not {max_examples!r}")
    try:
        import httpx
        import schemathesis  # noqa: F401 - fail early, naming the extra
    except ImportError as missing:
        raise ConformanceError(
            f"toolresponse conformance needs the optional extra 'conformance' ({missing.name} is not"
            " installed): pip install 'toolresponse[conformance]'"
        ) from None
    resolved = dict(resolved_binding_document() if document is None else document)
    external = _foreign_refs(resolved)
    if external:
        raise ConformanceError(
            f"the document refers to other files ({', '.join(external)}): give a resolved document, with"
            f" every schema in components/schemas ({RESOLVED_DOCUMENT_NAME}, written by make generate)"
        )
    fixtures = load_fixtures()
    report = ConformanceReport(url=base)

    def record(result: CheckResult) -> None:
        report.results.append(result)
        if progress is not None:
            progress(result)

    headers = {} if token is None else {"Authorization": f"{BEARER_SCHEME} {token}"}
    with httpx.Client(base_url=base, timeout=timeout_s, follow_redirects=False, headers=headers) as client:
        try:
            listing = client.request(LIST_TOOLS_METHOD, LIST_TOOLS_PATH)
        except httpx.HTTPError as error:
            problem = f"{type(error).__name__}: {error}"
            record(CheckResult(section="binding", name="the server answers", problems=(problem,)))
            return report
        _check_token(listing.status_code, base, token)
        tools = check_binding(client, listing, fixtures, record)
    specialised, left_out = add_tool_operations(resolved, tools)
    note = f"{len(tools) - len(left_out)} of {len(tools)} tools"
    name = "each served tool is an operation of its own"
    record(CheckResult(section="document", name=name, problems=tuple(left_out), note=note))
    budget = {
        "seed": seed,
        "request-timeout": timeout_s,
        "generation": {"max-examples": max_examples, "mode": "all", "database": "none"},
        **({"headers": headers} if headers else {}),
    }
    for result in _run_schemathesis(_schemathesis_schema(specialised, base, budget)):
        record(result)
    return report
