"""Access policies through the registry, on the synchronous and the asynchronous path: allow,
deny with each code, ask approved, refused and timed out; a denied call never runs, never
touches the breaker, and is seen by the listeners, the trace and the report."""

from __future__ import annotations

import ast
import asyncio
import inspect
import io
import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import toolresponse
from toolresponse import (
    LOCAL_CALLER,
    AccessControl,
    AllowList,
    ArgumentRule,
    CircuitBreaker,
    CircuitState,
    Decision,
    DenyList,
    ErrorCode,
    JsonlTraceWriter,
    PathsWithin,
    ReadOnly,
    RequireApproval,
    Tool,
    ToolCallEvent,
    ToolRegistry,
    ToolResponse,
    Verdict,
    validate,
)
from toolresponse.agent import render_text, summarise
from toolresponse.testing import FakeClock
from toolresponse.tools._policy import AccessRequest, ApprovalRequest

AdvanceWhenWaiting = Callable[[FakeClock, float], threading.Thread]
"""The ``advance_when_waiting`` fixture of conftest."""

ACCESS = ErrorCode.ACCESS_DENIED
PERMISSION = ErrorCode.PERMISSION_DENIED


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    """Each test calls the registry once through ``execute`` and once through ``aexecute``."""
    value: str = request.param
    return value


def call(
    registry: ToolRegistry, mode: str, name: str, params: Any = None, *, caller: Any = LOCAL_CALLER
) -> ToolResponse:
    if mode == "sync":
        response = registry.execute(name, params, caller=caller)
    else:
        response = asyncio.run(registry.aexecute(name, params, caller=caller))
    assert [] == list(validate(response.to_dict()).errors)
    return response


def denial(response: ToolResponse) -> tuple[ErrorCode | None, str, dict[str, Any]]:
    """The code, the rule (``details.policy``) and the details of a refused call."""
    assert response.error_info is not None
    details = dict(response.error_info.details or {})
    return response.code, details.get("policy", ""), details


class Ran:
    """Counts the executions of the test tools, by name."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def hit(self, name: str) -> None:
        with self._lock:
            self.counts[name] = self.counts.get(name, 0) + 1


class Deploy(Tool):
    """A Tool subclass marked as writing by its class attribute."""

    name = "deploy"
    description = "Deploy the site."
    writes = True

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return ToolResponse.success("deployed")


def make_registry(ran: Ran, access: AccessControl | None, **options: Any) -> ToolRegistry:
    registry = ToolRegistry(access=access, **options)

    @registry.tool
    def read_file(path: str) -> str:
        """Read a file."""
        ran.hit("read_file")
        return f"contents of {path}"

    @registry.tool(writes=True)
    def write_file(path: str, text: str) -> str:
        """Write a file."""
        ran.hit("write_file")
        return "written"

    @registry.tool
    def remove_file(path: str) -> str:
        """Remove a file."""
        ran.hit("remove_file")
        return "removed"

    @registry.tool
    def copy(paths: list[str]) -> str:
        """Copy files."""
        ran.hit("copy")
        return "copied"

    registry.register(Deploy)
    return registry


@pytest.fixture
def ran() -> Ran:
    return Ran()


# -- allow and deny -----------------------------------------------------------------------------


def test_no_policy_allows_every_call(mode: str, ran: Ran) -> None:
    """An AccessControl without policies allows every call (the caller is still required)."""
    registry = make_registry(ran, AccessControl())
    assert "contents of a" == call(registry, mode, "read_file", {"path": "a"}).text
    assert {"read_file": 1} == ran.counts


HIDING = [
    pytest.param(AllowList(["read_*"]), "remove_file", LOCAL_CALLER, ACCESS, "allow_list", id="allow-list"),
    pytest.param(DenyList("remove_*"), "remove_file", LOCAL_CALLER, ACCESS, "deny_list", id="deny-list"),
    pytest.param(
        DenyList("remove_file", code=PERMISSION),
        "remove_file",
        "bob",
        PERMISSION,
        "deny_list",
        id="deny-code",
    ),
    pytest.param(
        AllowList("read_file", callers="guest-*"),
        "remove_file",
        "guest-7",
        ACCESS,
        "allow_list",
        id="per-caller",
    ),
    pytest.param(ReadOnly(), "write_file", LOCAL_CALLER, PERMISSION, "read_only", id="read-only-function"),
    pytest.param(ReadOnly(), "deploy", LOCAL_CALLER, PERMISSION, "read_only", id="read-only-tool-attribute"),
]
"""Policies that hide a tool from a caller: the policy, the tool, the caller, and the code and the
rule of the policy's own refusal."""


def _params_of(tool: str) -> dict[str, Any]:
    return {"path": "a", "text": "x"} if tool == "write_file" else {} if tool == "deploy" else {"path": "a"}


def _as_seen(response: ToolResponse) -> dict[str, Any]:
    """What the caller reads of an answer, but its timing."""
    seen = response.to_dict()
    del seen["stats"]["time_ms"]
    return seen


@pytest.mark.parametrize(("policy", "tool", "caller", "code", "rule"), HIDING)
def test_each_list_and_read_only_refuses_with_its_code_and_reason(
    policy: Any, tool: str, caller: str, code: ErrorCode, rule: str
) -> None:
    """Asked about a call it refuses, each built-in rule answers its code, its rule and a reason naming
    the tool and the caller (what a policy composed into another one sees)."""
    spec = make_registry(Ran(), None).spec(tool)
    assert spec is not None
    request = AccessRequest(
        caller=caller, tool=tool, params=_params_of(tool), writes=tool != "remove_file", spec=spec
    )
    decision = policy(request)
    assert (Verdict.DENY, code, rule) == (decision.verdict, decision.code, decision.rule)
    assert tool in decision.reason
    assert caller in decision.reason


@pytest.mark.parametrize(("policy", "tool", "caller", "code", "rule"), HIDING)
@pytest.mark.parametrize(
    "params",
    [
        pytest.param("valid", id="valid"),
        pytest.param({"path": 3, "text": 4, "extra": True}, id="invalid"),
        pytest.param('{"path": "a"', id="not-json"),
        pytest.param(None, id="none"),
    ],
)
def test_a_hidden_tool_is_answered_as_a_tool_that_is_not_there(
    mode: str, ran: Ran, policy: Any, tool: str, caller: str, code: ErrorCode, rule: str, params: Any
) -> None:
    """A call of a tool hidden from the caller gets, whatever its parameters, the very answer a
    registry without that tool gives the caller (NOT_FOUND, the same text and details, no schema):
    access is decided before the parameters are read, and the tool never runs. The policies after
    the hiding one are not asked; the listeners are told the rule that hid it."""
    params = _params_of(tool) if params == "valid" else params
    asked: list[AccessRequest] = []
    events: list[ToolCallEvent] = []
    registry = make_registry(ran, AccessControl(policy, asked.append))
    registry.add_listener(events.append)
    without = make_registry(Ran(), AccessControl(policy, asked.append))
    without.unregister(tool)
    response = call(registry, mode, tool, params, caller=caller)
    assert ErrorCode.NOT_FOUND == response.code
    assert _as_seen(call(without, mode, tool, params, caller=caller)) == _as_seen(response)
    assert ([], {}) == (asked, ran.counts)
    assert [(tool, ErrorCode.NOT_FOUND, rule)] == [(e.tool, e.code, e.denied_by) for e in events]


@pytest.mark.parametrize(("policy", "tool", "caller", "code", "rule"), HIDING)
def test_an_unknown_name_is_answered_with_the_tools_the_caller_may_see(
    mode: str, ran: Ran, policy: Any, tool: str, caller: str, code: ErrorCode, rule: str
) -> None:
    """A misspelt name is answered NOT_FOUND naming, in its text, ``details.available`` and
    ``details.suggestions``, only the tools the caller may see: never the hidden one it is closest
    to (which a registry without policies suggests)."""
    misspelt = tool[:-1]
    registry = make_registry(ran, AccessControl(policy))
    unguarded = call(make_registry(ran, None), mode, misspelt).error_info
    assert unguarded is not None
    assert tool == (unguarded.details or {})["suggestions"][0]
    response = call(registry, mode, misspelt, caller=caller)
    assert response.error_info is not None
    details = response.error_info.details or {}
    assert ErrorCode.NOT_FOUND == response.code
    assert registry.names(caller=caller) == details["available"]
    assert tool not in details["available"]
    assert tool not in details["suggestions"]
    assert tool not in re.findall(r"[\w-]+", response.text)


@pytest.mark.parametrize(
    ("policy", "tool", "caller"),
    [
        pytest.param(AllowList(["read_*"]), "read_file", LOCAL_CALLER, id="allow-list-match"),
        pytest.param(DenyList("remove_*"), "read_file", LOCAL_CALLER, id="deny-list-miss"),
        pytest.param(AllowList("read_file", callers="guest-*"), "remove_file", "alice", id="other-caller"),
        pytest.param(DenyList("*", callers="guest"), "remove_file", "guests", id="caller-pattern-exact"),
        pytest.param(ReadOnly(callers="guest"), "write_file", "alice", id="read-only-other-caller"),
        pytest.param(ReadOnly(), "read_file", LOCAL_CALLER, id="read-only-reading-tool"),
    ],
)
def test_an_allowed_call_runs(mode: str, ran: Ran, policy: Any, tool: str, caller: str) -> None:
    """A rule that does not concern the call lets it run."""
    registry = make_registry(ran, AccessControl(policy))
    params = {"path": "a", "text": "x"} if tool == "write_file" else {"path": "a"}
    assert call(registry, mode, tool, params, caller=caller).is_success
    assert {tool: 1} == ran.counts


def test_writes_given_at_registration_overrides_the_tool_attribute(mode: str, ran: Ran) -> None:
    """``register(writes=False)`` unmarks a Tool whose class says it writes; ``writes()`` tells."""
    registry = ToolRegistry(access=AccessControl(ReadOnly()))
    registry.register(Deploy(), writes=False)
    assert not registry.writes("deploy")
    assert call(registry, mode, "deploy").is_success
    registry.unregister("deploy")
    registry.register(Deploy())
    assert registry.writes("deploy")
    assert ErrorCode.NOT_FOUND == call(registry, mode, "deploy").code  # hidden by read-only mode


def test_policies_compose_and_the_first_deny_wins(mode: str, ran: Ran) -> None:
    """Policies are asked in order: the first deny decides, even after an ask or an allow."""
    asked: list[str] = []

    def note(name: str, decision: Decision | None) -> Callable[[AccessRequest], Decision | None]:
        def policy(request: AccessRequest) -> Decision | None:
            asked.append(name)
            return decision

        return policy

    access = AccessControl(
        note("allow", Decision.allow()),
        note("ask", Decision.ask("check it")),
        note("deny", Decision.deny("first", rule="mine")),
        note("later", Decision.deny("second", code=ACCESS)),
    )
    response = call(make_registry(ran, access), mode, "read_file", {"path": "a"})
    assert (PERMISSION, "mine") == denial(response)[:2]
    assert "first" == denial(response)[2]["reason"]
    assert ["allow", "ask", "deny"] == asked
    assert {} == ran.counts


def test_policy_sees_caller_tool_parsed_params_and_writes(mode: str, ran: Ran) -> None:
    """A policy gets the caller, the tool, its spec, writes and the parameters parsed from JSON text."""
    seen: list[AccessRequest] = []

    def record(request: AccessRequest) -> None:
        seen.append(request)
        request.params["path"] = "changed"  # a copy: the tool still gets what the caller sent

    registry = make_registry(ran, AccessControl(record))
    response = call(registry, mode, "write_file", '{"path": "a", "text": "x"}', caller="alice")
    assert response.is_success
    (request,) = seen
    assert ("alice", "write_file", True) == (request.caller, request.tool, request.writes)
    assert "write_file" == request.spec.name
    assert {"path": "a", "text": "x"} == response.context["params_input"]  # type: ignore[index]


def test_invalid_parameters_are_answered_without_asking_the_policies(mode: str, ran: Ran) -> None:
    """Parameters that break the schema are INVALID_PARAM (nothing runs); the policies are not asked."""
    seen: list[AccessRequest] = []
    registry = make_registry(ran, AccessControl(seen.append))
    assert ErrorCode.INVALID_PARAM == call(registry, mode, "read_file", {"path": 3}).code
    assert ([], {}) == (seen, ran.counts)


@pytest.mark.parametrize("caller", ["", None, 7])
def test_a_call_without_a_caller_identity_is_access_denied(mode: str, ran: Ran, caller: Any) -> None:
    """A caller that is not a non-empty string is refused ACCESS_DENIED (rule ``caller``)."""
    response = call(make_registry(ran, AccessControl()), mode, "read_file", {"path": "a"}, caller=caller)
    assert (ACCESS, "caller") == denial(response)[:2]
    assert {} == ran.counts


@pytest.mark.parametrize(
    "policy",
    [
        pytest.param(lambda request: 1 / 0, id="raises"),
        pytest.param(lambda request: "allow", id="not-a-decision"),
    ],
)
def test_a_failing_policy_fails_closed(mode: str, ran: Ran, policy: Any) -> None:
    """A policy that raises or answers something else denies the call PERMISSION_DENIED (rule ``error``)."""
    response = call(make_registry(ran, AccessControl(policy)), mode, "read_file", {"path": "a"})
    assert (PERMISSION, "error") == denial(response)[:2]
    assert {} == ran.counts


def test_decisions_and_policies_refuse_bad_definitions(tmp_path: Path) -> None:
    """A decision or a policy that cannot hold is refused when it is made, with what is wrong."""
    with pytest.raises(ValueError, match="ACCESS_DENIED or PERMISSION_DENIED"):
        Decision.deny("no", code=ErrorCode.NOT_FOUND)
    with pytest.raises(ValueError, match="only a denial has a code"):
        Decision(verdict=Verdict.ASK, code=ACCESS)
    with pytest.raises(TypeError, match="glob patterns"):
        AllowList([""])
    with pytest.raises(ValueError, match="is not a directory"):
        PathsWithin(tmp_path / "missing")
    with pytest.raises(ValueError, match="approval_timeout_s"):
        AccessControl(approval_timeout_s=float("inf"))
    with pytest.raises(TypeError, match="a policy must be a function"):
        AccessControl("read_*")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="access must be an AccessControl"):
        ToolRegistry(access=[ReadOnly()])  # type: ignore[arg-type]


# -- argument rules ---------------------------------------------------------------------------


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """``root/`` with a file, a link to a file outside and a link to the parent; ``outside.txt``."""
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "note.txt").write_text("in")
    (tmp_path / "outside.txt").write_text("out")
    (root / "escape.txt").symlink_to(tmp_path / "outside.txt")
    (root / "up").symlink_to(tmp_path, target_is_directory=True)
    return root


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        pytest.param("{root}/sub/note.txt", True, id="inside"),
        pytest.param("{root}/sub/../sub/new.txt", True, id="inside-not-yet-existing"),
        pytest.param("{root}", True, id="the-root-itself"),
        pytest.param("{root}/../outside.txt", False, id="dot-dot"),
        pytest.param("{root}/escape.txt", False, id="symlink-to-a-file-outside"),
        pytest.param("{root}/up/outside.txt", False, id="symlink-to-the-parent"),
        pytest.param("{root}x/file", False, id="sibling-with-the-same-prefix"),
        pytest.param("/etc/passwd", False, id="absolute-elsewhere"),
        pytest.param("sub/note.txt", True, id="relative-to-base"),
        pytest.param("up/outside.txt", False, id="relative-through-a-symlink"),
        pytest.param("a\x00b", False, id="nul-byte"),
    ],
)
def test_a_path_parameter_is_confined_to_its_directory(
    mode: str, ran: Ran, sandbox: Path, path: str, allowed: bool
) -> None:
    """PathsWithin resolves the path (symlinks followed) and refuses one that ends outside the root."""
    registry = make_registry(ran, AccessControl(PathsWithin(sandbox, base=sandbox)))
    response = call(registry, mode, "read_file", {"path": path.format(root=sandbox)})
    if allowed:
        assert response.is_success
        assert {"read_file": 1} == ran.counts
    else:
        code, rule, details = denial(response)
        assert (PERMISSION, "paths") == (code, rule)
        assert "parameter 'path'" in details["reason"]
        assert {} == ran.counts


def test_a_list_of_paths_is_checked_item_by_item(mode: str, ran: Ran, sandbox: Path) -> None:
    """A parameter holding a list of paths is refused when any one of them escapes."""
    registry = make_registry(ran, AccessControl(PathsWithin(sandbox, params=["path", "paths"])))
    inside = str(sandbox / "sub" / "note.txt")
    assert call(registry, mode, "copy", {"paths": [inside, inside]}).is_success
    response = call(registry, mode, "copy", {"paths": [inside, str(sandbox / "escape.txt")]})
    assert (PERMISSION, "paths") == denial(response)[:2]
    assert "outside" in denial(response)[2]["reason"]
    assert {"copy": 1} == ran.counts


class Move(Tool):
    """A tool whose path parameters have other names than ``path``, one of them with the characters
    of a glob pattern."""

    name = "move"
    description = "Move a file."
    parameters = MappingProxyType(
        {
            "type": "object",
            "properties": {
                "src_path": {"type": "string"},
                "dest_path": {"type": "string"},
                "backup[1]": {"type": "string"},
                "mode": {"type": "string"},
            },
        }
    )

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return ToolResponse.success("moved")


@pytest.mark.parametrize(
    ("params", "checked"),
    [
        pytest.param("*path", ["src_path", "dest_path"], id="a star"),
        pytest.param(["src_*", "dest_path"], ["src_path", "dest_path"], id="a pattern and a name"),
        pytest.param("?est_path", ["dest_path"], id="a question mark"),
        pytest.param("[sd]*_path", ["src_path", "dest_path"], id="a set"),
        pytest.param("backup[1]", ["backup[1]"], id="a name that reads as a pattern"),
        pytest.param("*", ["src_path", "dest_path", "backup[1]", "mode"], id="every parameter"),
    ],
)
def test_path_parameters_are_named_by_glob_patterns(
    mode: str, ran: Ran, sandbox: Path, params: Any, checked: list[str]
) -> None:
    """``params`` are names or glob patterns matched against each parameter of the call: every
    parameter a pattern matches is confined, one it does not match is not concerned; a name with
    a pattern's characters also matches itself."""
    registry = make_registry(ran, AccessControl(PathsWithin(sandbox, params=params)))
    registry.register(Move)
    inside = str(sandbox / "sub" / "note.txt")
    outside = str(sandbox.parent / "outside.txt")
    arguments = dict.fromkeys(("src_path", "dest_path", "backup[1]", "mode"), inside)
    assert call(registry, mode, "move", arguments).is_success
    refused: list[str] = []
    for name in arguments:
        response = call(registry, mode, "move", {**arguments, name: outside})
        if not response.is_success:
            code, rule, details = denial(response)
            assert (PERMISSION, "paths") == (code, rule)
            assert details["reason"].startswith(f"parameter {name!r}: ")
            refused.append(name)
    assert checked == refused


def test_a_relative_path_resolves_against_the_current_directory_by_default(
    mode: str, ran: Ran, sandbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``base``, a relative path resolves as a tool opening it would: from the current directory."""
    registry = make_registry(ran, AccessControl(PathsWithin(sandbox)))
    monkeypatch.chdir(sandbox / "sub")
    assert call(registry, mode, "read_file", {"path": "note.txt"}).is_success
    monkeypatch.chdir(sandbox.parent)
    assert PERMISSION == call(registry, mode, "read_file", {"path": "outside.txt"}).code


def test_an_argument_rule_checks_one_parameter(mode: str, ran: Ran) -> None:
    """ArgumentRule refuses, PERMISSION_DENIED, a value its check objects to; other values pass."""

    def no_secrets(value: Any) -> str | None:
        return "secret files are off limits" if "secret" in str(value) else None

    registry = make_registry(ran, AccessControl(ArgumentRule("path", no_secrets, tools="read_*")))
    assert call(registry, mode, "read_file", {"path": "notes.txt"}).is_success
    assert call(registry, mode, "remove_file", {"path": "secret.txt"}).is_success  # not a read_* tool
    response = call(registry, mode, "read_file", {"path": "secret.txt"})
    assert (PERMISSION, "arguments") == denial(response)[:2]
    assert "parameter 'path': secret files are off limits" == denial(response)[2]["reason"]


# -- asking a person ----------------------------------------------------------------------------


def _approver(answer: Any, kind: str, asked: list[ApprovalRequest]) -> Any:
    if kind == "sync":

        def approve(request: ApprovalRequest) -> Any:
            asked.append(request)
            return answer

        return approve

    async def aapprove(request: ApprovalRequest) -> Any:
        asked.append(request)
        await asyncio.sleep(0)
        return answer

    return aapprove


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_ask_approved_runs_the_call(mode: str, ran: Ran, kind: str) -> None:
    """A call a policy asks about runs once the approval hook (plain or async) says True."""
    asked: list[ApprovalRequest] = []
    access = AccessControl(RequireApproval(writes_only=True), approver=_approver(True, kind, asked))
    registry = make_registry(ran, access)
    assert call(registry, mode, "read_file", {"path": "a"}).is_success  # not writing: not asked
    response = call(registry, mode, "write_file", {"path": "a", "text": "x"}, caller="alice")
    assert "written" == response.text
    (request,) = asked
    assert ("alice", "write_file", "approval", 60.0) == (
        request.request.caller,
        request.request.tool,
        request.rule,
        request.timeout_s,
    )
    assert "write_file" in request.reason
    assert {"read_file": 1, "write_file": 1} == ran.counts


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize(
    ("answer", "code", "approval", "reason"),
    [
        pytest.param(False, PERMISSION, "refused", "a person refused the call", id="false"),
        pytest.param(
            Decision.deny("not on a Friday", code=ACCESS), ACCESS, "refused", "not on a Friday", id="a-denial"
        ),
        pytest.param("yes", PERMISSION, "failed", "not True, False or a Decision", id="not-an-answer"),
    ],
)
def test_ask_refused_is_a_denial(
    mode: str, ran: Ran, kind: str, answer: Any, code: ErrorCode, approval: str, reason: str
) -> None:
    """A refusal (False, a denial, or an answer that is none) denies the call: it never runs."""
    access = AccessControl(RequireApproval("write_*"), approver=_approver(answer, kind, []))
    response = call(make_registry(ran, access), mode, "write_file", {"path": "a", "text": "x"})
    got_code, rule, details = denial(response)
    assert (code, "approval", approval) == (got_code, rule, details.get("approval"))
    assert reason in details["reason"]
    assert {} == ran.counts


def test_ask_without_an_approver_is_refused(mode: str, ran: Ran) -> None:
    """With no approval hook, a call that needs approval is refused (approval ``unavailable``)."""
    response = call(make_registry(ran, AccessControl(RequireApproval())), mode, "read_file", {"path": "a"})
    code, rule, details = denial(response)
    assert (PERMISSION, "approval", "unavailable") == (code, rule, details["approval"])
    assert {} == ran.counts


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_approver_that_raises_refuses(mode: str, ran: Ran, kind: str) -> None:
    """An approval hook that raises fails closed: refused, approval ``failed``, the error named."""

    def broken(request: ApprovalRequest) -> bool:
        raise RuntimeError("the prompt window crashed")

    async def abroken(request: ApprovalRequest) -> bool:
        raise RuntimeError("the prompt window crashed")

    access = AccessControl(RequireApproval(), approver=broken if kind == "sync" else abroken)
    response = call(make_registry(ran, access), mode, "read_file", {"path": "a"})
    code, _, details = denial(response)
    assert (PERMISSION, "failed") == (code, details["approval"])
    assert "RuntimeError: the prompt window crashed" in details["reason"]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_ask_timed_out_is_a_denial(
    mode: str,
    ran: Ran,
    kind: str,
    release: threading.Event,
    advance_when_waiting: AdvanceWhenWaiting,
) -> None:
    """No answer within approval_timeout_s (on the registry's injected clock) denies the call."""
    clock = FakeClock()

    def hang(request: ApprovalRequest) -> bool:
        release.wait()
        return True

    async def ahang(request: ApprovalRequest) -> bool:
        await asyncio.Event().wait()
        return True

    access = AccessControl(
        RequireApproval(), approver=hang if kind == "sync" else ahang, approval_timeout_s=30
    )
    registry = make_registry(ran, access, clock=clock, wait=clock.wait, async_wait=clock.async_wait)
    advancer = advance_when_waiting(clock, 30)
    response = call(registry, mode, "read_file", {"path": "a"})
    advancer.join()
    code, rule, details = denial(response)
    assert (PERMISSION, "approval", "timed_out", 30.0) == (
        code,
        rule,
        details["approval"],
        details["timeout_s"],
    )
    assert "within 30 s" in details["reason"]
    assert 30_000.0 == response.stats["time_ms"]  # type: ignore[index]
    assert {} == ran.counts


# -- what sees a denial ---------------------------------------------------------------------------


def _refuse_removals(request: AccessRequest) -> Decision | None:
    return Decision.deny("no removals", code=ACCESS) if request.tool == "remove_file" else None


@pytest.mark.parametrize(
    ("policy", "code"),
    [
        pytest.param(_refuse_removals, ACCESS, id="denied"),
        pytest.param(DenyList("remove_file"), ErrorCode.NOT_FOUND, id="hidden"),
    ],
)
def test_a_denied_call_leaves_the_breaker_untouched(
    mode: str, ran: Ran, policy: Any, code: ErrorCode
) -> None:
    """Denials (and calls of a hidden tool) are not failures the breaker counts: with a threshold of
    1, the circuit stays closed."""
    clock = FakeClock()
    breaker = CircuitBreaker(failure_threshold=1, recovery_timeout_s=10, clock=clock)
    registry = make_registry(ran, AccessControl(policy), breaker=breaker, clock=clock)
    for _ in range(3):
        assert code == call(registry, mode, "remove_file", {"path": "a"}).code
    assert {} == breaker.statuses()
    assert CircuitState.CLOSED == breaker.state("remove_file")


def test_a_denial_does_not_take_the_half_open_probe(mode: str, ran: Ran) -> None:
    """A denied call (here of a tool hidden from the caller) while the circuit is half-open leaves the
    probe to the next allowed call."""
    clock = FakeClock()
    breaker = CircuitBreaker(failure_threshold=1, recovery_timeout_s=10, clock=clock)
    access = AccessControl(DenyList("read_file", callers="guest"))
    registry = make_registry(ran, access, breaker=breaker, clock=clock)
    breaker.open("read_file")
    clock.advance(10)
    assert ErrorCode.NOT_FOUND == call(registry, mode, "read_file", {"path": "a"}, caller="guest").code
    assert call(registry, mode, "read_file", {"path": "a"}).is_success
    assert CircuitState.CLOSED == breaker.state("read_file")


def test_listeners_and_the_trace_see_a_denial_and_the_report_counts_it(
    mode: str, ran: Ran, tmp_path: Path
) -> None:
    """The ToolCallEvent names the rule (``denied_by``), also of a hidden tool's call (answered as an
    unknown tool's) and of a denial; the JSONL trace keeps it; the report counts it."""
    events: list[ToolCallEvent] = []
    path = tmp_path / "registry.jsonl"
    writer = JsonlTraceWriter(path)
    no_copies = ArgumentRule("paths", lambda paths: "no copies", tools="copy")
    registry = make_registry(
        ran, AccessControl(DenyList("remove_file"), ReadOnly(callers="guest"), no_copies)
    )
    registry.add_listener(events.append)
    registry.add_listener(writer)
    call(registry, mode, "remove_file", {"path": "a"})
    call(registry, mode, "write_file", {"path": "a", "text": "x"}, caller="guest")
    call(registry, mode, "copy", {"paths": ["a"]})
    call(registry, mode, "read_file", {"path": "a"})
    call(registry, mode, "missing")
    writer.close()
    expected = [
        ("remove_file", "deny_list"),
        ("write_file", "read_only"),
        ("copy", "arguments"),
        ("read_file", None),
        ("missing", None),
    ]
    assert expected == [(event.tool, event.denied_by) for event in events]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [rule for _, rule in expected] == [line.get("denied_by") for line in lines]
    assert ["NOT_FOUND", "NOT_FOUND", "PERMISSION_DENIED", None, "NOT_FOUND"] == [
        line["code"] for line in lines
    ]
    summary = summarise([path])
    assert (1, 1, 1, 0, 0) == tuple(sum(summary.tools[name].denied_by_rule.values()) for name, _ in expected)
    assert {"read_only": 1} == summary.tools["write_file"].denied_by_rule
    text = render_text(summary)
    assert "remove_file: 1 denied (deny_list 1)" in text.splitlines()
    assert "write_file: 1 denied (read_only 1)" in text.splitlines()
    assert "copy: 1 denied (arguments 1)" in text.splitlines()


def test_a_tools_own_denial_is_counted_by_the_report(tmp_path: Path) -> None:
    """A PERMISSION_DENIED the tool itself answered is a denial too, named ``(tool)`` in the report."""
    registry = ToolRegistry()

    @registry.tool
    def read_file(path: str) -> ToolResponse:
        return ToolResponse.error(PERMISSION, f"{path}: permission denied by the file system")

    stream = io.StringIO()
    registry.add_listener(JsonlTraceWriter(stream))
    registry.execute("read_file", {"path": "/root/x"})
    path = tmp_path / "t.jsonl"
    path.write_text(stream.getvalue())
    assert {"(tool)": 1} == summarise([path]).tools["read_file"].denied_by_rule


def test_the_registry_without_access_control_ignores_the_caller(mode: str, ran: Ran) -> None:
    """A registry built without ``access`` runs every call, whatever ``caller`` says."""
    registry = make_registry(ran, None)
    assert call(registry, mode, "remove_file", {"path": "a"}, caller="anyone").is_success
    assert registry.access is None


def test_policies_are_safe_to_share_between_threads(ran: Ran) -> None:
    """Concurrent calls of several callers each get their own decision."""
    registry = make_registry(ran, AccessControl(AllowList("read_*", callers="guest-*")))
    results: dict[str, ErrorCode | None] = {}

    def worker(index: int) -> None:
        caller = f"guest-{index}" if index % 2 else f"staff-{index}"
        results[caller] = registry.execute("remove_file", {"path": "a"}, caller=caller).code

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {name: (ErrorCode.NOT_FOUND if name.startswith("guest") else None) for name in results} == results
    assert {"remove_file": 4} == ran.counts


def test_the_root_directory_in_a_reason_is_the_resolved_one(mode: str, ran: Ran, tmp_path: Path) -> None:
    """A root given through a symlink is resolved once, so that the comparison holds."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    registry = make_registry(ran, AccessControl(PathsWithin(tmp_path / "alias")))
    assert call(registry, mode, "read_file", {"path": os.fspath(real / "x")}).is_success
    response = call(registry, mode, "read_file", {"path": os.fspath(tmp_path / "y")})
    assert str(real) in denial(response)[2]["reason"]


# -- the security page's example --------------------------------------------------------------------

SECURITY_DOC = Path(__file__).resolve().parent.parent / "docs" / "security.md"


def test_the_security_page_example_uses_names_and_arguments_that_exist() -> None:
    """The Python example of docs/security.md imports public names and passes arguments they take
    (read from its syntax tree, never run)."""
    (block,) = re.findall(r"```python\n(.*?)```", SECURITY_DOC.read_text(encoding="utf-8"), re.DOTALL)
    tree = ast.parse(block)
    imported = {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    problems: list[str] = [name for name in sorted(imported) if not hasattr(toolresponse, name)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported:
            parameters = inspect.signature(getattr(toolresponse, node.func.id)).parameters
            problems += [
                f"{node.func.id}({keyword.arg}=)"
                for keyword in node.keywords
                if keyword.arg is not None and keyword.arg not in parameters
            ]
    assert [] == problems
    assert {"AccessControl", "ToolRegistry"} <= imported


# -- listing: which tools a caller sees ------------------------------------------------------


def _listed_registry(*policies: Any) -> ToolRegistry:
    registry = ToolRegistry(access=AccessControl(*policies))

    @registry.tool
    def read(path: str) -> str:
        """Read a file."""
        return path

    @registry.tool(writes=True)
    def write(path: str) -> str:
        """Write a file."""
        return path

    class Remove(Tool):
        name = "remove"
        description = "Remove a file."
        writes = True

        def run(self, params: dict[str, Any]) -> ToolResponse:
            return ToolResponse.success("removed")

    registry.register(Remove)
    return registry


@pytest.mark.parametrize(
    ("policies", "caller", "listed"),
    [
        pytest.param((), "anonymous", ["read", "write", "remove"], id="no policies: everything"),
        pytest.param((DenyList("write"),), "anonymous", ["read", "remove"], id="a deny-list hides"),
        pytest.param(
            (DenyList("w*", callers="guest"),),
            "bearer",
            ["read", "write", "remove"],
            id="another's deny-list",
        ),
        pytest.param(
            (AllowList("read", callers="guest"),), "guest", ["read"], id="an allow-list hides the rest"
        ),
        pytest.param(
            (AllowList("read", callers="guest"),),
            "bearer",
            ["read", "write", "remove"],
            id="another's allow-list",
        ),
        pytest.param((ReadOnly(),), "anonymous", ["read"], id="read-only hides the writing tools"),
        pytest.param(
            (ArgumentRule("path", lambda value: "no"), PathsWithin(".")),
            "anonymous",
            ["read", "write", "remove"],
            id="argument rules hide nothing",
        ),
        pytest.param(
            (RequireApproval(),), "anonymous", ["read", "write", "remove"], id="approvals hide nothing"
        ),
        pytest.param(
            (lambda request: Decision.deny("no"),), "anonymous", ["read", "write", "remove"], id="a function"
        ),
    ],
)
def test_a_listing_shows_the_tools_the_caller_may_call(
    policies: tuple[Any, ...], caller: str, listed: list[str]
) -> None:
    """``list_tools(caller=...)``, ``names(caller=...)`` and ``tool_schemas(..., caller=...)`` leave out
    what a deny-list, an allow-list or read-only mode would refuse that caller whatever the arguments;
    a rule that depends on the arguments, or a plain function, hides nothing."""
    registry = _listed_registry(*policies)
    assert listed == [spec.name for spec in registry.list_tools(caller=caller)]
    assert listed == registry.names(caller=caller)
    assert listed == [entry["name"] for entry in registry.tool_schemas("mcp", caller=caller)]
    assert ["read", "write", "remove"] == registry.names()


def test_a_listing_policy_that_fails_hides_the_tool(caplog: pytest.LogCaptureFixture) -> None:
    """A ``may_list`` that raises, or answers something other than a bool, hides the tool (and is logged);
    a caller that is not an identity sees nothing."""

    class Broken:
        def __call__(self, request: AccessRequest, /) -> Decision | None:
            return None

        def may_list(self, caller: str, spec: Any, writes: bool, /) -> bool:
            if spec.name == "read":
                raise RuntimeError("broken")
            return "yes" if spec.name == "write" else True  # type: ignore[return-value]

    registry = _listed_registry(Broken())
    assert ["remove"] == registry.names(caller="anonymous")
    assert 2 == len([record for record in caplog.records if record.levelname == "ERROR"])
    assert [] == registry.names(caller="")


def test_a_tool_class_declares_whether_it_writes() -> None:
    """``Tool.writes`` is False unless a class says otherwise; ``register(..., writes=True)`` marks one
    registration without changing the class."""
    registry = _listed_registry()
    assert False is Tool.writes
    assert (False, True, True) == tuple(registry.writes(name) for name in ("read", "write", "remove"))
    assert False is registry.get("write").writes  # type: ignore[union-attr]
