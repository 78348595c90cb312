"""``toolresponse schema diff``: text and JSON reports, exit statuses, schemas of any readable depth."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from toolresponse.cli import main

ROOT = Path(__file__).resolve().parent.parent
V1 = ROOT / "schema" / "v1"
BASELINE = ROOT / "schema" / "baseline" / "v1.0.0"


def _copy(tmp_path: Path) -> Path:
    """A copy of the released baseline, to change: each test's diff is then the change it makes."""
    target = tmp_path / "v1"
    shutil.copytree(BASELINE, target)
    return target


def _edit(directory: Path, name: str, key: str, value: Any) -> None:
    path = directory / name
    document = json.loads(path.read_text(encoding="utf-8"))
    *parents, last = key.split("/")
    node = document
    for part in parents:
        node = node[part]
    node[last] = value
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")


def _new_code(directory: Path) -> None:
    document = json.loads((directory / "error-code.schema.json").read_text(encoding="utf-8"))
    _edit(directory, "error-code.schema.json", "enum", [*document["enum"], "QUOTA_EXCEEDED"])


def test_an_unchanged_schema_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The baseline against a copy of itself exits 0 and reports no changes."""
    assert 0 == main(["schema", "diff", str(BASELINE), str(_copy(tmp_path)), "--fail-on", "behaviour"])
    assert "0 changes from" in capsys.readouterr().out


def test_the_current_schema_changes_nothing_but_compatibly(capsys: pytest.CaptureFixture[str]) -> None:
    """The baseline against the current v1 (what `make check-compat` runs) exits 0 even with
    --fail-on behaviour: every change since the release is compatible."""
    assert 0 == main(["schema", "diff", str(BASELINE), str(V1), "--fail-on", "behaviour"])
    assert (
        "0 breaking for producers, 0 breaking for consumers, 0 behaviour change," in capsys.readouterr().out
    )


def test_a_new_error_code_fails_naming_pointer_rule_and_v2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new code exits 1; the line names the pointer, the class, the rule and that it needs v2."""
    new = _copy(tmp_path)
    _new_code(new)
    assert 1 == main(["schema", "diff", str(BASELINE), str(new)])
    out = capsys.readouterr().out
    assert (
        'error-code.schema.json#/enum/15: breaking for consumers [enum-value-added]: "QUOTA_EXCEEDED" was '
        "added to a closed set; consumers that switch over every value break; this needs v2"
    ) in out.splitlines()
    assert "FAIL: 1 changes are not allowed within v1: this needs v2" in out


def test_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--format json gives every change with class, rule, pointer and keyword, the counts and the verdict."""
    new = _copy(tmp_path)
    _edit(new, "tool-response.schema.json", "required", ["status", "text", "data"])
    assert 1 == main(["schema", "diff", str(BASELINE), str(new), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert [
        {
            "class": "breaking-producers",
            "rule": "required-added",
            "pointer": "tool-response.schema.json#/required",
            "keyword": "required",
            "message": "member 'data' is now required",
        }
    ] == report["changes"]
    assert (True, "v2", 1) == (report["failed"], report["needs"], report["counts"]["breaking-producers"])


def test_a_behaviour_change_fails_only_with_fail_on_behaviour(tmp_path: Path) -> None:
    """A code's new HTTP status passes the default (breaking) and fails --fail-on behaviour."""
    new = _copy(tmp_path)
    _edit(new, "error-code.schema.json", "x-error-codes/RATE_LIMIT/http_status", 503)
    assert 0 == main(["schema", "diff", str(BASELINE), str(new)])
    assert 1 == main(["schema", "diff", str(BASELINE), str(new), "--fail-on", "behaviour"])


def test_a_compatible_change_passes_even_a_frozen_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new description is reported and passes --fail-on behaviour."""
    new = _copy(tmp_path)
    _edit(new, "status.schema.json", "description", "How a tool call ended.")
    assert 0 == main(["schema", "diff", str(BASELINE), str(new), "--fail-on", "behaviour"])
    assert "status.schema.json#/description: compatible [description-changed]" in capsys.readouterr().out


def test_an_unreadable_side_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A path with no schema documents exits 2 with a one-line reason on standard error."""
    assert 2 == main(["schema", "diff", str(BASELINE), str(tmp_path)])
    assert "no JSON Schema documents" in capsys.readouterr().err


@pytest.mark.parametrize("missing_side", ["old", "new"])
def test_a_missing_side_is_named_as_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], missing_side: str
) -> None:
    """A path that does not exist is said to be missing, not a directory compared with a file."""
    missing = tmp_path / "nope"
    sides = [str(missing), str(BASELINE)] if missing_side == "old" else [str(BASELINE), str(missing)]
    assert 2 == main(["schema", "diff", *sides])
    assert f"toolresponse schema diff: {missing}: no such file or directory\n" == capsys.readouterr().err


def test_two_files_are_named_in_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Compared as two files, the summary and the JSON report name the files, not their directory."""
    old = BASELINE / "status.schema.json"
    new = _copy(tmp_path) / "status.schema.json"
    _edit(new.parent, "status.schema.json", "description", "How a tool call ended.")
    assert 0 == main(["schema", "diff", str(old), str(new)])
    assert f"1 changes from {old} to {new}: " in capsys.readouterr().out
    assert 0 == main(["schema", "diff", str(old), str(new), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert (str(old), str(new)) == (report["old"], report["new"])


# -- deep schemas: answered as deep as the reader reads ---------------------------------------

# Each keyword's nesting as text (a schema this deep cannot go through json.dumps): what opens
# and closes one level, the pointer of one level, and how many levels fit in the reader's 1024
# (one for the document, one for the innermost schema).
DEEP = {
    "not": ('{"not":', "}", "/not", 1022),
    "items": ('{"items":', "}", "/items", 1022),
    "allOf": ('{"allOf":[', "]}", "/allOf/0", 511),
    "anyOf": ('{"anyOf":[', "]}", "/anyOf/0", 511),
    "properties": ('{"properties":{"a":', "}}", "/properties/a", 511),
    "$defs": ('{"$defs":{"a":', "}}", "/$defs/a", 511),
}


def _deep(directory: Path, keyword: str, levels: int, leaf: str) -> Path:
    opening, closing, _, _ = DEEP[keyword]
    schema = opening * levels + f'{{"type":"{leaf}"}}' + closing * levels
    directory.mkdir()
    path = directory / "deep.schema.json"
    path.write_text('{"$schema":"https://json-schema.org/draft/2020-12/schema","allOf":[' + schema + "]}")
    return path


@pytest.mark.parametrize("keyword", DEEP)
def test_a_schema_nested_as_deep_as_the_reader_reads_is_compared(
    keyword: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema nested through one keyword to the reader's limit: the same on both sides exits 0
    with no change; a type changed at the bottom is found there (exit 1, a real finding)."""
    _, _, step, fits = DEEP[keyword]
    levels = fits - 1  # the document's own allOf takes one level of two (an array and an object)
    old = _deep(tmp_path / "old", keyword, levels, "string")
    same = _deep(tmp_path / "same", keyword, levels, "string")
    new = _deep(tmp_path / "new", keyword, levels, "integer")

    assert 0 == main(["schema", "diff", str(old), str(same)])
    assert "0 changes from" in capsys.readouterr().out
    assert 1 == main(["schema", "diff", str(old), str(new), "--format", "json"])
    changes = json.loads(capsys.readouterr().out)["changes"]
    pointer = "deep.schema.json#/allOf/0" + step * levels + "/type"
    assert [(pointer, "type"), (pointer, "type")] == [(c["pointer"], c["keyword"]) for c in changes]


def test_a_schema_nested_deeper_than_the_reader_reads_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One level past the reader's limit: exit 2 and one line saying so, no traceback."""
    old = _deep(tmp_path / "old", "not", 1022, "string")
    new = _deep(tmp_path / "new", "not", 1022, "integer")
    assert 2 == main(["schema", "diff", str(old), str(new)])
    err = capsys.readouterr().err
    assert 1 == len(err.splitlines())
    assert "nested deeper than 1024 levels" in err
