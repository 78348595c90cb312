"""The wheel carries what a user needs: installed into a fresh venv, it validates with the shipped schema."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_DIR = ROOT / "tests" / "conformance" / "v1"
RUNTIME = ROOT / "runtime" / "toolresponse"

CHECK_SCRIPT = """
import json, sys
import toolresponse
groups = json.load(open(sys.argv[1], encoding="utf-8"))
verdicts = [[toolresponse.validate(test["data"]).valid for test in group["tests"]] for group in groups]
print(json.dumps(verdicts))
"""


# What a build reads; copied to a clean place, so that a stale build/ directory in the
# checkout cannot put into the wheel a module the package list has forgotten.
BUILD_INPUTS = ("pyproject.toml", "MANIFEST.in", "README.md", "runtime", "generated", "schema")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a clean copy of this checkout with the project's own build backend."""
    source = tmp_path_factory.mktemp("source")
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            out,
            source,
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("toolresponse-*.whl")
    return built


def test_wheel_ships_the_bundled_schema_examples_and_both_packages(wheel: Path) -> None:
    """The wheel holds the runtime, the generated models, the bundled schema and the examples."""
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "toolresponse/__init__.py",
        "toolresponse_generated/models.py",
        "toolresponse_generated/error_codes.py",
        "toolresponse_generated/tool-response.v1.schema.json",
        "toolresponse_generated/examples/success.json",
        "toolresponse_generated/http-binding.openapi.json",
    }
    assert set() == expected - names


def test_the_wheel_is_pure_python(wheel: Path) -> None:
    """The package is one language: a wheel for any platform, without a compiled module or C source."""
    compiled = [name for name in zipfile.ZipFile(wheel).namelist() if name.endswith((".so", ".pyd", ".c"))]
    assert (True, []) == (wheel.name.endswith("-py3-none-any.whl"), compiled)


def _sub_packages() -> list[str]:
    """Every package under runtime/toolresponse, dotted (``toolresponse.validation``)."""
    return sorted(
        ".".join(("toolresponse", *init.parent.relative_to(RUNTIME).parts))
        for init in RUNTIME.rglob("__init__.py")
    )


def test_wheel_ships_every_sub_package(wheel: Path) -> None:
    """A sub-package forgotten in pyproject's package list would be missing from the wheel."""
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in _sub_packages() if f"{name.replace('.', '/')}/__init__.py" not in names]
    assert [] == missing


def test_wheel_ships_every_public_names_stub(wheel: Path) -> None:
    """The ``__init__.pyi`` stubs are what the lazy packages import from: a wheel without them
    would fail on ``import toolresponse``."""
    names = set(zipfile.ZipFile(wheel).namelist())
    stubs = sorted(
        f"toolresponse/{stub.relative_to(RUNTIME).as_posix()}" for stub in RUNTIME.rglob("__init__.pyi")
    )
    assert "toolresponse/__init__.pyi" in stubs
    assert [] == [stub for stub in stubs if stub not in names]


def test_every_sub_package_has_a_layer() -> None:
    """Each direct sub-package stands in the import-linter layers contract, so its imports are checked."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    layered = {name.strip() for line in layers for name in line.split("|")}
    direct = {name for name in _sub_packages() if name.count(".") == 1}
    assert set() == direct - layered


def test_wheel_installed_in_a_fresh_venv_validates_a_fixture_with_the_shipped_schema(
    wheel: Path, tmp_path: Path
) -> None:
    """pip install of the wheel alone is enough to validate responses outside the source tree."""
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel],
        check=True,
        capture_output=True,
    )
    fixture = FIXTURE_DIR / "error_info.json"
    result = subprocess.run(
        [python, "-c", CHECK_SCRIPT, fixture],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    )
    expected = [[test["valid"] for test in group["tests"]] for group in json.loads(fixture.read_text())]
    assert expected == json.loads(result.stdout)
