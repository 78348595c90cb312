"""Test ids that are the same in every process: pytest-xdist's workers must collect the same tests."""

from __future__ import annotations

from typing import Any


def stable_id(value: Any) -> str:
    """``repr``, with a set's items in order (a set's ``repr`` follows the hash seed, which differs
    from process to process)."""
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(map(repr, value))) + "}"
    return repr(value)
