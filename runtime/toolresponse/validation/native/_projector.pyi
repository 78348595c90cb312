# Types of the C extension toolresponse.validation.native._projector (_projector.c).
from typing import Any

from .projector import ProjectionPlan

PLAN_FIELDS: tuple[str, ...]
"""The names of the plan fields, in the order the projector reads them by position."""

def project(plan: ProjectionPlan, value: Any, /) -> Any:
    """What the schema can see of the decoded JSON value ``value``, under the projection plan ``plan``."""
