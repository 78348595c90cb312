"""Access policies: who may call which tool with which arguments (``docs/security.md``).

A policy answers an ``AccessRequest`` with a ``Decision`` or None (no objection); one with a
``may_list(caller, spec, writes)`` method can hide a tool (``AllowList``, ``DenyList`` and
``ReadOnly`` hide what they would refuse).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Final, Protocol

from toolresponse_generated import ErrorCode

from .._suggest import safe_text, shortened
from ._prepared import ToolSpec

LOCAL_CALLER: Final = "local"
"""The identity of a call made in-process (the registry's default ``caller``)."""

DENIAL_CODES: Final = frozenset({ErrorCode.ACCESS_DENIED, ErrorCode.PERMISSION_DENIED})


def _denial_code(code: Any) -> ErrorCode:
    if code not in DENIAL_CODES:
        raise ValueError(f"a denial's code is ACCESS_DENIED or PERMISSION_DENIED, not {code!r}")
    return ErrorCode(code)


class Verdict(StrEnum):
    """What a policy decided."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


@dataclass(frozen=True, kw_only=True, slots=True)
class Decision:
    """A policy's answer: ``Decision.allow()``, ``Decision.deny(...)`` or ``Decision.ask(...)``;
    ``rule`` names what decided, for ``details.policy`` and the event's ``denied_by``."""

    verdict: Verdict
    reason: str = ""
    code: ErrorCode | None = None
    rule: str = "policy"

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            raise TypeError(f"verdict must be a Verdict, not {self.verdict!r}")
        if not isinstance(self.reason, str) or not isinstance(self.rule, str) or not self.rule:
            raise TypeError("a decision's reason must be a string and its rule a non-empty string")
        if self.verdict is Verdict.DENY:
            _denial_code(self.code)
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
    """The parameters, valid; a copy."""
    writes: bool
    spec: ToolSpec
    call_id: str | None = None


class Policy(Protocol):
    """Anything called with an ``AccessRequest`` that answers a ``Decision`` (or None: no objection)."""

    def __call__(self, request: AccessRequest, /) -> Decision | None: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class ApprovalRequest:
    """What the approval hook is asked: the call, why, and how long the registry waits."""

    request: AccessRequest
    reason: str
    rule: str
    timeout_s: float


class Approver(Protocol):
    """A person's decision on a call, plain or async: True, False or a ``Decision``."""

    def __call__(self, request: ApprovalRequest, /) -> bool | Decision | Awaitable[bool | Decision]: ...


def shown(value: Any) -> str:
    """``repr(value)`` cut to 200 characters, for a reason (whatever ``__repr__`` does)."""
    return shortened(safe_text(value), 200)


class _Glob:
    """Names or glob patterns (``fnmatch``, case-sensitive), compiled once."""

    def __init__(self, value: str | Iterable[str], what: str) -> None:
        items = (value,) if isinstance(value, str) else tuple(value)
        for item in items:
            if not isinstance(item, str) or not item:
                raise TypeError(f"{what} must be non-empty strings (names or glob patterns), not {item!r}")
        self.patterns: tuple[str, ...] = items
        self._regex = re.compile("|".join(f"(?:{fnmatch.translate(item)})" for item in items) or "(?!)")

    def __call__(self, name: str) -> bool:
        return self._regex.match(name) is not None

    def __repr__(self) -> str:
        return repr(list(self.patterns))


class _Scoped:
    """A rule for some callers and some tools only: glob patterns, ``*`` for all."""

    def __init__(self, tools: str | Iterable[str], callers: str | Iterable[str]) -> None:
        self.tools = _Glob(tools, "tools")
        self.callers = _Glob(callers, "callers")

    def applies(self, request: AccessRequest) -> bool:
        return self.callers(request.caller) and self.tools(request.tool)


class _ToolList(_Scoped):
    """An allow-list or a deny-list: it hides, and refuses, the calls it does not let through."""

    rule: ClassVar[str]
    _REFUSAL: ClassVar[str]
    _LETS_LISTED: ClassVar[bool]
    """Whether the tools listed are the ones let through (an allow-list) or refused (a deny-list)."""

    def __init__(
        self,
        tools: str | Iterable[str],
        *,
        callers: str | Iterable[str] = "*",
        code: ErrorCode = ErrorCode.ACCESS_DENIED,
    ) -> None:
        super().__init__(tools, callers)
        self.code = _denial_code(code)

    def _lets(self, caller: str, tool: str) -> bool:
        return not self.callers(caller) or self.tools(tool) == self._LETS_LISTED

    def may_list(self, caller: str, spec: ToolSpec, writes: bool, /) -> bool:
        return self._lets(caller, spec.name)

    def __call__(self, request: AccessRequest, /) -> Decision | None:
        if self._lets(request.caller, request.tool):
            return None
        reason = f"tool {request.tool!r} {self._REFUSAL} of caller {request.caller!r}"
        return Decision.deny(reason, code=self.code, rule=self.rule)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.tools!r}, callers={self.callers!r})"


class AllowList(_ToolList):
    """Callers matching ``callers`` may call (and see) only the tools matching ``tools``; a
    refusal is ACCESS_DENIED unless ``code`` says otherwise."""

    rule = "allow_list"
    _REFUSAL = "is not on the allow-list"
    _LETS_LISTED = True


class DenyList(_ToolList):
    """Callers matching ``callers`` may not call (nor see) the tools matching ``tools``; a
    refusal is ACCESS_DENIED unless ``code`` says otherwise."""

    rule = "deny_list"
    _REFUSAL = "is on the deny-list"
    _LETS_LISTED = False


class ArgumentRule(_Scoped):
    """A check of one parameter: ``check(value)`` returns None when the value is acceptable, else
    why not (the call is then denied PERMISSION_DENIED); a call without the parameter passes."""

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
    """Path parameters confined to a directory: each top-level parameter that ``params`` names
    (or matches as a glob) holds paths that, resolved against ``base`` (default: the current
    directory) with symlinks followed, are ``root`` or under it; else PERMISSION_DENIED. The tool
    follows the links as they are later: a directory others can change is no boundary here."""

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
            for item in value if isinstance(value, list) else [value]:
                problem = self._problem(item)
                if problem is not None:
                    reason = f"parameter {name!r}: {problem}"
                    return Decision.deny(reason, code=ErrorCode.PERMISSION_DENIED, rule="paths")
        return None

    def _problem(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"{shown(value)} is not a path"
        path = Path(value)
        if self.base is not None and not path.is_absolute():
            path = self.base / path
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError, ValueError) as error:  # a NUL byte, a symlink loop ...
            return f"{shown(value)} cannot be resolved ({type(error).__name__}: {error})"
        if resolved.is_relative_to(self.root):
            return None
        return f"{shown(value)} resolves to {str(resolved)!r}, outside {str(self.root)!r}"


def _directory(value: Any, what: str) -> Path:
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{what} must be a directory path, not {type(value).__name__}")
    path = Path(value).resolve()
    if not path.is_dir():
        raise ValueError(f"{what} {str(value)!r} is not a directory")
    return path


class ReadOnly:
    """Callers matching ``callers`` may not call (nor see) tools marked as writing."""

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
        reason = f"tool {request.tool!r} writes, and tools are read-only for caller {request.caller!r}"
        return Decision.deny(reason, code=ErrorCode.PERMISSION_DENIED, rule=self.rule)


class RequireApproval(_Scoped):
    """A person approves each call of the tools matching ``tools`` by the callers matching
    ``callers`` (with ``writes_only``, of the tools marked as writing only) before it runs."""

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
        return Decision.ask(self.reason or f"{what} needs a person's approval", rule="approval")
