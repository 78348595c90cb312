"""Bounded backoff: how long the agent loop waits before it tries a failed call again."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._suggest import is_finite_number


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """Exponential backoff with a cap per wait, a cap on the number of retries and on the total wait.

    The n-th retry (from 0) waits ``initial_delay_s * multiplier**n``, at most ``max_delay_s``,
    raised to a hint from the other side (``retry_after_ms``, ``Retry-After``). A retry that would
    bring the total waited above ``max_total_wait_s`` is not made: the failure is reported at once.
    """

    max_retries: int = 2
    initial_delay_s: float = 0.5
    multiplier: float = 2.0
    max_delay_s: float = 8.0
    max_total_wait_s: float = 30.0

    def __post_init__(self) -> None:
        retries = self.max_retries
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, not {retries!r}")
        for name in ("initial_delay_s", "max_delay_s", "max_total_wait_s"):
            value = getattr(self, name)
            if not is_finite_number(value) or value < 0:
                raise ValueError(f"{name} must be a finite number of seconds >= 0, not {value!r}")
        if not math.isfinite(self.multiplier) or self.multiplier < 1:
            raise ValueError(f"multiplier must be >= 1, not {self.multiplier!r}")

    def next_wait_s(self, retries_done: int, waited_s: float, hint_s: float | None = None) -> float | None:
        """The wait before the next retry, or None when the policy allows no more retries."""
        if retries_done >= self.max_retries:
            return None
        backoff = min(self.max_delay_s, self.initial_delay_s * self.multiplier**retries_done)
        wait = max(float(backoff), hint_s or 0.0)
        return None if waited_s + wait > self.max_total_wait_s else wait
