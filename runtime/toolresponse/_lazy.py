"""The one lazy loader: a package's public names, each imported from its module on first use (PEP 562).

A package that uses it keeps a single table, module -> the public names it
defines, and takes from ``lazy_exports`` its ``__getattr__``, ``__dir__`` and
``__all__``, so that importing the package costs next to nothing and a command
such as ``toolresponse validate`` loads only what it needs. A name stored
under ``"name=attribute"`` is the module's ``attribute`` under another name.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, table: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` for ``package``, whose public names ``table`` lists.

    ``table`` maps a module (relative to ``package`` when it begins with a dot) to the
    names it defines. A name listed twice is a programming mistake: ``ValueError``.
    """
    where: dict[str, tuple[str, str]] = {}
    for module, names in table.items():
        for entry in names:
            name, _, attribute = entry.partition("=")
            if name in where:
                raise ValueError(f"{package}: the public name {name!r} is listed twice")
            where[name] = (module, attribute or name)
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        try:
            module, attribute = where[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module, package), attribute)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__, sorted(where)
