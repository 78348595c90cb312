"""The public API: each name declared once, in one place, and there on first use."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

FACES = ["agent", "compat", "http", "interop", "mcp", "otel", "tools"]
"""The sub-packages whose names are final; ``validation`` and ``dask`` still repeat some."""


def _names(package: str) -> set[str]:
    return set(importlib.import_module(package).__all__)


@pytest.mark.parametrize("face", FACES)
def test_a_face_repeats_no_name_of_the_top_level(face: str) -> None:
    """A core name is declared at the top level only, not again in a sub-package."""
    assert set() == _names(f"toolresponse.{face}") & _names("toolresponse")


@pytest.mark.parametrize("face", FACES)
def test_a_face_repeats_no_name_of_another_face(face: str) -> None:
    others = set().union(*(_names(f"toolresponse.{other}") for other in FACES if other != face))
    assert set() == _names(f"toolresponse.{face}") & others


@pytest.mark.parametrize("package", ["toolresponse", *(f"toolresponse.{face}" for face in FACES)])
def test_every_public_name_is_there_and_listed(package: str) -> None:
    """In a fresh interpreter, each name of ``__all__`` is an attribute and ``dir()`` lists it;
    an unknown name is an ``AttributeError``."""
    code = (
        f"import {package} as p\n"
        "missing = [n for n in p.__all__ if not hasattr(p, n)]\n"
        "assert not missing, missing\n"
        "assert set(p.__all__) <= set(dir(p))\n"
        "try:\n    p.NoSuchName\nexcept AttributeError:\n    pass\nelse:\n    raise SystemExit('no error')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert 0 == result.returncode, result.stderr


def test_the_top_level_is_the_core_and_small() -> None:
    """The core only: the response, codes, validation entry points, the registry, policies and
    the exceptions a user catches; the faces keep their own names."""
    names = _names("toolresponse")
    assert {
        "ToolResponse",
        "ErrorCode",
        "validate",
        "ToolRegistry",
        "AccessControl",
        "ToolResponseError",
    } <= names
    assert not names & {"Agent", "to_mcp", "create_app", "attach", "diff_schemas"}
    assert len(names) < 40
