"""`make check-generated` fails, naming `make generate`, when schema/ and generated/ disagree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COPIED = ["codegen", "schema", "generated", "docs", "pyproject.toml"]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the parts of the repository that the generator reads and writes."""
    target = tmp_path_factory.mktemp("checkout")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / name)
    return target


def check(checkout: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(checkout / "codegen" / "generate.py"), "--check"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )


def test_check_passes_on_the_committed_tree(checkout: Path) -> None:
    """The generated files in the repository are exactly what the schema gives."""
    result = check(checkout)
    assert (0, "") == (result.returncode, result.stdout)


def test_editing_the_schema_without_regenerating_fails_with_a_diff_and_the_command(checkout: Path) -> None:
    """A new error-code meaning in the schema makes the check fail, show the diff and name `make generate`."""
    path = checkout / "schema" / "v1" / "error-code.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["x-enum-descriptions"][0] = "Nothing by that name exists (edited)."
    path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")

    result = check(checkout)

    assert 1 == result.returncode
    assert "+            description='Nothing by that name exists (edited).'," in result.stdout
    assert "Run `make generate`" in result.stderr
    assert "error_codes.py" in result.stderr


def test_generating_again_brings_the_copy_back_in_step(checkout: Path) -> None:
    """After `make generate` (the generator in write mode) the check passes again."""
    subprocess.run(
        [sys.executable, str(checkout / "codegen" / "generate.py")],
        cwd=checkout,
        capture_output=True,
        check=True,
    )
    assert 0 == check(checkout).returncode
