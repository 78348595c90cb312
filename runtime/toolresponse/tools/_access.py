"""``AccessControl``: a registry's policies, asked about every call, and a person asked first.

Asked once the tool is found, before the breaker (docs/security.md): a hidden tool is answered as
one the registry does not have; a denial runs nothing, its ``details`` saying why. A policy or
approval hook that raises or answers no decision fails closed, and is logged.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from toolresponse_generated import ErrorCode

from .._response import ToolResponse
from .._suggest import is_finite_number, shortened
from ._policy import ALLOW, AccessRequest, ApprovalRequest, Approver, Decision, Policy, Verdict, shown
from ._prepared import PreparedTool, ToolSpec
from ._threads import AsyncWait, Job, Raised, ToolThreads, Wait, called, captured, is_async

_log = logging.getLogger("toolresponse")

_APPROVALS = ToolThreads("approval")  # a person's slow answer blocks no caller's loop

DEFAULT_APPROVAL_TIMEOUT_S: Final = 60.0
Clock = Callable[[], float]


def _asked(policy: Policy, request: AccessRequest) -> Decision:
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
    name = policy.__qualname__ if inspect.isfunction(policy) else type(policy).__name__
    reason = f"the access policy {name} failed ({why}), so the call is refused"
    return Decision.deny(reason, code=ErrorCode.PERMISSION_DENIED, rule="error")


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
    """A call of a tool the caller may not see (``rule`` hid it): answered as an unknown tool's."""

    rule: str


@dataclass(frozen=True, slots=True)
class Denial:
    """A refused call's answer (timed, with its context) and the rule that refused it."""

    response: ToolResponse
    rule: str


def _denial(
    prepared: PreparedTool,
    decision: Decision,
    caller: str,
    params_input: Any,
    call_id: str | None,
    started: float,
    clock: Clock,
    **extra: Any,
) -> Denial:
    assert decision.code is not None
    reason = shortened(decision.reason or "the access policy refused the call", 500)
    rule = shortened(decision.rule, 100)
    details: dict[str, Any] = {"policy": rule, "reason": reason, "caller": shortened(caller, 200), **extra}
    response = ToolResponse.error(
        decision.code, f"Call of tool {prepared.name!r} refused: {reason}.", details=details
    )
    return Denial(prepared.finish(response, params_input, call_id, (clock() - started) * 1000.0), rule)


class AccessControl:
    """The policies of a registry (``ToolRegistry(access=...)``), asked in order; ``approver``
    answers the calls a policy asks about within ``approval_timeout_s`` (else they are refused)."""

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
        self._async_approver = approver is not None and is_async(approver)

    def __repr__(self) -> str:
        return f"AccessControl({', '.join(map(repr, self.policies))})"

    def visible(self, caller: str, spec: ToolSpec, *, writes: bool = False) -> bool:
        """Whether ``caller`` may see the tool ``spec``: in a listing, and as a tool at all."""
        return self.hidden_by(caller, spec, writes=writes) is None

    def hidden_by(self, caller: Any, spec: ToolSpec, *, writes: bool = False) -> str | None:
        """The rule that hides the tool from ``caller``, or None: the ``rule`` of the policy whose
        ``may_list`` answered False (else ``"hidden"``), ``"caller"`` or ``"error"``."""
        if type(caller) is not str or not caller:
            return "caller"
        for policy in self.policies:
            may_list = getattr(policy, "may_list", None)
            if may_list is None:
                continue
            try:
                listed = may_list(caller, spec, writes)
                if type(listed) is not bool:
                    raise TypeError(f"may_list answered {type(listed).__name__}, not a bool")
                rule = getattr(policy, "rule", None)
            except Exception as error:
                _log.error("the access policy %r failed listing tool %r", policy, spec.name, exc_info=error)
                return "error"
            if not listed:
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
        clock: Clock,
    ) -> Denial | Hidden | PendingApproval | None:
        """None when the call may go on, else a ``Denial``, ``Hidden``, or a ``PendingApproval``."""
        start = clock()
        params_input: Any = None
        try:
            if type(caller) is not str or not caller:
                reason = f"the call names no caller identity (caller is {shown(caller)})"
                decision = Decision.deny(reason, code=ErrorCode.ACCESS_DENIED, rule="caller")
                return _denial(prepared, decision, shown(caller), None, call_id, start, clock)
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
            who = caller if type(caller) is str and caller else shown(caller)
            return _denial(prepared, decision, who, params_input, call_id, start, clock)
        if decision.verdict is Verdict.ALLOW:
            return None
        if decision.verdict is Verdict.DENY:
            return _denial(prepared, decision, caller, params_input, call_id, start, clock)
        approval = ApprovalRequest(
            request=request, reason=decision.reason, rule=decision.rule, timeout_s=self.approval_timeout_s
        )
        return PendingApproval(self, prepared, request, decision, start, approval)


@dataclass(frozen=True, slots=True)
class PendingApproval:
    """A call a policy asked about: ``answer`` (from a thread) or ``aanswer`` (from an event
    loop) waits for the approval hook and gives None (approved) or the ``Denial``."""

    control: AccessControl
    prepared: PreparedTool
    request: AccessRequest
    decision: Decision
    started: float
    approval: ApprovalRequest

    def _job(self, approver: Approver) -> Job:
        approval = self.approval
        if self.control._async_approver:
            return _APPROVALS.submit(lambda: called(approver, approval), coroutine=True)
        return _APPROVALS.submit(lambda: _call_sync(approver, approval))

    def answer(self, wait: Wait, clock: Clock) -> Denial | None:
        """Wait for the hook from a thread."""
        approver = self.control.approver
        if approver is None:
            return self._unavailable(clock)
        try:
            job = self._job(approver)
            try:
                outcome = wait(job, self.control.approval_timeout_s)
            except TimeoutError:
                job.stop()
                return self._timed_out(clock)
        except Exception as error:
            outcome = Raised(error)
        return self._judged(outcome, clock)

    async def aanswer(self, async_wait: AsyncWait, clock: Clock) -> Denial | None:
        """Wait for the hook from an event loop (an async hook is awaited on it)."""
        approver = self.control.approver
        if approver is None:
            return self._unavailable(clock)
        try:
            if self.control._async_approver:
                approval = self.approval
                waited: Awaitable[Any] = captured(lambda: called(approver, approval))
            else:
                waited = asyncio.wrap_future(self._job(approver))
            outcome = await async_wait(waited, self.control.approval_timeout_s)
        except TimeoutError:
            return self._timed_out(clock)
        except Exception as error:
            outcome = Raised(error)
        return self._judged(outcome, clock)

    def _judged(self, outcome: Any, clock: Clock) -> Denial | None:
        if isinstance(outcome, Raised):
            error = outcome.error
            if not isinstance(error, Exception):
                raise error
            _log.error("the approval hook failed on a call of tool %r", self.prepared.name, exc_info=error)
            why = f"the approval hook failed ({type(error).__name__}: {error}), so it is refused"
            return self._refused(clock, "failed", why)
        if outcome is True or (isinstance(outcome, Decision) and outcome.verdict is Verdict.ALLOW):
            return None
        if outcome is False:
            return self._refused(clock, "refused", "a person refused the call")
        if isinstance(outcome, Decision) and outcome.verdict is Verdict.DENY:
            reason = outcome.reason or "a person refused the call"
            return self._refused(clock, "refused", reason, outcome.code or ErrorCode.PERMISSION_DENIED)
        why = f"the approval hook answered {shown(outcome)}, not True, False or a Decision, so it is refused"
        return self._refused(clock, "failed", why)

    def replaced(self, clock: Clock) -> Denial:
        """The refusal of a tool registered anew while a person decided."""
        why = "the tool was replaced while its call waited for approval; call it again"
        return self._refused(clock, "refused", why)

    def _unavailable(self, clock: Clock) -> Denial:
        reason = f"{self.decision.reason}; no one can approve it here (no approval hook)"
        return self._refused(clock, "unavailable", reason)

    def _timed_out(self, clock: Clock) -> Denial:
        timeout = self.control.approval_timeout_s
        reason = f"no one approved the call within {timeout:g} s ({self.decision.reason})"
        return self._refused(clock, "timed_out", reason, timeout_s=timeout)

    def _refused(
        self,
        clock: Clock,
        approval: str,
        reason: str,
        code: ErrorCode = ErrorCode.PERMISSION_DENIED,
        **details: Any,
    ) -> Denial:
        decision = Decision.deny(reason, code=code, rule="approval")
        call, extra = self.request, {"approval": approval, **details}
        return _denial(
            self.prepared, decision, call.caller, call.params, call.call_id, self.started, clock, **extra
        )


def _call_sync(approver: Approver, approval: ApprovalRequest) -> Any:
    value = approver(approval)
    return asyncio.run(called(lambda: value)) if inspect.isawaitable(value) else value
