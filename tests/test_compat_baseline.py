"""The released baseline: a frozen, byte-exact copy of v1.0.0, the current v1 compatible with it, and the
release discipline around it (versions told apart, a changelog, the rules documented)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from json_schema_diff import PROGRAM as JSON_SCHEMA_DIFF
from json_schema_diff import disagreements

import toolresponse
from toolresponse.compat import ChangeClass, diff_schemas
from toolresponse.compat._documents import load_schema_sets
from toolresponse.compat._rules import RULES

ROOT = Path(__file__).resolve().parent.parent
V1 = ROOT / "schema" / "v1"
BASELINE = ROOT / "schema" / "baseline" / "v1.0.0"
# The last commit that changed the JSON Schema documents of v1 before release 1.0.0.
RELEASE_COMMIT = "8fee6eb6682a92829dc8450b8e412997e272fa6c"
SCHEMA_FILES = ["error-code.schema.json", "status.schema.json", "tool-response.schema.json"]
VERSIONING = ROOT / "docs" / "versioning.md"


def _git_show(path: str) -> bytes | None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        return None
    done = subprocess.run(
        [git, "-C", str(ROOT), "show", f"{RELEASE_COMMIT}:{path}"], capture_output=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


def test_the_baseline_holds_exactly_the_released_schema_documents() -> None:
    """The baseline has the three JSON Schema documents of v1, nothing else."""
    assert SCHEMA_FILES == sorted(path.name for path in BASELINE.iterdir())


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_the_baseline_is_byte_identical_to_the_release(name: str) -> None:
    """Each baseline file is the file of schema/v1 at the release commit, byte for byte."""
    released = _git_show(f"schema/v1/{name}")
    if released is None:
        pytest.skip("no git history with the release commit (a shallow clone or an sdist)")
    assert released == (BASELINE / name).read_bytes()


def test_the_current_v1_is_compatible_with_the_baseline() -> None:
    """Every change of schema/v1 since the baseline is compatible (what make check-compat enforces)."""
    diff = diff_schemas(BASELINE, V1)
    assert [] == [change for change in diff.changes if change.change_class is not ChangeClass.COMPATIBLE]


@pytest.mark.skipif(not JSON_SCHEMA_DIFF.exists(), reason="npm json-schema-diff not installed (npm ci)")
def test_json_schema_diff_agrees_with_the_classifier_on_the_baseline() -> None:
    """json-schema-diff finds the accepted sets of the current v1 grown or shrunk exactly where the
    classifier does, from the baseline."""
    old, new = load_schema_sets(BASELINE, V1)
    assert [] == disagreements(diff_schemas(BASELINE, V1), old, new)


def test_package_and_schema_versions_are_told_apart() -> None:
    """The package version is the same in pyproject and __version__; the schema's major is in its $ids."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["version"] == toolresponse.__version__
    assert {"v1"} == {
        match
        for path in V1.glob("*.schema.json")
        for match in re.findall(r"/schema/(v\d+)/", path.read_text(encoding="utf-8"))
    }


def test_the_changelog_has_an_entry_for_the_package_version() -> None:
    """CHANGELOG.md has a section for the current package version naming its schema version."""
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(toolresponse.__version__)}\].*schema v1", changelog, re.MULTILINE)


def test_every_rule_is_documented() -> None:
    """docs/versioning.md names every rule of the classifier with its class."""
    text = VERSIONING.read_text(encoding="utf-8")
    missing = [name for name, rule in RULES.items() if f"| `{name}` | {rule.change_class} |" not in text]
    assert [] == missing
