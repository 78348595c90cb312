"""The classifier over a table of mutations of the real v1 schema, each with the changes it must report.

Every mutation is applied to a copy of ``schema/v1``; the changes found must be
exactly the expected ones (class, rule and ``file#/json/pointer``), and where
the npm ``json-schema-diff`` is installed it must agree on the direction of
every change it can see.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from json_schema_diff import PROGRAM as JSON_SCHEMA_DIFF
from json_schema_diff import disagreements

from toolresponse.compat import ChangeClass, SchemaDiffError, diff_schemas
from toolresponse.compat._classify import diff_schema_sets
from toolresponse.compat._documents import SchemaSet, load_schema_sets
from toolresponse.compat._rules import RULES

ROOT = Path(__file__).resolve().parent.parent
V1 = ROOT / "schema" / "v1"

TR = "tool-response.schema.json"
EC = "error-code.schema.json"
ST = "status.schema.json"

P = ChangeClass.BREAKING_PRODUCERS
C = ChangeClass.BREAKING_CONSUMERS
B = ChangeClass.BEHAVIOUR
OK = ChangeClass.COMPATIBLE

Documents = dict[str, Any]
Expected = list[tuple[ChangeClass, str, str]]


def _add_code(docs: Documents) -> None:
    codes = docs[EC]
    codes["enum"].append("QUOTA_EXCEEDED")
    codes["x-enum-descriptions"].append("A quota was used up.")
    codes["x-error-codes"]["QUOTA_EXCEEDED"] = {"category": "network", "retryable": False, "http_status": 429}


def _remove_code(docs: Documents) -> None:
    codes = docs[EC]
    index = codes["enum"].index("CONFLICT")
    del codes["enum"][index], codes["x-enum-descriptions"][index]
    del codes["x-error-codes"]["CONFLICT"]


def _rename_code(docs: Documents) -> None:
    docs[EC]["enum"][0] = "MISSING"


def _add_status(docs: Documents) -> None:
    docs[ST]["enum"].append("cancelled")
    docs[ST]["x-enum-descriptions"].append("The caller cancelled the call.")


def _remove_status(docs: Documents) -> None:
    del docs[ST]["enum"][1], docs[ST]["x-enum-descriptions"][1]


def _reorder_statuses(docs: Documents) -> None:
    docs[ST]["enum"].reverse()


def _require_data(docs: Documents) -> None:
    docs[TR]["required"].append("data")


def _unrequire_text(docs: Documents) -> None:
    docs[TR]["required"].remove("text")


def _stats_not_null(docs: Documents) -> None:
    docs[TR]["$defs"]["Stats"]["type"] = "object"


def _text_nullable(docs: Documents) -> None:
    docs[TR]["properties"]["text"]["type"] = ["string", "null"]


def _time_ms_integer(docs: Documents) -> None:
    docs[TR]["$defs"]["Stats"]["properties"]["time_ms"]["type"] = "integer"


def _retry_after_number(docs: Documents) -> None:
    docs[TR]["$defs"]["ErrorInfo"]["properties"]["retry_after_ms"]["type"] = "number"


def _call_id_min_length(docs: Documents) -> None:
    docs[TR]["$defs"]["Context"]["properties"]["call_id"]["minLength"] = 1


def _text_max_length(docs: Documents) -> None:
    docs[TR]["properties"]["text"]["maxLength"] = 100000


def _retry_after_any_integer(docs: Documents) -> None:
    del docs[TR]["$defs"]["ErrorInfo"]["properties"]["retry_after_ms"]["minimum"]


def _message_min_length_raised(docs: Documents) -> None:
    docs[TR]["$defs"]["ErrorInfo"]["properties"]["message"]["minLength"] = 3


def _error_info_hint(docs: Documents) -> None:
    docs[TR]["$defs"]["ErrorInfo"]["properties"]["hint"] = {"type": "string"}


def _error_info_without_details(docs: Documents) -> None:
    del docs[TR]["$defs"]["ErrorInfo"]["properties"]["details"]


def _stats_tokens(docs: Documents) -> None:
    docs[TR]["$defs"]["Stats"]["properties"]["tokens"] = {"type": "integer", "minimum": 0}


def _context_documented_member(docs: Documents) -> None:
    docs[TR]["$defs"]["Context"]["properties"]["trace_id"] = {"description": "A tracing identifier."}


def _stats_closed(docs: Documents) -> None:
    docs[TR]["$defs"]["Stats"]["additionalProperties"] = False


def _error_info_open(docs: Documents) -> None:
    docs[TR]["$defs"]["ErrorInfo"]["additionalProperties"] = True


def _no_vendor_extensions(docs: Documents) -> None:
    del docs[TR]["patternProperties"]


def _error_text_longer(docs: Documents) -> None:
    docs[TR]["then"]["properties"]["text"]["minLength"] = 2


def _condition_changed(docs: Documents) -> None:
    docs[TR]["if"]["properties"]["status"]["const"] = "partial"


def _timeout_category(docs: Documents) -> None:
    docs[EC]["x-error-codes"]["TIMEOUT"]["category"] = "network"


def _conflict_not_retryable(docs: Documents) -> None:
    docs[EC]["x-error-codes"]["CONFLICT"]["retryable"] = False


def _rate_limit_503(docs: Documents) -> None:
    docs[EC]["x-error-codes"]["RATE_LIMIT"]["http_status"] = 503


def _data_default(docs: Documents) -> None:
    docs[TR]["properties"]["data"]["default"] = {"empty": True}


def _descriptions(docs: Documents) -> None:
    docs[TR]["description"] = "The result of one tool call."
    docs[EC]["x-enum-descriptions"][0] = "Nothing by that name exists."


def _title(docs: Documents) -> None:
    docs[TR]["$defs"]["Stats"]["title"] = "RunStats"


def _examples(docs: Documents) -> None:
    docs[TR]["properties"]["text"]["examples"] = ["Read config.py (5 bytes)."]


def _new_annotation(docs: Documents) -> None:
    docs[TR]["properties"]["text"]["x-since"] = "1.0"
    docs[TR]["$defs"]["Context"]["properties"]["call_id"]["deprecated"] = True


def _comment(docs: Documents) -> None:
    docs[EC]["$comment"] = "The metadata of each code is in x-error-codes."


def _new_definition(docs: Documents) -> None:
    docs[TR]["$defs"]["Usage"] = {"type": "object"}


def _new_id(docs: Documents) -> None:
    docs[ST]["$id"] = "https://toolresponse.dev/schema/v1/tool-status.schema.json"


def _ref_same_target(docs: Documents) -> None:
    docs[TR]["properties"]["status"]["$ref"] = "status.schema.json#"


def _ref_other_target(docs: Documents) -> None:
    narrowed = copy.deepcopy(docs[ST])
    narrowed["$id"] = "https://toolresponse.dev/schema/v1/final-status.schema.json"
    narrowed["enum"] = ["success", "error"]
    narrowed["x-enum-descriptions"] = narrowed["x-enum-descriptions"][::2]
    docs["final-status.schema.json"] = narrowed
    docs[TR]["properties"]["status"]["$ref"] = "final-status.schema.json"


def _unknown_keyword(docs: Documents) -> None:
    docs[TR]["dependentRequired"] = {"error_info": ["status"]}


def _schema_removed(docs: Documents) -> None:
    docs["extra.schema.json"] = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}


def _status_dialect(docs: Documents) -> None:
    docs[ST]["$schema"] = "https://json-schema.org/draft/2019-09/schema"


def _call_id_enum(docs: Documents) -> None:
    docs[TR]["$defs"]["Context"]["properties"]["call_id"]["enum"] = ["first", "second"]


def _call_id_const(docs: Documents) -> None:
    docs[TR]["$defs"]["Context"]["properties"]["call_id"]["const"] = "only"


def _stats_rejects_all(docs: Documents) -> None:
    docs[TR]["$defs"]["Stats"] = False


def _status_free_string(docs: Documents) -> None:
    del docs[ST]["enum"], docs[ST]["x-enum-descriptions"]


def _conflict_note(docs: Documents) -> None:
    docs[EC]["x-error-codes"]["CONFLICT"]["note"] = "raised by optimistic locking"


def _conflict_vendor_note(docs: Documents) -> None:
    docs[EC]["x-error-codes"]["CONFLICT"]["x-note"] = "raised by optimistic locking"


def _conflict_vendor_note_changed(docs: Documents) -> None:
    docs[EC]["x-error-codes"]["CONFLICT"]["x-note"] = "raised by any lock"


def _params_input_rejects_items(docs: Documents) -> None:
    docs[TR]["$defs"]["Context"]["properties"]["params_input"]["items"] = False


def _time_ms_deprecated(docs: Documents) -> None:
    docs[TR]["$defs"]["Stats"]["properties"]["time_ms"]["deprecated"] = True


def _time_ms_not_deprecated(docs: Documents) -> None:
    docs[TR]["$defs"]["Stats"]["properties"]["time_ms"]["deprecated"] = False


MUTATIONS: list[tuple[str, Callable[[Documents], None], Expected]] = [
    (
        "a new error code",
        _add_code,
        [
            (C, "enum-value-added", f"{EC}#/enum/15"),
            (OK, "description-changed", f"{EC}#/x-enum-descriptions"),
            (OK, "code-metadata-added", f"{EC}#/x-error-codes/QUOTA_EXCEEDED"),
        ],
    ),
    (
        "a removed error code",
        _remove_code,
        [
            (P, "enum-value-removed", f"{EC}#/enum/10"),
            (OK, "description-changed", f"{EC}#/x-enum-descriptions"),
            (B, "code-metadata-removed", f"{EC}#/x-error-codes/CONFLICT"),
        ],
    ),
    (
        "a renamed error code",
        _rename_code,
        [(P, "enum-value-removed", f"{EC}#/enum/0"), (C, "enum-value-added", f"{EC}#/enum/0")],
    ),
    (
        "a new status",
        _add_status,
        [(C, "enum-value-added", f"{ST}#/enum/3"), (OK, "description-changed", f"{ST}#/x-enum-descriptions")],
    ),
    (
        "a removed status",
        _remove_status,
        [
            (P, "enum-value-removed", f"{ST}#/enum/1"),
            (OK, "description-changed", f"{ST}#/x-enum-descriptions"),
        ],
    ),
    ("reordered statuses", _reorder_statuses, [(OK, "enum-reordered", f"{ST}#/enum")]),
    ("a new required member", _require_data, [(P, "required-added", f"{TR}#/required")]),
    ("a member no longer required", _unrequire_text, [(C, "required-removed", f"{TR}#/required")]),
    ("a type narrowed (null dropped)", _stats_not_null, [(P, "type-narrowed", f"{TR}#/$defs/Stats/type")]),
    ("a type widened (null added)", _text_nullable, [(C, "type-widened", f"{TR}#/properties/text/type")]),
    (
        "number narrowed to integer",
        _time_ms_integer,
        [(P, "type-narrowed", f"{TR}#/$defs/Stats/properties/time_ms/type")],
    ),
    (
        "integer widened to number",
        _retry_after_number,
        [(C, "type-widened", f"{TR}#/$defs/ErrorInfo/properties/retry_after_ms/type")],
    ),
    (
        "a new minimum length",
        _call_id_min_length,
        [(P, "constraint-tightened", f"{TR}#/$defs/Context/properties/call_id/minLength")],
    ),
    (
        "a new maximum length",
        _text_max_length,
        [(P, "constraint-tightened", f"{TR}#/properties/text/maxLength")],
    ),
    (
        "a minimum removed",
        _retry_after_any_integer,
        [(C, "constraint-relaxed", f"{TR}#/$defs/ErrorInfo/properties/retry_after_ms/minimum")],
    ),
    (
        "a minimum length raised",
        _message_min_length_raised,
        [(P, "constraint-tightened", f"{TR}#/$defs/ErrorInfo/properties/message/minLength")],
    ),
    (
        "a new member of the closed error_info",
        _error_info_hint,
        [(C, "property-added", f"{TR}#/$defs/ErrorInfo/properties/hint")],
    ),
    (
        "a member removed from the closed error_info",
        _error_info_without_details,
        [(P, "property-removed", f"{TR}#/$defs/ErrorInfo/properties/details")],
    ),
    (
        "a new constrained member of the open stats",
        _stats_tokens,
        [(P, "property-constrained", f"{TR}#/$defs/Stats/properties/tokens")],
    ),
    (
        "a new documented member of the open context",
        _context_documented_member,
        [(OK, "description-changed", f"{TR}#/$defs/Context/properties/trace_id/description")],
    ),
    (
        "the open stats closed",
        _stats_closed,
        [(P, "additional-properties-closed", f"{TR}#/$defs/Stats/additionalProperties")],
    ),
    (
        "the closed error_info opened",
        _error_info_open,
        [(C, "additional-properties-opened", f"{TR}#/$defs/ErrorInfo/additionalProperties")],
    ),
    (
        "vendor extensions no longer accepted",
        _no_vendor_extensions,
        [(P, "additional-properties-closed", f"{TR}#/patternProperties/^x-")],
    ),
    (
        "a branch constraint tightened",
        _error_text_longer,
        [(P, "constraint-tightened", f"{TR}#/then/properties/text/minLength")],
    ),
    (
        "an if-condition changed",
        _condition_changed,
        [(P, "condition-changed", f"{TR}#/if/properties/status/const")],
    ),
    (
        "a code's category",
        _timeout_category,
        [(B, "code-category-changed", f"{EC}#/x-error-codes/TIMEOUT/category")],
    ),
    (
        "a code's default retryability",
        _conflict_not_retryable,
        [(B, "code-retryable-changed", f"{EC}#/x-error-codes/CONFLICT/retryable")],
    ),
    (
        "a code's HTTP status",
        _rate_limit_503,
        [(B, "code-http-status-changed", f"{EC}#/x-error-codes/RATE_LIMIT/http_status")],
    ),
    ("a default", _data_default, [(B, "default-changed", f"{TR}#/properties/data/default")]),
    (
        "descriptions",
        _descriptions,
        [
            (OK, "description-changed", f"{EC}#/x-enum-descriptions"),
            (OK, "description-changed", f"{TR}#/description"),
        ],
    ),
    ("a comment", _comment, [(OK, "comment-changed", f"{EC}#/$comment")]),
    ("a title", _title, [(OK, "title-changed", f"{TR}#/$defs/Stats/title")]),
    ("examples", _examples, [(OK, "examples-changed", f"{TR}#/properties/text/examples")]),
    (
        "new annotations",
        _new_annotation,
        [
            (OK, "annotation-added", f"{TR}#/properties/text/x-since"),
            (OK, "annotation-added", f"{TR}#/$defs/Context/properties/call_id/deprecated"),
        ],
    ),
    ("a new definition", _new_definition, [(OK, "definition-added", f"{TR}#/$defs/Usage")]),
    ("a new $id", _new_id, [(P, "id-changed", f"{ST}#/$id")]),
    (
        "a $ref to the same schema",
        _ref_same_target,
        [(OK, "ref-retargeted", f"{TR}#/properties/status/$ref")],
    ),
    (
        "a $ref to a narrower schema",
        _ref_other_target,
        [
            (OK, "schema-added", "final-status.schema.json#"),
            (P, "id-changed", "final-status.schema.json#/$id"),
            (P, "enum-value-removed", "final-status.schema.json#/enum/1"),
            (OK, "description-changed", "final-status.schema.json#/x-enum-descriptions"),
        ],
    ),
    (
        "an unknown keyword",
        _unknown_keyword,
        [(P, "unknown-keyword-changed", f"{TR}#/dependentRequired")],
    ),
    ("a new schema document", _schema_removed, [(OK, "schema-added", "extra.schema.json#")]),
    ("a new dialect", _status_dialect, [(P, "dialect-changed", f"{ST}#/$schema")]),
    (
        "a free string limited to a set",
        _call_id_enum,
        [(P, "enum-introduced", f"{TR}#/$defs/Context/properties/call_id/enum")],
    ),
    (
        "a free string limited to one value",
        _call_id_const,
        [(P, "const-changed", f"{TR}#/$defs/Context/properties/call_id/const")],
    ),
    ("a definition rejecting all", _stats_rejects_all, [(P, "subschema-rejects-all", f"{TR}#/$defs/Stats")]),
    (
        "the statuses no longer a closed set",
        _status_free_string,
        [
            (C, "enum-lifted", f"{ST}#/enum"),
            (OK, "description-changed", f"{ST}#/x-enum-descriptions"),
        ],
    ),
    (
        "other metadata of a code",
        _conflict_note,
        [(B, "code-metadata-changed", f"{EC}#/x-error-codes/CONFLICT/note")],
    ),
    (
        "a new vendor annotation of a code",
        _conflict_vendor_note,
        [(OK, "annotation-added", f"{EC}#/x-error-codes/CONFLICT/x-note")],
    ),
]

# Changes the released schema cannot show as its old side (it has no ``false``
# subschema, no ``deprecated`` note): (name, old side, new side, expected).
PAIRS: list[tuple[str, Callable[[Documents], None], Callable[[Documents], None], Expected]] = [
    (
        "a subschema that rejected all now accepts",
        _params_input_rejects_items,
        lambda docs: None,
        [(C, "subschema-accepts-more", f"{TR}#/$defs/Context/properties/params_input/items")],
    ),
    (
        "a deprecation withdrawn",
        _time_ms_deprecated,
        _time_ms_not_deprecated,
        [(B, "annotation-changed", f"{TR}#/$defs/Stats/properties/time_ms/deprecated")],
    ),
    (
        "a vendor annotation of a code changed",
        _conflict_vendor_note,
        _conflict_vendor_note_changed,
        [(B, "annotation-changed", f"{EC}#/x-error-codes/CONFLICT/x-note")],
    ),
    (
        "a vendor annotation of a code removed",
        _conflict_vendor_note,
        lambda docs: None,
        [(B, "annotation-changed", f"{EC}#/x-error-codes/CONFLICT/x-note")],
    ),
]

# Rules exercised by a dedicated test below rather than by the tables.
DEDICATED = {"schema-removed", "definition-removed"}


@pytest.fixture(scope="module")
def released() -> SchemaSet:
    return load_schema_sets(V1, V1)[0]


def _mutated(released: SchemaSet, mutate: Callable[[Documents], None]) -> SchemaSet:
    documents = copy.deepcopy(dict(released.documents))
    mutate(documents)
    return SchemaSet("mutated", documents)


def test_the_table_covers_every_class_with_at_least_fifteen_mutations() -> None:
    """The mutation table has at least 15 entries and reaches every class."""
    classes = {cls for _, _, expected in MUTATIONS for cls, _, _ in expected}
    assert len(MUTATIONS) >= 15
    assert set(ChangeClass) == classes


@pytest.mark.parametrize(("mutate", "expected"), [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_mutation_is_classified(
    released: SchemaSet, mutate: Callable[[Documents], None], expected: Expected
) -> None:
    """Each mutation of the real v1 schema gives exactly the expected changes."""
    diff = diff_schema_sets(released, _mutated(released, mutate))
    assert expected == [(change.change_class, change.rule, change.pointer) for change in diff.changes]
    assert all(RULES[change.rule].change_class is change.change_class for change in diff.changes)


@pytest.mark.parametrize(("old", "new", "expected"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_pair_is_classified(
    released: SchemaSet,
    old: Callable[[Documents], None],
    new: Callable[[Documents], None],
    expected: Expected,
) -> None:
    """Two mutations compared with each other give exactly the expected changes."""
    diff = diff_schema_sets(_mutated(released, old), _mutated(released, new))
    assert expected == [(change.change_class, change.rule, change.pointer) for change in diff.changes]


def test_every_rule_is_exercised() -> None:
    """Each rule of the classifier is expected by some mutation, pair or dedicated test."""
    expectations = [m[2] for m in MUTATIONS] + [p[3] for p in PAIRS]
    tabled = {rule for expected in expectations for _, rule, _ in expected}
    assert set() == set(RULES) - tabled - DEDICATED


@pytest.mark.skipif(not JSON_SCHEMA_DIFF.exists(), reason="npm json-schema-diff not installed (npm ci)")
@pytest.mark.parametrize("mutate", [m[1] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_json_schema_diff_agrees_on_every_mutation(
    released: SchemaSet, mutate: Callable[[Documents], None]
) -> None:
    """json-schema-diff finds the set growing or shrinking exactly where the classifier says so."""
    new = _mutated(released, mutate)
    assert [] == disagreements(diff_schema_sets(released, new), released, new)


@pytest.mark.skipif(not JSON_SCHEMA_DIFF.exists(), reason="npm json-schema-diff not installed (npm ci)")
def test_a_classifier_that_misses_a_change_is_caught(released: SchemaSet) -> None:
    """A diff that leaves out a change json-schema-diff sees yields a disagreement naming the direction."""
    new = _mutated(released, _require_data)
    silent = diff_schema_sets(released, released)
    assert ["json-schema-diff: shrank (tool-response.schema.json); the classifier: no"] == disagreements(
        silent, released, new
    )


def test_an_unchanged_schema_has_no_changes(released: SchemaSet) -> None:
    """The released schema compared with itself has no changes."""
    assert () == diff_schema_sets(released, released).changes


def test_a_removed_document_breaks_producers(released: SchemaSet) -> None:
    """A document that is gone from the new side is schema-removed."""
    documents = dict(released.documents)
    del documents[ST]
    diff = diff_schema_sets(released, SchemaSet("new", documents))
    assert [(P, "schema-removed", f"{ST}#")] == [(c.change_class, c.rule, c.pointer) for c in diff.changes]


def test_a_removed_definition_breaks_producers(released: SchemaSet) -> None:
    """A $defs entry that is gone is definition-removed (third parties may reference it)."""
    documents = copy.deepcopy(dict(released.documents))
    documents[TR]["$defs"]["Spare"] = {"type": "object"}
    diff = diff_schema_sets(SchemaSet("old", documents), released)
    assert [(P, "definition-removed", f"{TR}#/$defs/Spare")] == [
        (c.change_class, c.rule, c.pointer) for c in diff.changes
    ]


def test_the_major_version_is_read_from_the_ids(released: SchemaSet) -> None:
    """The released v1 set names v2 as what a breaking change needs."""
    assert "v2" == diff_schema_sets(released, released).needs


def test_two_files_are_compared_as_one_document(tmp_path: Path) -> None:
    """Two files of different names are compared with each other."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text('{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}')
    new.write_text('{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": ["string", "null"]}')
    diff = diff_schemas(old, new)
    assert [(C, "type-widened", "new.json#/type")] == [
        (c.change_class, c.rule, c.pointer) for c in diff.changes
    ]


def test_dependent_schemas_are_reported_in_the_documents_order(tmp_path: Path) -> None:
    """Changes under dependentSchemas come in the order the documents name them, the same in
    every run (not in the order of a set, which changes with the hash seed)."""
    names = [f"member{index}" for index in range(12)]
    head = '{"$schema": "https://json-schema.org/draft/2020-12/schema", "dependentSchemas": '
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(head + json.dumps({name: {"type": "string"} for name in names}) + "}")
    new.write_text(head + json.dumps({name: {"type": ["string", "null"]} for name in names}) + "}")
    pointers = [change.pointer for change in diff_schemas(old, new).changes]
    assert [f"new.json#/dependentSchemas/{name}/type" for name in names] == pointers


def test_a_directory_and_a_file_cannot_be_compared(tmp_path: Path) -> None:
    """Mixing a directory and a file is a SchemaDiffError naming both."""
    with pytest.raises(SchemaDiffError, match="two directories or two files"):
        load_schema_sets(V1, V1 / TR)


def test_a_dangling_ref_names_the_document(tmp_path: Path) -> None:
    """A $ref that names no document is a SchemaDiffError with the file."""
    shutil.copytree(V1, tmp_path / "new", ignore=shutil.ignore_patterns("examples"))
    (tmp_path / "new" / ST).unlink()
    text = (tmp_path / "new" / TR).read_text().replace('"status.schema.json"', '"gone.schema.json"')
    (tmp_path / "new" / TR).write_text(text)
    with pytest.raises(SchemaDiffError, match=r"tool-response\.schema\.json.*gone\.schema\.json"):
        diff_schemas(V1, tmp_path / "new")


def test_a_malformed_file_names_itself(tmp_path: Path) -> None:
    """A file that is not JSON is a SchemaDiffError naming the file."""
    (tmp_path / "a.json").write_text('{"$schema": 1,')
    (tmp_path / "b.json").write_text("{}")
    with pytest.raises(SchemaDiffError, match=r"a\.json"):
        diff_schemas(tmp_path / "a.json", tmp_path / "b.json")


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        ({"const": 1}, {"const": 1.0}, True),
        ({"const": 1}, {"const": True}, True),
        ({"const": [0]}, {"const": [False]}, True),
        ({"const": {"a": [1, {"b": None}], "c": "é"}}, {"const": {"c": "é", "a": [1, {"b": None}]}}, False),
        ({"enum": [{"x": 1, "y": 2}]}, {"enum": [{"y": 2, "x": 1}]}, False),
    ],
)
def test_values_are_the_same_exactly_when_they_are_the_same_json(
    old: dict[str, Any], new: dict[str, Any], changed: bool
) -> None:
    """1, 1.0 and true are three JSON values; members in another order are the same value."""
    diff = diff_schema_sets(SchemaSet("old", {"s.json": old}), SchemaSet("new", {"s.json": new}))
    assert changed == bool(diff.changes)
