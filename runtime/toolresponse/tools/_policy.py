"""Access policies: who may call which tool with which arguments, and asking a person first.

A ``ToolRegistry`` built with ``access=AccessControl(policy, ..., approver=...)``
asks its policies about every call once the tool is found and before the
circuit breaker is asked::

    lookup -> hidden? -> policies -> (a person, when a policy asks) -> breaker -> parameters, run ...

A tool hidden from the caller (see Hiding, below) is, to that caller, not there:
its call is answered as a call of a tool the registry does not have, before its
parameters are read, and no policy is asked.

Each policy is called with an ``AccessRequest``: who calls (``caller``: a
token's subject given by a face, ``LOCAL_CALLER`` for a call made in-process),
the tool (its name, its ``ToolSpec`` and whether it writes) and the parsed
parameters (a copy; parameters that do not satisfy the schema are answered
INVALID_PARAM by the call itself, which runs nothing, without asking the
policies). A policy answers a ``Decision``, or None for no objection:

* ``Decision.allow()``;
* ``Decision.deny(reason, code=...)``: ``ACCESS_DENIED`` (who the caller is may
  not use this tool) or ``PERMISSION_DENIED`` (what was asked is refused);
* ``Decision.ask(reason)``: a person decides, through the approval hook.

Several policies compose in order: the first deny wins; else the call is
asked about when any policy asked; else it is allowed. The built-in
policies: ``AllowList`` and ``DenyList`` (tools by name or glob pattern, per
caller pattern), ``ArgumentRule`` and ``PathsWithin`` (a path parameter
confined to a directory, symlinks resolved), ``ReadOnly`` (refuses tools that
write: ``ToolRegistry.register(..., writes=True)`` or a Tool class attribute
``writes = True``) and ``RequireApproval``.

The approval hook (``Approver``: a function, synchronous or asynchronous) gets
an ``ApprovalRequest`` and answers True (approved), False (refused) or a
``Decision``. It is waited for at most ``approval_timeout_s`` seconds, with
the registry's injected ``wait``/``async_wait``, so that tests do not sleep.

A denied call never runs and never reaches the breaker. Its answer is an
error ToolResponse whose ``details`` say why::

    {"policy": "deny_list", "reason": "tool 'rm' is on the deny-list of caller 'local'",
     "caller": "local"}

``details.policy`` names the rule (``allow_list``, ``deny_list``, ``arguments``,
``paths``, ``read_only``, ``approval``, ``caller``, ``error``, or a custom
policy's own); for an approval, ``details.approval`` is ``refused``,
``timed_out`` (with ``timeout_s``), ``unavailable`` (no hook) or ``failed``.
A policy or hook that raises, or answers something that is not a decision,
fails closed: the call is denied ``PERMISSION_DENIED`` with policy ``error``
(or approval ``failed``), and the exception is logged.

The listeners' ``ToolCallEvent`` of a denied call has ``denied_by`` set to the rule.

Hiding: ``AccessControl.visible(caller, spec, writes=...)`` says whether a caller may see a
tool: in a listing (``ToolRegistry.list_tools(caller=...)``, what the MCP ``tools/list`` and
HTTP ``GET /tools`` show) and as a tool at all. It is asked without parameters, so only a
policy whose answer does not depend on them can hide a tool: one with a ``may_list(caller,
spec, writes)`` method that answers False when it would refuse every call of that tool by that
caller. ``AllowList``, ``DenyList`` and ``ReadOnly`` have one (they hide what they would
refuse); argument rules and approvals do not (a call may pass them), nor does a plain
function. A ``may_list`` that raises hides the tool. A call of a hidden tool, whatever its
parameters, gets the answer of a call of an unknown tool (``NOT_FOUND``, naming and suggesting
only the tools the caller may see), so that a caller cannot tell a hidden tool from one that is
not there nor read its schema; the listeners' event names the rule that hid it in ``denied_by``
(``AccessControl.hidden_by``). Such a policy's own refusal (its ``code``, its reason) is what
it answers when asked directly, as by a policy that composes it.

The policies read the parameters once, before the call; the tool then runs on them as the
caller passed them (JSON text parsed again to the same value). An in-process caller that
changes its own dict while its call is checked is trusted like any code of the process.
"""

from __future__ import annotations

import asyncio
import fnmatch
import inspect
import logging
import os
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Final, Protocol

from toolresponse_generated import ErrorCode

from .._response import ToolResponse
from .._suggest import is_finite_number
from ._tool import (
    AsyncWait,
    PreparedTool,
    Tool,
    ToolSpec,
    ToolThreads,
    Wait,
    _captured,
    _Coroutine,
    _Raised,
    _safe,
)

__all__ = [
    "DENIAL_CODES",
    "LOCAL_CALLER",
    "AccessControl",
    "AccessRequest",
    "AllowList",
    "ApprovalRequest",
    "Approver",
    "ArgumentRule",
    "Decision",
    "DenyList",
    "PathsWithin",
    "Policy",
    "ReadOnly",
    "RequireApproval",
    "Verdict",
]

_log = logging.getLogger("toolresponse")

_APPROVALS = ToolThreads("approval")
"""The threads approval hooks run on, so that a person's slow answer blocks no caller's loop."""

LOCAL_CALLER: Final = "local"
"""The identity of a call made in-process (the registry's default ``caller``)."""

DENIAL_CODES: Final = frozenset({ErrorCode.ACCESS_DENIED, ErrorCode.PERMISSION_DENIED})
"""The two codes a denial answers with."""

DEFAULT_APPROVAL_TIMEOUT_S: Final = 60.0

_REASON_LIMIT = 500


class Verdict(StrEnum):
    """What a policy decided."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


@dataclass(frozen=True, kw_only=True, slots=True)
class Decision:
    """A policy's answer: allow, deny (with the code and the reason), or ask a person (and why).

    ``rule`` names what decided, for ``details.policy`` and the event's ``denied_by``.
    Build one with ``Decision.allow()``, ``Decision.deny(...)`` or ``Decision.ask(...)``.
    """

    verdict: Verdict
    reason: str = ""
    code: ErrorCode | None = None
    """The denial's code (ACCESS_DENIED or PERMISSION_DENIED); None unless denied."""
    rule: str = "policy"

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            raise TypeError(f"verdict must be a Verdict, not {self.verdict!r}")
        if not isinstance(self.reason, str) or not isinstance(self.rule, str) or not self.rule:
            raise TypeError("a decision's reason must be a string and its rule a non-empty string")
        if self.verdict is Verdict.DENY:
            if self.code not in DENIAL_CODES:
                raise ValueError(f"a denial's code is ACCESS_DENIED or PERMISSION_DENIED, not {self.code!r}")
        elif self.code is not None:
            raise ValueError(f"only a denial has a code; this decision is {self.verdict.value}")

    @classmethod
    def allow(cls) -> Decision:
        return ALLOW

    @classmethod
    def deny(
        cls, reason: str, *, code: ErrorCode = ErrorCode.PERMISSION_DENIED, rule: str = "policy"
    ) -> Decision:
        """Refuse the call: ``code`` is ACCESS_DENIED (who) or PERMISSION_DENIED (what)."""
        return cls(verdict=Verdict.DENY, reason=reason, code=code, rule=rule)

    @classmethod
    def ask(cls, reason: str, *, rule: str = "policy") -> Decision:
        """Let a person decide (the registry's approval hook), telling them ``reason``."""
        return cls(verdict=Verdict.ASK, reason=reason, rule=rule)


ALLOW: Final = Decision(verdict=Verdict.ALLOW)


@dataclass(frozen=True, kw_only=True, slots=True)
class AccessRequest:
    """What a policy is asked about: one call, before it runs."""

    caller: str
    """Who calls: a token's subject given by a face, ``"local"`` in-process."""
    tool: str
    params: dict[str, Any]
    """The parsed parameters (they satisfy the tool's schema); a copy, so changing it changes nothing."""
    writes: bool
    """Whether the tool is marked as writing (changing state)."""
    spec: ToolSpec
    call_id: str | None = None


class Policy(Protocol):
    """Anything called with an ``AccessRequest`` that answers a ``Decision`` (or None: no objection)."""

    def __call__(self, request: AccessRequest, /) -> Decision | None: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class ApprovalRequest:
    """What the approval hook is asked: the call, why a policy wants a person to decide, and how
    long the registry waits for the answer."""

    request: AccessRequest
    reason: str
    rule: str
    timeout_s: float


class Approver(Protocol):
    """A person's decision on a call: True (approved), False (refused) or a ``Decision``;
    a plain or an async function."""

    def __call__(self, request: ApprovalRequest, /) -> bool | Decision | Awaitable[bool | Decision]: ...


# -- patterns ------------------------------------------------------------------------------------


class _Glob:
    """Names or glob patterns (``fnmatch``, case-sensitive), one string or several, compiled once."""

    __slots__ = ("_match", "patterns")

    def __init__(self, value: str | Iterable[str], what: str) -> None:
        items = (value,) if isinstance(value, str) else tuple(value)
        for item in items:
            if not isinstance(item, str) or not item:
                raise TypeError(f"{what} must be non-empty strings (names or glob patterns), not {item!r}")
        self.patterns: tuple[str, ...] = items
        if "*" in items:
            self._match: Callable[[str], bool] = lambda name: True
        else:
            regex = re.compile("|".join(f"(?:{fnmatch.translate(item)})" for item in items) or "(?!)")
            self._match = lambda name: regex.match(name) is not None

    def __call__(self, name: str) -> bool:
        return self._match(name)

    def __repr__(self) -> str:
        return repr(list(self.patterns))


class _Scoped:
    """A rule that applies to some callers (and some tools) only: glob patterns, ``*`` for all."""

    def __init__(self, tools: str | Iterable[str], callers: str | Iterable[str]) -> None:
        self.tools = _Glob(tools, "tools")
        self.callers = _Glob(callers, "callers")

    def applies(self, request: AccessRequest) -> bool:
        return self.callers(request.caller) and self.tools(request.tool)


def _denial_code(code: Any) -> ErrorCode:
    if code not in DENIAL_CODES:
        raise ValueError(f"code must be ErrorCode.ACCESS_DENIED or ErrorCode.PERMISSION_DENIED, not {code!r}")
    checked: ErrorCode = code
    return checked


# -- the built-in policies -----------------------------------------------------------------------


class _ToolList:
    """What an allow-list and a deny-list share: the tools and callers they match, the refusal's
    code and wording; a list says only which calls it lets through (``_lets``)."""

    rule: ClassVar[str]
    """``details.policy`` of a refusal, and what a hidden tool's call names as ``denied_by``."""
    _REFUSAL: ClassVar[str]
    """Where a refused tool stands, in the refusal's reason ("is on the deny-list")."""

    def __init__(
        self,
        tools: str | Iterable[str],
        *,
        callers: str | Iterable[str] = "*",
        code: ErrorCode = ErrorCode.ACCESS_DENIED,
    ) -> None:
        self.tools = _Glob(tools, "tools")
        self.callers = _Glob(callers, "callers")
        self.code = _denial_code(code)

    def _lets(self, caller: str, tool: str) -> bool:
        raise NotImplementedError

    def may_list(self, caller: str, spec: ToolSpec, writes: bool, /) -> bool:
        return self._lets(caller, spec.name)

    def __call__(self, request: AccessRequest, /) -> Decision | None:
        if self._lets(request.caller, request.tool):
            return None
        return Decision.deny(
            f"tool {request.tool!r} {self._REFUSAL} of caller {request.caller!r}",
            code=self.code,
            rule=self.rule,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.tools!r}, callers={self.callers!r})"


class AllowList(_ToolList):
    """Callers matching ``callers`` may call only the tools matching ``tools``; other callers are
    not concerned. The other tools are hidden from them (see the module's docstring); asked
    directly, it refuses ACCESS_DENIED unless ``code`` says otherwise."""

    rule = "allow_list"
    _REFUSAL = "is not on the allow-list"

    def _lets(self, caller: str, tool: str) -> bool:
        return not self.callers(caller) or self.tools(tool)


class DenyList(_ToolList):
    """Callers matching ``callers`` may not call the tools matching ``tools``, which are hidden from
    them (see the module's docstring); asked directly, it refuses ACCESS_DENIED unless ``code``
    says otherwise."""

    rule = "deny_list"
    _REFUSAL = "is on the deny-list"

    def _lets(self, caller: str, tool: str) -> bool:
        return not (self.callers(caller) and self.tools(tool))


class ArgumentRule(_Scoped):
    """A check of one parameter: ``check(value)`` returns None when the value is acceptable, else
    the reason it is not (the call is then denied PERMISSION_DENIED). A call without the
    parameter is not concerned."""

    def __init__(
        self,
        param: str,
        check: Callable[[Any], str | None],
        *,
        tools: str | Iterable[str] = "*",
        callers: str | Iterable[str] = "*",
        code: ErrorCode = ErrorCode.PERMISSION_DENIED,
        rule: str = "arguments",
    ) -> None:
        super().__init__(tools, callers)
        if not isinstance(param, str) or not param:
            raise TypeError(f"param must be a parameter name, not {param!r}")
        if not callable(check):
            raise TypeError(f"check must be a function of the parameter's value, not {check!r}")
        self.param = param
        self.check = check
        self.code = _denial_code(code)
        self.rule = rule

    def __call__(self, request: AccessRequest, /) -> Decision | None:
        if self.param not in request.params or not self.applies(request):
            return None
        problem = self.check(request.params[self.param])
        if problem is None:
            return None
        if not isinstance(problem, str):
            raise TypeError(f"the check of {self.param!r} returned {type(problem).__name__}, not str or None")
        return Decision.deny(f"parameter {self.param!r}: {problem}", code=self.code, rule=self.rule)


class PathsWithin(_Scoped):
    """Path parameters confined to a directory: each parameter of a call that ``params`` names (a
    string, or a list of strings) must name ``root`` or something under it once resolved,
    symlinks followed (``Path.resolve()`` then ``is_relative_to``); else PERMISSION_DENIED.

    ``params`` are names or glob patterns (``fnmatch``, case-sensitive, as ``tools`` and
    ``callers`` are), matched against the names of the call's top-level parameters, so one rule
    covers tools that name their paths differently (``"*path"``: ``path``, ``src_path``,
    ``dest_path``); a name that holds a pattern's characters (``backup[1]``) also matches itself.

    A relative path is resolved against ``base`` (default: the current directory at the time of
    the call, as a tool opening it would). The check is made when the call is asked about: a
    tool that opens the path later follows the links as they are then, so a directory that
    others can change under the call is not a boundary this rule can hold.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        params: str | Iterable[str] = "path",
        *,
        tools: str | Iterable[str] = "*",
        callers: str | Iterable[str] = "*",
        base: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__(tools, callers)
        self.params = _Glob(params, "params")
        self._names = frozenset(self.params.patterns)
        self.root = _directory(root, "root")
        self.base = None if base is None else _directory(base, "base")

    def __repr__(self) -> str:
        return f"PathsWithin({str(self.root)!r}, params={self.params!r})"

    def __call__(self, request: AccessRequest, /) -> Decision | None:
        if not self.applies(request):
            return None
        for name, value in request.params.items():
            if name not in self._names and not self.params(name):
                continue
            values = value if isinstance(value, list) else [value]
            for item in values:
                problem = self._problem(item)
                if problem is not None:
                    return Decision.deny(
                        f"parameter {name!r}: {problem}", code=ErrorCode.PERMISSION_DENIED, rule="paths"
                    )
        return None

    def _problem(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"{_shown(value)} is not a path"
        path = Path(value)
        if self.base is not None and not path.is_absolute():
            path = self.base / path
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError, ValueError) as error:  # a NUL byte, a symlink loop ...
            return f"{_shown(value)} cannot be resolved ({type(error).__name__}: {error})"
        if resolved.is_relative_to(self.root):
            return None
        return f"{_shown(value)} resolves to {str(resolved)!r}, outside {str(self.root)!r}"


def _directory(value: Any, what: str) -> Path:
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{what} must be a directory path, not {type(value).__name__}")
    path = Path(value).resolve()
    if not path.is_dir():
        raise ValueError(f"{what} {str(value)!r} is not a directory")
    return path


class ReadOnly:
    """Callers matching ``callers`` may not call tools marked as writing, which are hidden from them
    (see the module's docstring); asked directly, it refuses PERMISSION_DENIED."""

    rule: ClassVar[str] = "read_only"

    def __init__(self, *, callers: str | Iterable[str] = "*") -> None:
        self.callers = _Glob(callers, "callers")

    def __repr__(self) -> str:
        return f"ReadOnly(callers={self.callers!r})"

    def may_list(self, caller: str, spec: ToolSpec, writes: bool, /) -> bool:
        return not (writes and self.callers(caller))

    def __call__(self, request: AccessRequest, /) -> Decision | None:
        if not request.writes or not self.callers(request.caller):
            return None
        return Decision.deny(
            f"tool {request.tool!r} writes, and tools are read-only for caller {request.caller!r}",
            code=ErrorCode.PERMISSION_DENIED,
            rule=self.rule,
        )


class RequireApproval(_Scoped):
    """A person approves each call of the tools matching ``tools`` (of the callers matching
    ``callers``; with ``writes_only``, of the tools marked as writing only) before it runs."""

    def __init__(
        self,
        tools: str | Iterable[str] = "*",
        *,
        callers: str | Iterable[str] = "*",
        writes_only: bool = False,
        reason: str | None = None,
    ) -> None:
        super().__init__(tools, callers)
        self.writes_only = bool(writes_only)
        self.reason = reason

    def __call__(self, request: AccessRequest, /) -> Decision | None:
        if not self.applies(request) or (self.writes_only and not request.writes):
            return None
        what = (
            f"tool {request.tool!r} writes, so each call"
            if request.writes
            else f"each call of tool {request.tool!r}"
        )
        reason = self.reason or f"{what} needs a person's approval"

        return Decision.ask(reason, rule="approval")


def _shown(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # a value whose __repr__ itself fails
        text = f"<{type(value).__name__}>"
    return _safe(text, 200)


def _identity(caller: Any) -> str:
    """The caller as ``details.caller`` shows it: the identity, or what was given instead."""
    return caller if type(caller) is str and caller else _shown(caller)


# -- deciding ------------------------------------------------------------------------------------


def _asked(policy: Policy, request: AccessRequest) -> Decision:
    """The policy's decision; one that raises or answers something else fails closed."""
    try:
        decision = policy(request)
    except Exception as error:
        _log.error("the access policy %r failed on a call of tool %r", policy, request.tool, exc_info=error)
        return _failed(policy, f"{type(error).__name__}: {error}")
    if decision is None:
        return ALLOW
    if not isinstance(decision, Decision):
        return _failed(policy, f"it answered {type(decision).__name__}, not a Decision")
    return decision


def _failed(policy: Any, why: str) -> Decision:
    name = type(policy).__name__ if not inspect.isfunction(policy) else policy.__qualname__
    return Decision.deny(
        f"the access policy {name} failed ({why}), so the call is refused",
        code=ErrorCode.PERMISSION_DENIED,
        rule="error",
    )


def decide(policies: Iterable[Policy], request: AccessRequest) -> Decision:
    """The policies' decision in order: the first deny; else the first ask; else allow."""
    ask: Decision | None = None
    for policy in policies:
        decision = _asked(policy, request)
        if decision.verdict is Verdict.DENY:
            return decision
        if decision.verdict is Verdict.ASK and ask is None:
            ask = decision
    return ask or ALLOW


@dataclass(frozen=True, slots=True)
class Hidden:
    """A call of a tool the caller may not see: the registry answers it as it answers a call of a
    tool it does not have, and tells its listeners ``rule`` (the rule that hid the tool)."""

    rule: str


@dataclass(frozen=True, slots=True)
class Denial:
    """A refused call's answer (already timed, with its context) and the rule that refused it."""

    response: ToolResponse
    rule: str


class AccessControl:
    """The policies of a registry and how a person is asked: ``ToolRegistry(access=...)``.

    ``policies`` are asked in order (see ``decide``); none at all allows every call.
    ``approver`` answers the calls a policy asks about, within ``approval_timeout_s``
    seconds; without an approver, such calls are refused.
    """

    def __init__(
        self,
        *policies: Policy,
        approver: Approver | None = None,
        approval_timeout_s: float = DEFAULT_APPROVAL_TIMEOUT_S,
    ) -> None:
        for policy in policies:
            if not callable(policy):
                raise TypeError(f"a policy must be a function of an AccessRequest, not {policy!r}")
        if approver is not None and not callable(approver):
            raise TypeError(f"approver must be a function of an ApprovalRequest, not {approver!r}")
        timeout = approval_timeout_s
        if not is_finite_number(timeout) or timeout <= 0:
            raise ValueError(f"approval_timeout_s must be a finite number of seconds > 0, not {timeout!r}")
        self.policies = policies
        self.approver = approver
        self.approval_timeout_s = float(timeout)
        self._async_approver = approver is not None and _is_async(approver)

    def __repr__(self) -> str:
        return f"AccessControl({', '.join(map(repr, self.policies))})"

    def visible(self, caller: str, spec: ToolSpec, *, writes: bool = False) -> bool:
        """Whether ``caller`` may see the tool ``spec``: in a listing, and as a tool at all (see
        the module's docstring and ``hidden_by``)."""
        return self.hidden_by(caller, spec, writes=writes) is None

    def hidden_by(self, caller: Any, spec: ToolSpec, *, writes: bool = False) -> str | None:
        """The rule that hides the tool ``spec`` from ``caller``, or None when no policy's
        ``may_list`` hides it: the policy's ``rule`` (``"hidden"`` for a policy without one).
        A caller that is not an identity sees nothing (``"caller"``); a ``may_list`` that raises or
        answers something else than a bool hides the tool (``"error"``, and is logged)."""
        if type(caller) is not str or not caller:
            return "caller"
        for policy in self.policies:
            may_list = getattr(policy, "may_list", None)
            if may_list is None:
                continue
            try:
                shown = may_list(caller, spec, writes)
                rule = getattr(policy, "rule", None)
            except Exception as error:
                _log.error("the access policy %r failed listing tool %r", policy, spec.name, exc_info=error)
                return "error"
            if shown is True:
                continue
            if shown is not False:
                _log.error(
                    "the access policy %r answered %s, not a bool, listing tool %r",
                    policy,
                    type(shown).__name__,
                    spec.name,
                )
                return "error"
            return rule if isinstance(rule, str) and rule else "hidden"
        return None

    def check(
        self,
        prepared: PreparedTool,
        params: Any,
        *,
        caller: Any,
        call_id: str | None,
        writes: bool,
        clock: Callable[[], float],
    ) -> Denial | Hidden | PendingApproval | None:
        """Ask the policies about a call: None when it may go on, a ``Denial``, ``Hidden`` for a
        tool the caller may not see (decided before its parameters are read), or a
        ``PendingApproval`` that a person must answer first."""
        start = clock()
        params_input: Any = None
        try:
            if type(caller) is not str or not caller:
                decision = Decision.deny(
                    f"the call names no caller identity (caller is {_shown(caller)})",
                    code=ErrorCode.ACCESS_DENIED,
                    rule="caller",
                )
                return _denial(prepared, decision, _identity(caller), None, call_id, start, clock)
            if not self.policies:
                return None
            hidden = self.hidden_by(caller, prepared.spec, writes=writes)
            if hidden is not None:
                return Hidden(hidden)
            parsed, params_input = prepared.arguments(params)
            if isinstance(parsed, ToolResponse):
                return None  # INVALID_PARAM: the call itself answers it, and runs nothing
            request = AccessRequest(
                caller=caller,
                tool=prepared.name,
                params=params_input,
                writes=writes,
                spec=prepared.spec,
                call_id=call_id,
            )
            decision = decide(self.policies, request)
        except Exception as error:
            _log.error("the access check failed on a call of tool %r", prepared.name, exc_info=error)
            decision = _failed(self, f"{type(error).__name__}: {error}")
            return _denial(prepared, decision, _identity(caller), params_input, call_id, start, clock)
        if decision.verdict is Verdict.ALLOW:
            return None
        if decision.verdict is Verdict.DENY:
            return _denial(prepared, decision, caller, params_input, call_id, start, clock)
        return PendingApproval(self, prepared, request, decision, start)


class PendingApproval:
    """A call a policy asked about: ``answer`` (synchronous callers) or ``aanswer`` (asynchronous
    ones) waits for the approval hook and gives None (approved) or the ``Denial``."""

    __slots__ = ("_control", "decision", "prepared", "request", "started")

    def __init__(
        self,
        control: AccessControl,
        prepared: PreparedTool,
        request: AccessRequest,
        decision: Decision,
        started: float,
    ) -> None:
        self._control = control
        self.prepared = prepared
        self.request = request
        self.decision = decision
        self.started = started

    def _approval(self) -> ApprovalRequest:
        return ApprovalRequest(
            request=self.request,
            reason=self.decision.reason,
            rule=self.decision.rule,
            timeout_s=self._control.approval_timeout_s,
        )

    def answer(self, wait: Wait, clock: Callable[[], float]) -> Denial | None:
        approver = self._control.approver
        if approver is None:
            return self._unavailable(clock)
        timeout = self._control.approval_timeout_s
        approval = self._approval()
        try:
            if self._control._async_approver:
                run = _Coroutine(lambda: _invoke(approver, approval))
                try:
                    outcome = wait(_APPROVALS.submit(run), timeout)
                except TimeoutError:
                    run.cancel()
                    raise
            else:
                future = _APPROVALS.submit(lambda: _call_sync(approver, approval))
                try:
                    outcome = wait(future, timeout)
                except TimeoutError as error:
                    if not future.done():
                        raise
                    outcome = _Raised(error)  # the hook's own TimeoutError
        except TimeoutError:
            return self._timed_out(clock)
        except Exception as error:
            outcome = _Raised(error)
        return self._judged(outcome, clock)

    async def aanswer(self, async_wait: AsyncWait, clock: Callable[[], float]) -> Denial | None:
        approver = self._control.approver
        if approver is None:
            return self._unavailable(clock)
        timeout = self._control.approval_timeout_s
        approval = self._approval()
        outcome: Any
        try:
            if self._control._async_approver:
                outcome = await async_wait(_captured(_invoke(approver, approval)), timeout)
            else:
                future = asyncio.wrap_future(_APPROVALS.submit(lambda: _call_sync(approver, approval)))
                try:
                    outcome = await async_wait(future, timeout)
                except TimeoutError as error:
                    if not (future.done() and not future.cancelled()):
                        raise
                    outcome = _Raised(error)
        except TimeoutError:
            return self._timed_out(clock)
        except Exception as error:
            outcome = _Raised(error)
        return self._judged(outcome, clock)

    # -- what the answer means ---------------------------------------------------------------

    def _judged(self, outcome: Any, clock: Callable[[], float]) -> Denial | None:
        if isinstance(outcome, _Raised):
            error = outcome.error
            if not isinstance(error, Exception):
                raise error
            _log.error("the approval hook failed on a call of tool %r", self.prepared.name, exc_info=error)
            return self._refused(
                clock,
                "failed",
                f"the approval hook failed ({type(error).__name__}: {error}), so it is refused",
            )
        if outcome is True:
            return None
        if outcome is False:
            return self._refused(clock, "refused", "a person refused the call")
        if isinstance(outcome, Decision) and outcome.verdict is not Verdict.ASK:
            if outcome.verdict is Verdict.ALLOW:
                return None
            reason = outcome.reason or "a person refused the call"
            return self._denied(
                Decision.deny(reason, code=outcome.code or ErrorCode.PERMISSION_DENIED, rule="approval"),
                clock,
                approval="refused",
            )
        return self._refused(
            clock,
            "failed",
            f"the approval hook answered {_shown(outcome)}, not True, False or a Decision, so it is refused",
        )

    def replaced(self, clock: Callable[[], float]) -> Denial:
        """The refusal when the tool was registered anew while a person decided."""
        return self._refused(
            clock, "refused", "the tool was replaced while its call waited for approval; call it again"
        )

    def _unavailable(self, clock: Callable[[], float]) -> Denial:
        return self._refused(
            clock, "unavailable", f"{self.decision.reason}; no one can approve it here (no approval hook)"
        )

    def _timed_out(self, clock: Callable[[], float]) -> Denial:
        timeout = self._control.approval_timeout_s
        return self._denied(
            Decision.deny(
                f"no one approved the call within {timeout:g} s ({self.decision.reason})",
                code=ErrorCode.PERMISSION_DENIED,
                rule="approval",
            ),
            clock,
            approval="timed_out",
            timeout_s=timeout,
        )

    def _refused(self, clock: Callable[[], float], approval: str, reason: str) -> Denial:
        decision = Decision.deny(reason, code=ErrorCode.PERMISSION_DENIED, rule="approval")
        return self._denied(decision, clock, approval=approval)

    def _denied(self, decision: Decision, clock: Callable[[], float], **details: Any) -> Denial:
        request = self.request
        return _denial(
            self.prepared,
            decision,
            request.caller,
            request.params,
            request.call_id,
            self.started,
            clock,
            **details,
        )


def _denial(
    prepared: PreparedTool,
    decision: Decision,
    caller: str,
    params_input: Any,
    call_id: str | None,
    started: float,
    clock: Callable[[], float],
    **extra: Any,
) -> Denial:
    """The answer of a refused call, timed from ``started``, with its context."""
    assert decision.code is not None
    reason = _safe(decision.reason or "the access policy refused the call", _REASON_LIMIT)
    rule = _safe(decision.rule, 100)
    details: dict[str, Any] = {"policy": rule, "reason": reason, "caller": _safe(caller, 200), **extra}
    response = ToolResponse.error(
        decision.code,
        f"Call of tool {prepared.name!r} refused: {reason}.",
        details=details,
    )
    time_ms = (clock() - started) * 1000.0
    return Denial(prepared.finish(response, params_input, call_id, time_ms), rule)


async def _invoke(approver: Approver, approval: ApprovalRequest) -> Any:
    value = approver(approval)
    if inspect.isawaitable(value):
        value = await value
    return value


def _call_sync(approver: Approver, approval: ApprovalRequest) -> Any:
    """A plain approval hook, in a worker thread; one that returned an awaitable has it run there."""
    value = approver(approval)
    if inspect.isawaitable(value):
        awaitable = value

        async def awaited() -> Any:
            return await awaitable

        value = asyncio.run(awaited())
    return value


def _is_async(function: Any) -> bool:
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004
    )


def tool_writes(tool: Tool) -> bool:
    """Whether a tool is marked as writing: its ``writes`` attribute (``Tool.writes``), or a
    ``writes = True`` attribute on the function a FunctionTool wraps."""
    if tool.writes is True:
        return True
    function = getattr(tool, "function", None)
    return function is not None and getattr(function, "writes", False) is True
