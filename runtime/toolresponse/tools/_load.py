"""``load_registry("MODULE:FACTORY")``: the ToolRegistry a command line names, for the faces serving one."""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import re
import sys
from typing import Any

from .._errors import RegistryLoadError
from ._registry import ToolRegistry

_SPEC = re.compile(
    r"^(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):(?P<attribute>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$"
)
REGISTRY_EXAMPLE = "toolresponse.demo.calculator:build_registry"


def load_registry(spec: str, *, app_dir: str | None = None) -> ToolRegistry:
    """The ToolRegistry that ``spec`` (``MODULE:REGISTRY``, a registry or a function of no arguments
    that returns one) names, ``app_dir`` first on ``sys.path``; raises ``RegistryLoadError``."""
    match = _SPEC.match(spec.strip())
    if match is None:
        raise RegistryLoadError(f"{spec!r} is not MODULE:REGISTRY (for example {REGISTRY_EXAMPLE})")
    module_name, attribute = match["module"], match["attribute"]
    if app_dir is not None:
        directory = os.path.abspath(app_dir)
        if directory not in sys.path:
            sys.path.insert(0, directory)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and (module_name == error.name or module_name.startswith(error.name + ".")):
            raise RegistryLoadError(f"there is no module {module_name!r} to import") from None
        raise RegistryLoadError(f"importing {module_name!r} failed: {error}") from None
    except Exception as error:
        raise RegistryLoadError(
            f"importing {module_name!r} failed: {type(error).__name__}: {error}"
        ) from None
    try:
        target: Any = functools.reduce(getattr, attribute.split("."), module)
    except AttributeError:
        raise RegistryLoadError(f"{module_name!r} has no attribute {attribute!r}") from None
    if isinstance(target, ToolRegistry):
        return target
    if not callable(target):
        raise RegistryLoadError(
            f"{spec} is a {type(target).__name__}, not a ToolRegistry or a function that returns one"
        )
    try:
        inspect.signature(target).bind()
    except TypeError:
        raise RegistryLoadError(
            f"{spec} needs arguments; give a ToolRegistry, or a function of no arguments that returns one"
        ) from None
    except ValueError:
        pass  # no signature to inspect (a builtin): just call it
    try:
        made = target()
    except Exception as error:
        raise RegistryLoadError(f"calling {spec}() failed: {type(error).__name__}: {error}") from None
    if not isinstance(made, ToolRegistry):
        raise RegistryLoadError(f"{spec}() returned a {type(made).__name__}, not a ToolRegistry")
    return made
