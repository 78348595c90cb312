"""The one test of a number a setting holds (a timeout, a limit, a delay): a leaf module."""

from __future__ import annotations

import math
from typing import TypeGuard

__all__ = ["is_finite_number"]


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is an int or a float and finite: not a bool (``True`` is no timeout), not
    NaN, not an infinity. The caller adds its bound and says it in its own message."""
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
