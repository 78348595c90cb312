# Types of the C extension toolresponse.validation.native._projector (_projector.c).
from typing import Any

def project(plan: tuple[Any, ...], value: Any, /) -> Any:
    """What the schema can see of the decoded JSON value ``value``, under the Projection plan ``plan``."""
