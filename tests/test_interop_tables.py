"""The data of ``schema/v1/interop/``: the inference table (``text-inference.json``) and the JSON
Schemas of an MCP result and of its ToolFailure member, which both implementations read, and each
other dialect's record shape, which Python reads. The generator refuses a rule whose pattern would
not mean the same in Python and ECMAScript (or that is malformed), and an edited table makes the
drift check of both languages fail until regenerated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_drift import GENERATED, TS_GENERATED, check, copy_checkout, edit_json, ts_check, ts_checkout
from test_http_binding_generated import GENERATOR

from toolresponse.interop import DIALECTS, dialect
from toolresponse_generated import INFERENCE_RULES, MCP_RESULT_SHAPE, TOOL_FAILURE_SHAPE

__all__ = ["ts_checkout"]  # the fixture, for the TypeScript drift test

ROOT = Path(__file__).resolve().parent.parent
INTEROP = ROOT / "schema" / "v1" / "interop"
TABLE = "schema/v1/interop/text-inference.json"


def test_the_runtime_reads_the_committed_documents() -> None:
    rules = json.loads((INTEROP / "text-inference.json").read_text(encoding="utf-8"))["rules"]
    assert rules == [
        {"signal": r.signal, "pattern": r.pattern, "ignore_case": r.ignore_case, "code": r.code.value}
        for r in INFERENCE_RULES
    ]
    for shape, name in ((MCP_RESULT_SHAPE, "mcp-call-tool-result"), (TOOL_FAILURE_SHAPE, "mcp-tool-failure")):
        assert json.loads((INTEROP / f"{name}.schema.json").read_text(encoding="utf-8")) == shape


def _document(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((INTEROP / name).read_text(encoding="utf-8"))
    return document


def test_each_dialect_checks_records_against_its_committed_document() -> None:
    """One document per dialect, ``<name>.schema.json`` (MCP's named for the CallToolResult), read
    as it is, a reference to another document of the directory as that document."""
    files = {f"{'mcp-call-tool-result' if name == 'mcp' else name}.schema.json": name for name in DIALECTS}
    del files["toolresponse.schema.json"]
    assert sorted([*files, "mcp-tool-failure.schema.json"]) == sorted(
        p.name for p in INTEROP.glob("*.schema.json")
    )
    fields = {key: value for key, value in _document("langchain.schema.json").items() if key[0] != "$"}
    for file, name in files.items():
        document = _document(file)
        assert f"https://toolresponse.dev/schema/v1/interop/{file}" == document["$id"]
        if name == "langchain-dict":
            assert {"$ref": "langchain.schema.json"} == document["properties"]["data"]
            document["properties"]["data"] = fields
        assert document == dialect(name).shape.schema, name


def test_the_generator_refuses_a_reference_to_no_document() -> None:
    with pytest.raises(SystemExit) as stopped:
        GENERATOR.inlined({"properties": {"data": {"$ref": "nowhere.schema.json"}}})
    assert "schema/v1/interop: a reference to nowhere.schema.json, not a document there" == str(stopped.value)


def test_every_committed_pattern_means_the_same_in_both_languages() -> None:
    assert [None] * len(INFERENCE_RULES) == [
        GENERATOR.pattern_problem(rule.pattern) for rule in INFERENCE_RULES
    ]


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        (r"time\s+out", r"has the escape \s, which is not one of \b \B \d \D \w \W"),
        ("done$", "has $ (escape it as \\$ to match a dollar sign)"),
        ("(?i)timeout", "has a group other than (...), (?:...), (?=...), (?!...), (?<=...) and (?<!...)"),
        ("(?P<name>x)", "has a group other than (...), (?:...), (?=...), (?!...), (?<=...) and (?<!...)"),
        ("a{,3}", "has { that is not a quantifier {n}, {n,} or {n,m} (escape it as \\{)"),
        ("[[a]]", "has [ inside a character class"),
        ("[]a]", "has an empty character class"),
        ("délai", "holds a character that is not printable ASCII"),
        ("ends with \\", "ends with a backslash"),
        (r"[\b]", r"has the escape \b, which is not one of \b \B \d \D \w \W"),
    ],
)
def test_a_pattern_that_differs_between_the_languages_is_named(pattern: str, problem: str) -> None:
    assert problem == GENERATOR.pattern_problem(pattern)


@pytest.mark.parametrize("pattern", [r"\bEPIPE\b", r"a(?:b|c){2,}", r"(?<!x)y(?=z)", r"\$\{1\}", r"[^a-z\]]"])
def test_a_portable_pattern_passes(pattern: str) -> None:
    assert GENERATOR.pattern_problem(pattern) is None


def _rules_with(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *edits: dict[str, Any]) -> None:
    """The generator's table replaced by the committed one with ``edits`` as its first rules."""
    table = json.loads((INTEROP / "text-inference.json").read_text(encoding="utf-8"))
    table["rules"][: len(edits)] = edits
    path = tmp_path / "text-inference.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    monkeypatch.setattr(GENERATOR, "INFERENCE_TABLE", path)
    monkeypatch.setattr(GENERATOR, "relative", lambda _: TABLE)


RULE = {"signal": "ENOENT", "pattern": r"\bENOENT\b", "ignore_case": False, "code": "NOT_FOUND"}


@pytest.mark.parametrize(
    ("edits", "reason"),
    [
        (
            [{**RULE, "pattern": r"\sENOENT"}],
            "rules/0: the pattern has the escape \\s, which is not one of \\b \\B \\d \\D \\w \\W;"
            " it must mean the same in Python and ECMAScript",
        ),
        ([{**RULE, "code": "MISSING"}], "rules/0: code 'MISSING' is not one of the error codes"),
        ([RULE, RULE], "rules/1: the signal must be a non-empty string that no other rule has"),
        (
            [{**RULE, "pattern": "(a"}],
            "rules/0: the pattern does not compile: missing ), unterminated subpattern",
        ),
        (
            [{"pattern": r"\bX\b", "signal": "X", "ignore_case": False, "code": "NOT_FOUND"}],
            "rules/0: a rule is an object of signal, pattern, ignore_case, code, in that order",
        ),
    ],
)
def test_the_generator_refuses_a_rule_it_cannot_carry_to_both_languages(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, edits: list[dict[str, Any]], reason: str
) -> None:
    _rules_with(monkeypatch, tmp_path, *edits)
    with pytest.raises(SystemExit) as stopped:
        GENERATOR.inference_rules()
    assert f"{TABLE}: {reason}" in str(stopped.value)


def _edit_rule(checkout: Path) -> None:
    def edit(table: dict[str, Any]) -> None:
        table["rules"][0]["code"] = "IS_DIRECTORY"

    edit_json(checkout / TABLE, edit)


def test_an_edited_inference_table_fails_the_python_check_until_generated(tmp_path: Path) -> None:
    checkout = copy_checkout(tmp_path)
    _edit_rule(checkout)

    result = check(checkout)

    assert 1 == result.returncode
    assert "+        code=ErrorCode.IS_DIRECTORY,\n" in result.stdout
    assert f"{GENERATED}/interop.py" in result.stderr
    assert "+| ENOENT | `IS_DIRECTORY` | `\\bENOENT\\b` | exact |\n" in result.stdout


def test_an_edited_inference_table_fails_the_typescript_check_until_generated(ts_checkout: Path) -> None:
    _edit_rule(ts_checkout)

    result = ts_check(ts_checkout)

    assert 1 == result.returncode, result.stderr
    assert f"{TS_GENERATED}/interop.ts" in result.stderr
    rule = 'Object.freeze({ signal: "ENOENT", pattern: new RegExp("\\\\bENOENT\\\\b", ""),'
    rule += ' code: "IS_DIRECTORY" }),'
    assert f"+  {rule}\n" in result.stdout
