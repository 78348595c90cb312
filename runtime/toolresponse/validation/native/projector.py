"""The Python side of ``_projector.c``: the plan it reads, and the check that both read it alike.

A ``ProjectionPlan`` is what ``Projection.plan`` (in the validator's engine
module) builds from the schema and what the C projector walks. The C code
reads the fields by position, so the two sides must agree on their order: the
extension exports the order it reads as ``PLAN_FIELDS``, and
``check_plan_fields`` compares it with ``ProjectionPlan._fields`` when the
package is imported, refusing to run a projector that would read one field
as another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

__all__ = ["ProjectionPlan", "check_plan_fields"]


class ProjectionPlan(NamedTuple):
    """What a projection keeps of a value, in the form the C projector reads."""

    keep: bool
    """The value is kept whole (a keyword the projection does not know looks at it)."""
    objects: bool
    """The members of an object are projected (else an object becomes ``{}``)."""
    strings_typed: bool
    """A string becomes ``stand_in``, cut to its length."""
    stand_in: str
    """``"x"`` times the longest length that minLength or maxLength can tell apart."""
    quoted: int
    """The characters of a string kept when it is not typed (a message quotes 40)."""
    integers_typed: bool
    """An integral number may become ``integer_stand_in``."""
    numbers_typed: bool
    """A number that is not integral may become ``number_stand_in``."""
    checks: tuple[tuple[int, int | float], ...]
    """(comparison, limit) pairs, rich comparison codes: a number must meet each to become a stand-in."""
    integer_stand_in: int | float | None
    """The integer that meets every check (None: keep the value)."""
    number_stand_in: int | float | None
    """The number that meets every check and is not integral (None: keep the value)."""
    members: dict[str, ProjectionPlan]
    """The plans of the member names seen so far."""
    member: Callable[[str], ProjectionPlan]
    """Makes (and remembers in ``members``) the plan of a member name not seen yet."""


def check_plan_fields(python: tuple[str, ...], native: object) -> None:
    """Refuse (ImportError) a C projector whose field order ``native`` is not ``python``."""
    if native != python:
        raise ImportError(
            "the C projector reads projection plans with the fields "
            f"{native!r}, but ProjectionPlan has {python!r}: rebuild the extension "
            "from the sources of this Python code"
        )
