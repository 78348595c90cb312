"""The one ``$ref`` rewriter, for the generator and the conformance runner. Standard library
only: the generator loads it by path before the package exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def rewrite_refs(node: Any, target: Callable[[str], str]) -> Any:
    """A deep copy of ``node`` with each ``$ref`` string ``ref`` replaced by ``target(ref)``, the
    innermost first; ``target`` may raise to refuse one."""
    if isinstance(node, dict):
        out = {key: rewrite_refs(value, target) for key, value in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str):
            out["$ref"] = target(ref)
        return out
    if isinstance(node, list):
        return [rewrite_refs(item, target) for item in node]
    return node
