"""The validator's native scans: C extensions beside their Python twins, chosen once.

- ``_jsonscan.c``: the duplicate-name scan of JSON text, the path at a
  position and the noncharacter scan; its twins are in ``jsonscan.py``. This
  package exposes the ones that run, ``first_duplicate``,
  ``lines_with_duplicates``, ``path_at``, ``first_noncharacter`` and
  ``lines_with_noncharacters``, and ``triage`` (the validator's per-line loop over a
  batch: decode, scan, judge; the kinds of its entries are ``PASSED``, ``REFUSED``,
  ``SUSPECT`` and ``UNREADABLE``), and ``NATIVE_SCANS`` says whether they are the C ones.
- ``_projector.c``: the projection that keys the explanation cache; its twin is
  ``Projection.project`` of the validator's engine module. It reads a
  ``ProjectionPlan`` (``projector.py``); ``projector_of(projection)`` gives the
  projector that runs, and ``NATIVE_PROJECTOR`` says whether it is the C one.

Both are optional: a build made without a C compiler runs the twins, which
give the same answers (the test suite holds them to it). A C projector that
reads the plan's fields in another order than ``ProjectionPlan`` declares them
is refused at import (``ImportError``), never run.

Nothing here imports the rest of the validator.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from .jsonscan import (
    PASSED,
    REFUSED,
    SUSPECT,
    UNREADABLE,
    Path,
    Triage,
    duplicate_member,
    first_duplicate_python,
    first_noncharacter_python,
    has_duplicate_members,
    lines_with_duplicates_python,
    lines_with_noncharacters_python,
    path_at_python,
    string_token_value,
    triage_python,
)
from .projector import ProjectionPlan, check_plan_fields

__all__ = [
    "NATIVE_PROJECTOR",
    "NATIVE_SCANS",
    "PASSED",
    "REFUSED",
    "SUSPECT",
    "UNREADABLE",
    "PlannedProjection",
    "ProjectionPlan",
    "check_plan_fields",
    "duplicate_member",
    "first_duplicate",
    "first_duplicate_python",
    "first_noncharacter",
    "first_noncharacter_python",
    "has_duplicate_members",
    "lines_with_duplicates",
    "lines_with_duplicates_python",
    "lines_with_noncharacters",
    "lines_with_noncharacters_python",
    "path_at",
    "path_at_python",
    "projector_of",
    "string_token_value",
    "triage",
    "triage_python",
]

first_duplicate: Callable[[bytes, int], tuple[int, Path] | None]
lines_with_duplicates: Callable[[list[bytes], int], list[int]]
path_at: Callable[[bytes, int, int], Path | None]
first_noncharacter: Callable[[bytes], int | None]
lines_with_noncharacters: Callable[[list[bytes]], list[int]]
triage: Triage
try:
    from ._jsonscan import (
        first_duplicate,
        first_noncharacter,
        lines_with_duplicates,
        lines_with_noncharacters,
        path_at,
        triage,
    )
except ImportError:
    first_duplicate = first_duplicate_python
    lines_with_duplicates = lines_with_duplicates_python
    path_at = path_at_python
    first_noncharacter = first_noncharacter_python
    lines_with_noncharacters = lines_with_noncharacters_python
    triage = triage_python
NATIVE_SCANS = first_duplicate is not first_duplicate_python
"""Whether the scans are the C extension's."""

_project: Callable[[ProjectionPlan, Any], Any] | None
try:
    from . import _projector
except ImportError:
    _project = None
else:
    # Outside the try: a projector that reads the plan otherwise must stop the import, not be
    # passed over for the Python one.
    check_plan_fields(ProjectionPlan._fields, getattr(_projector, "PLAN_FIELDS", None))
    _project = _projector.project
NATIVE_PROJECTOR = _project is not None
"""Whether ``projector_of`` gives the C extension's projector."""


class PlannedProjection(Protocol):
    """What ``projector_of`` needs of a projection: its Python projector and its plan."""

    @property
    def project(self) -> Callable[[Any], Any]: ...

    @property
    def plan(self) -> ProjectionPlan: ...


def projector_of(projection: PlannedProjection) -> Callable[[Any], Any]:
    """``projection.project``, or the C projector over ``projection.plan``, which gives the same."""
    if _project is None:
        return projection.project
    return partial(_project, projection.plan)
