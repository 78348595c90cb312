"""The one ``$ref`` rewriter of the code base.

``rewrite_refs(node, target)`` is a copy of a JSON value in which every ``$ref`` string is
replaced by ``target(ref)``; callers differ only in ``target``. The generator uses it to bundle
the v1 schema into one file and to place that schema in the HTTP binding's document; the
conformance runner uses it to place each served tool's parameter schema in that document.

This module imports nothing but the standard library, and nothing of ``toolresponse``: the
generator loads it by its file path, before the package (which needs the generated code) can
be imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["rewrite_refs"]


def rewrite_refs(node: Any, target: Callable[[str], str]) -> Any:
    """A deep copy of ``node`` with each ``$ref`` string ``ref`` replaced by ``target(ref)``.

    ``target`` sees the references of the innermost objects first; it may raise to refuse one.
    """
    if isinstance(node, dict):
        out = {key: rewrite_refs(value, target) for key, value in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str):
            out["$ref"] = target(ref)
        return out
    if isinstance(node, list):
        return [rewrite_refs(item, target) for item in node]
    return node
