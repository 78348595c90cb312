"""Generate everything that is derived from ``schema/v1``, or check that it is current.

``python codegen/generate.py`` writes; ``python codegen/generate.py --check``
builds the same outputs in memory, prints a unified diff of whatever differs
from the files on disk and exits 1 with the command to run.

Outputs, all deterministic (no timestamps):

* ``generated/python/toolresponse_generated/models.py``: dataclasses and enums,
  by datamodel-codegen with the options in ``[tool.datamodel-codegen]`` of
  ``pyproject.toml``;
* ``generated/python/toolresponse_generated/error_codes.py``: each code's
  category, default retryability, HTTP status, meaning and MCP ToolFailure
  class and code, read from the annotations of
  ``schema/v1/error-code.schema.json`` (datamodel-codegen does not emit custom
  annotations), and the ToolFailure table read backwards (``TOOL_FAILURE_CODES``);
* ``generated/python/toolresponse_generated/tool-response.v1.schema.json``: the
  schema bundled into one file, external references rewritten to ``$defs``;
* ``generated/python/toolresponse_generated/examples/``: copies of
  ``schema/v1/examples``, so that the installed package carries them;
* ``generated/python/toolresponse_generated/http-binding.openapi.json``: a copy
  of the HTTP binding's OpenAPI document;
* ``generated/python/toolresponse_generated/http-binding.resolved.openapi.json``:
  that document with the bundled schema placed in ``components/schemas`` and every
  reference pointing there, so that any OpenAPI tool resolves it (the document
  ``toolresponse conformance`` runs schemathesis with);
* ``generated/python/toolresponse_generated/http_binding.py``: the binding's
  constants (paths, the call-id header and its rules, the tool-name pattern, the
  body limit, the statuses of the codes and the two answers whose status is not
  their code's), read from that document and the per-code metadata, each checked
  against the other;
* ``generated/python/toolresponse_generated/conformance/``: copies of the HTTP
  conformance fixtures ``tests/conformance/v1/http/*.json`` and of
  ``tests/conformance/fixture.schema.json``, which ``toolresponse conformance`` runs;
* in ``docs/tool-response-protocol.md``, between fence comments: the error-code
  catalog table, and each example included from ``schema/v1/examples``
  (``<!-- BEGIN GENERATED: example NAME.json -->`` ... ``<!-- END GENERATED: example -->``);
* ``generated/python/toolresponse_generated/interop.py``: the documents of
  ``schema/v1/interop/`` that ``toolresponse.interop`` reads: the JSON Schemas of an MCP
  ``CallToolResult`` and of its ToolFailure member, and the inference table
  (``text-inference.json``: the code of a third-party error text, from its words), each
  rule's pattern checked to mean the same in Python and in ECMAScript (the TypeScript
  package reads these three too); and each other dialect's record shape
  (``<dialect>.schema.json``);
* in ``docs/mcp-binding.md``, between fence comments: the ToolFailure table (each code's
  ``x-mcp-tool-failure``) and the inference table.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import pprint
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schema" / "v1"
ROOT_SCHEMA = SCHEMA_DIR / "tool-response.schema.json"
ERROR_CODE_SCHEMA = SCHEMA_DIR / "error-code.schema.json"
PACKAGE_DIR = ROOT / "generated" / "python" / "toolresponse_generated"
PROTOCOL_DOC = ROOT / "docs" / "tool-response-protocol.md"
MCP_BINDING_DOC = ROOT / "docs" / "mcp-binding.md"
BINDING_DOCUMENT = SCHEMA_DIR / "http-binding.openapi.json"
RESOLVED_BINDING_NAME = "http-binding.resolved.openapi.json"
FIXTURE_SCHEMA = ROOT / "tests" / "conformance" / "fixture.schema.json"
HTTP_FIXTURE_DIR = ROOT / "tests" / "conformance" / "v1" / "http"
PACKAGED_CONFORMANCE_DIR = PACKAGE_DIR / "conformance"
REFS_MODULE = ROOT / "runtime" / "toolresponse" / "http" / "_refs.py"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
INTEROP_DIR = SCHEMA_DIR / "interop"
INTEROP_SHAPES = {
    "MCP_RESULT_SHAPE": INTEROP_DIR / "mcp-call-tool-result.schema.json",
    "TOOL_FAILURE_SHAPE": INTEROP_DIR / "mcp-tool-failure.schema.json",
    **{
        path.name.removesuffix(".schema.json").replace("-", "_").upper() + "_SHAPE": path
        for path in sorted(INTEROP_DIR.glob("*.schema.json"))
        if not path.name.startswith("mcp-")
    },
}
"""The JSON Schemas of schema/v1/interop, by the name the runtime gives each: MCP's two, then each
other dialect's record shape (``<dialect>.schema.json`` is ``<DIALECT>_SHAPE``, ``_`` for ``-``)."""
INFERENCE_TABLE = INTEROP_DIR / "text-inference.json"
COMMAND = "make generate"

CATALOG_BEGIN = "<!-- BEGIN GENERATED: error-code catalog (make generate) -->"
CATALOG_END = "<!-- END GENERATED: error-code catalog -->"
TOOL_FAILURE_BEGIN = "<!-- BEGIN GENERATED: ToolFailure table (make generate) -->"
TOOL_FAILURE_END = "<!-- END GENERATED: ToolFailure table -->"
INFERENCE_BEGIN = "<!-- BEGIN GENERATED: inference table (make generate) -->"
INFERENCE_END = "<!-- END GENERATED: inference table -->"

TOOL_FAILURE_MEMBER = "x-mcp-tool-failure"
"""A code's annotation in ``x-error-codes``: the class and code of the MCP ToolFailure member."""
TOOL_FAILURE_CLASSES = ("capability", "reliability", "governance")
"""The classes of the MCP ToolFailure proposal (SEP-3313): how a client reacts to a failure."""
RETRYABLE_CLASS = "reliability"
"""The one class whose failures the proposal lets a client retry (``retryable`` is true only there)."""


def header(source: str) -> str:
    return f"# Generated by `{COMMAND}` from {source}; do not edit.\n"


def load(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _load_rewrite_refs() -> Callable[[Any, Callable[[str], str]], Any]:
    """The code base's one ``$ref`` rewriter, loaded from its file: the runtime package itself cannot
    be imported before the code it needs is generated."""
    spec = importlib.util.spec_from_file_location("_toolresponse_refs", REFS_MODULE)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {relative(REFS_MODULE)}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rewriter: Callable[[Any, Callable[[str], str]], Any] = module.rewrite_refs
    return rewriter


rewrite_refs = _load_rewrite_refs()


def models_source() -> str:
    """Run datamodel-codegen (options from pyproject.toml) into a scratch file."""
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "models.py"
        completed = subprocess.run(
            [sys.executable, "-m", "datamodel_code_generator", "--output", str(output)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise SystemExit(f"datamodel-codegen failed:\n{completed.stderr}")
        return output.read_text(encoding="utf-8")


def error_code_metadata() -> tuple[list[str], list[str], dict[str, dict[str, Any]]]:
    """The codes, their meanings and their metadata (``x-error-codes``), each checked."""
    schema = load(ERROR_CODE_SCHEMA)
    codes: list[str] = schema["enum"]
    meanings: list[str] = schema["x-enum-descriptions"]
    metadata: dict[str, dict[str, Any]] = schema["x-error-codes"]
    if len(meanings) != len(codes) or sorted(metadata) != sorted(codes):
        raise SystemExit(
            f"{relative(ERROR_CODE_SCHEMA)}: x-enum-descriptions and x-error-codes "
            "must describe exactly the codes of enum"
        )
    check_tool_failures(codes, metadata)
    return codes, meanings, metadata


def check_tool_failures(codes: list[str], metadata: Mapping[str, Mapping[str, Any]]) -> None:
    """Each code's ``x-mcp-tool-failure`` is a class and a code that the binding can write and read
    back as that code: the class one of the proposal's, ``reliability`` exactly for the codes
    retryable by default (the proposal lets only that class be retried), and the code a non-empty
    string naming no other of the table's codes, neither as its ToolFailure code nor as its name
    (any case, ``-`` for ``_``, as a client reads it). Every problem stops the generator."""
    where = f"{relative(ERROR_CODE_SCHEMA)}: x-error-codes"
    named: dict[str, str] = {}
    for code in codes:
        failure = metadata[code].get(TOOL_FAILURE_MEMBER)
        if not isinstance(failure, dict) or set(failure) != {"class", "code"}:
            raise SystemExit(f"{where}/{code}: {TOOL_FAILURE_MEMBER} must be an object of class and code")
        kind, name = failure["class"], failure["code"]
        if kind not in TOOL_FAILURE_CLASSES:
            raise SystemExit(
                f"{where}/{code}: class {kind!r} is not one of {', '.join(TOOL_FAILURE_CLASSES)}"
            )
        retryable = metadata[code]["retryable"] is True
        if (kind == RETRYABLE_CLASS) is not retryable:
            raise SystemExit(
                f"{where}/{code}: class {kind!r}, but the code is {'' if retryable else 'not '}retryable"
                f" by default; only class {RETRYABLE_CLASS!r} may be retried"
            )
        if not isinstance(name, str) or not name.strip():
            raise SystemExit(f"{where}/{code}: the ToolFailure code must be a non-empty string")
        as_read = name.strip().upper().replace("-", "_")
        if as_read in codes and as_read != code:
            raise SystemExit(f"{where}/{code}: the ToolFailure code {name!r} reads as the code {as_read}")
        if name in named:
            raise SystemExit(f"{where}/{code}: the ToolFailure code {name!r} is also {named[name]}'s")
        named[name] = code


def error_codes_source() -> str:
    codes, meanings, metadata = error_code_metadata()
    categories = list(dict.fromkeys(metadata[code]["category"] for code in codes))
    lines = [
        header(relative(ERROR_CODE_SCHEMA)).rstrip("\n"),
        '"""Each standard error code\'s category, default retryability, HTTP status, meaning, and the class',
        "and code of the MCP ToolFailure member that stands for it (an open MCP proposal, SEP-3313).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Mapping",
        "from dataclasses import dataclass",
        "from enum import StrEnum",
        "from types import MappingProxyType",
        "",
        "from .models import ErrorCode",
        "",
        "",
        "class ErrorCategory(StrEnum):",
        '    """The family an error code belongs to."""',
        "",
        *(f"    {category.upper()} = {category!r}" for category in categories),
        "",
        "",
        "class ToolFailureClass(StrEnum):",
        '    """The class of an MCP ToolFailure: how a client reacts (only ``reliability`` is retried)."""',
        "",
        *(f"    {kind.upper()} = {kind!r}" for kind in TOOL_FAILURE_CLASSES),
        "",
        "",
        "@dataclass(frozen=True, kw_only=True)",
        "class McpToolFailure:",
        '    """The ``class`` and ``code`` of the MCP ToolFailure member written for an error code."""',
        "",
        "    failure_class: ToolFailureClass",
        "    code: str",
        '    """A value the proposal recommends where one fits, else the error code\'s own name."""',
        "",
        "",
        "@dataclass(frozen=True, kw_only=True)",
        "class ErrorCodeInfo:",
        '    """What the schema says of one error code."""',
        "",
        "    code: ErrorCode",
        "    category: ErrorCategory",
        "    retryable: bool",
        '    """Whether a retry may succeed when ``error_info.retryable`` is absent."""',
        "    http_status: int",
        '    """The HTTP status of a response with this code in the HTTP binding."""',
        "    description: str",
        "    mcp_tool_failure: McpToolFailure",
        '    """The MCP ToolFailure class and code of an error with this code (``x-mcp-tool-failure``)."""',
        "",
        "",
        "ERROR_CODE_INFO: Mapping[ErrorCode, ErrorCodeInfo] = MappingProxyType(",
        "    {",
    ]
    for code, meaning in zip(codes, meanings, strict=True):
        entry = metadata[code]
        failure = entry[TOOL_FAILURE_MEMBER]
        lines += [
            f"        ErrorCode.{code}: ErrorCodeInfo(",
            f"            code=ErrorCode.{code},",
            f"            category=ErrorCategory.{entry['category'].upper()},",
            f"            retryable={bool(entry['retryable'])!r},",
            f"            http_status={int(entry['http_status'])!r},",
            f"            description={meaning!r},",
            "            mcp_tool_failure=McpToolFailure(",
            f"                failure_class=ToolFailureClass.{failure['class'].upper()},",
            f"                code={failure['code']!r},",
            "            ),",
            "        ),",
        ]
    lines += [
        "    }",
        ")",
        "",
        "TOOL_FAILURE_CODES: Mapping[str, ErrorCode] = MappingProxyType(",
        "    {",
        *(f"        {metadata[code][TOOL_FAILURE_MEMBER]['code']!r}: ErrorCode.{code}," for code in codes),
        "    }",
        ")",
        '"""The same table read backwards: the error code each ToolFailure code of the table stands for."""',
        "",
    ]
    return "\n".join(lines)


INFERENCE_RULE_MEMBERS = ("signal", "pattern", "ignore_case", "code")
_PORTABLE_ESCAPES = frozenset("bBdDwW")
_PORTABLE_GROUPS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")
_QUANTIFIER = re.compile(r"\{\d+(?:,\d*)?\}")


def pattern_problem(pattern: str) -> str | None:
    r"""What keeps ``pattern`` from meaning the same in Python's ``re`` (with ``re.ASCII``) and in
    ECMAScript (without the ``u`` flag), or None: printable ASCII; escapes ``\b \B \d \D \w \W`` or
    of a punctuation character (``\s`` differs: ECMAScript's takes Unicode spaces); groups
    ``(...)``, ``(?:...)``, lookahead and lookbehind, not inline flags (ECMAScript 2022 has none),
    named groups or backreferences; no ``$`` (Python's also matches before a final line feed);
    quantifiers ``{n}``, ``{n,}``, ``{n,m}`` (Python reads ``{,m}`` as one); no ``[`` inside a
    character class and no empty class."""
    if not (pattern.isascii() and pattern.isprintable()):
        return "holds a character that is not printable ASCII"
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escaped = pattern[index + 1 : index + 2]
            if escaped.isalnum() and (escaped not in _PORTABLE_ESCAPES or (in_class and escaped in "bB")):
                return f"has the escape \\{escaped}, which is not one of \\b \\B \\d \\D \\w \\W"
            if not escaped:
                return "ends with a backslash"
            index += 2
            continue
        if in_class:
            if char == "[":
                return "has [ inside a character class"
            in_class = char != "]"
        elif char == "[":
            if pattern.startswith(("[]", "[^]"), index):
                return "has an empty character class"
            in_class = True
            index += 2 if pattern.startswith("[^", index) else 1
            continue
        elif char == "$":
            return "has $ (escape it as \\$ to match a dollar sign)"
        elif pattern.startswith("(?", index) and not pattern.startswith(_PORTABLE_GROUPS, index):
            return "has a group other than (...), (?:...), (?=...), (?!...), (?<=...) and (?<!...)"
        elif char == "{" and not _QUANTIFIER.match(pattern, index):
            return "has { that is not a quantifier {n}, {n,} or {n,m} (escape it as \\{)"
        index += 1
    return None


def inference_rules() -> list[dict[str, Any]]:
    """The rules of the inference table (``schema/v1/interop/text-inference.json``), each checked:
    its members, a unique signal, one of the codes, a portable pattern that compiles."""
    where = relative(INFERENCE_TABLE)
    codes = load(ERROR_CODE_SCHEMA)["enum"]
    rules = load(INFERENCE_TABLE).get("rules")
    if not isinstance(rules, list) or not rules:
        raise SystemExit(f"{where}: rules must be a non-empty list")
    signals: set[str] = set()
    for index, rule in enumerate(rules):
        at = f"{where}: rules/{index}"
        if not isinstance(rule, dict) or tuple(rule) != INFERENCE_RULE_MEMBERS:
            members = ", ".join(INFERENCE_RULE_MEMBERS)
            raise SystemExit(f"{at}: a rule is an object of {members}, in that order")
        signal, pattern, ignore_case, code = (rule[name] for name in INFERENCE_RULE_MEMBERS)
        if not isinstance(signal, str) or not signal.strip() or signal in signals:
            raise SystemExit(f"{at}: the signal must be a non-empty string that no other rule has")
        signals.add(signal)
        if code not in codes:
            raise SystemExit(f"{at}: code {code!r} is not one of the error codes")
        if not isinstance(ignore_case, bool) or not isinstance(pattern, str) or not pattern:
            raise SystemExit(f"{at}: ignore_case must be a boolean and pattern a non-empty string")
        problem = pattern_problem(pattern)
        if problem is not None:
            raise SystemExit(f"{at}: the pattern {problem}; it must mean the same in Python and ECMAScript")
        try:
            re.compile(pattern, inference_flags(ignore_case))
        except re.error as error:
            raise SystemExit(f"{at}: the pattern does not compile: {error}") from None
    return rules


def inference_flags(ignore_case: bool) -> re.RegexFlag:
    """The flags a rule's pattern is compiled with in Python: ASCII semantics, as ECMAScript's."""
    return re.ASCII | (re.IGNORECASE if ignore_case else re.NOFLAG)


def interop_shapes() -> dict[str, dict[str, Any]]:
    """The JSON Schemas of ``schema/v1/interop``, by name, each a 2020-12 document whose ``$id``
    is where its file is, a reference to another of them replaced by that document."""
    shapes = {}
    for name, path in INTEROP_SHAPES.items():
        shape = load(path)
        expected_id = f"https://toolresponse.dev/{relative(path)}"
        if shape.get("$schema") != DRAFT_2020_12 or shape.get("$id") != expected_id:
            raise SystemExit(f"{relative(path)}: must be a JSON Schema 2020-12 document, $id {expected_id}")
        shapes[name] = inlined(shape)
    return shapes


def inlined(value: Any, within: tuple[str, ...] = ()) -> Any:
    """``value`` with each ``{"$ref": "<name>.schema.json"}`` replaced by that document of
    ``schema/v1/interop`` (less ``$schema`` and ``$id``): the runtime compiles shapes offline, so
    any other reference out of the document, and a document that reaches itself, stop here."""
    if isinstance(value, list):
        return [inlined(item, within) for item in value]
    if not isinstance(value, dict):
        return value
    reference = value.get("$ref")
    where = relative(INTEROP_DIR)
    if isinstance(reference, str) and reference.startswith("#") and within:
        # Inlined, the reference would be read against the document it was copied into.
        raise SystemExit(f"{where}: {within[-1]} is referred to, so it cannot use {reference!r} within")
    if not isinstance(reference, str) or reference.startswith("#"):
        return {key: inlined(item, within) for key, item in value.items()}
    if list(value) != ["$ref"] or not re.fullmatch(r"[a-z0-9-]+\.schema\.json", reference):
        raise SystemExit(f'{where}: {reference!r} must stand alone as {{"$ref": "<name>.schema.json"}}')
    path = INTEROP_DIR / reference
    if not path.is_file():
        raise SystemExit(f"{where}: a reference to {reference}, not a document there")
    if reference in within:
        raise SystemExit(f"{where}: {' -> '.join((*within, reference))} refer to each other")
    document = inlined(load(path), (*within, reference))
    return {key: item for key, item in document.items() if key not in ("$schema", "$id")}


def interop_source() -> str:
    shapes = interop_shapes()
    rules = inference_rules()
    lines = [
        header(relative(INTEROP_DIR)).rstrip("\n"),
        '"""What the dialects of ``toolresponse.interop`` read, as data: the JSON Schemas of an MCP',
        "``CallToolResult`` and of its ToolFailure member and the inference table, which gives third-party",
        "error text a code from its words (the TypeScript package reads these three too), then each other",
        "dialect's record shape.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import re",
        "from dataclasses import dataclass",
        "from typing import Any",
        "",
        "from .models import ErrorCode",
        "",
    ]
    for name, shape in shapes.items():
        body = pprint.pformat(shape, indent=1, width=100, sort_dicts=False)
        lines += [
            f"{name}: dict[str, Any] = {body}",
            f'"""``{relative(INTEROP_SHAPES[name])}``: {shape["title"]}."""',
            "",
        ]
    lines += [
        "",
        "@dataclass(frozen=True, kw_only=True)",
        "class InferenceRule:",
        '    """One rule of the inference table: an error text in which ``pattern`` is found is coded',
        '    ``code``, and ``signal`` names the rule in ``error_info.details``."""',
        "",
        "    signal: str",
        "    pattern: str",
        '    """A regular expression that means the same in Python, compiled with ``re.ASCII`` (and',
        '    ``re.IGNORECASE`` for ``ignore_case``), and in ECMAScript."""',
        "    ignore_case: bool",
        "    code: ErrorCode",
        "",
        "    @property",
        "    def regex(self) -> re.Pattern[str]:",
        '        """The compiled pattern (``re.ASCII``, and ``re.IGNORECASE`` for ``ignore_case``)."""',
        "        flags = re.ASCII | (re.IGNORECASE if self.ignore_case else re.NOFLAG)",
        "        return re.compile(self.pattern, flags)",
        "",
        "",
        "INFERENCE_RULES: tuple[InferenceRule, ...] = (",
    ]
    for rule in rules:
        lines += [
            "    InferenceRule(",
            f"        signal={rule['signal']!r},",
            f"        pattern={rule['pattern']!r},",
            f"        ignore_case={rule['ignore_case']!r},",
            f"        code=ErrorCode.{rule['code']},",
            "    ),",
        ]
    lines += [
        ")",
        f'"""``{relative(INFERENCE_TABLE)}``: the first rule a text matches gives its code."""',
        "",
    ]
    return "\n".join(lines)


def inference_table() -> str:
    """The MCP binding's inference table: each rule's signal, code and pattern, in order."""
    rows = ["| signal | code | pattern | case |", "|---|---|---|---|"]
    for rule in inference_rules():
        pattern = rule["pattern"].replace("|", "\\|")
        case = "any" if rule["ignore_case"] else "exact"
        rows.append(f"| {rule['signal']} | `{rule['code']}` | `{pattern}` | {case} |")
    return "\n".join(rows)


def bundled_schema() -> dict[str, Any]:
    """The root schema with every file it references inlined under ``$defs``."""
    defs: dict[str, Any] = {}
    inlined: dict[str, str] = {}

    def target(ref: str) -> str:
        return ref if ref.startswith("#") else f"#/$defs/{inline(ref)}"

    def inline(ref: str) -> str:
        if ref not in inlined:
            referenced = load(SCHEMA_DIR / ref)
            name = referenced["title"]
            inlined[ref] = name
            body = {k: v for k, v in referenced.items() if k not in ("$schema", "$id")}
            defs[name] = rewrite_refs(body, target)
        return inlined[ref]

    rewritten: dict[str, Any] = rewrite_refs(load(ROOT_SCHEMA), target)
    rewritten["$defs"] = dict(sorted({**rewritten.get("$defs", {}), **defs}.items()))
    rewritten["$comment"] = (
        f"Generated by `{COMMAND}` from {relative(SCHEMA_DIR)}: one file, references inlined; do not edit."
    )
    return rewritten


def bundle_source() -> str:
    return json_text(bundled_schema())


def json_text(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def catalog_table() -> str:
    schema = load(ERROR_CODE_SCHEMA)
    rows = [
        "| code | category | retryable by default | HTTP status | meaning |",
        "|---|---|---|---|---|",
    ]
    for code, meaning in zip(schema["enum"], schema["x-enum-descriptions"], strict=True):
        entry = schema["x-error-codes"][code]
        retryable = "yes" if entry["retryable"] else "no"
        rows.append(f"| `{code}` | {entry['category']} | {retryable} | {entry['http_status']} | {meaning} |")
    return "\n".join(rows)


def tool_failure_table() -> str:
    """The MCP binding's ToolFailure table: each code's class and ToolFailure code (both ways)."""
    codes, _, metadata = error_code_metadata()
    rows = [
        "| error code | `class` | `code` | `retryable` (the code's default) |",
        "|---|---|---|---|",
    ]
    for code in codes:
        failure = metadata[code][TOOL_FAILURE_MEMBER]
        own = " (its own name)" if failure["code"] == code else ""
        retryable = "`true`" if failure["class"] == RETRYABLE_CLASS else "absent"
        rows.append(f"| `{code}` | {failure['class']} | `{failure['code']}`{own} | {retryable} |")
    return "\n".join(rows)


def fenced(path: Path, text: str, begin: str, end: str, body: str) -> str:
    """``text`` (of ``path``) with ``body`` between the fence comments ``begin`` and ``end``."""
    start = text.find(begin)
    stop = text.find(end)
    if start < 0 or stop < start:
        raise SystemExit(f"{relative(path)}: the fence comments {begin!r} and {end!r} are missing")
    return f"{text[: start + len(begin)]}\n{body}\n{text[stop:]}"


def mcp_binding_doc_source() -> str | None:
    """The MCP binding document with its ToolFailure and inference tables brought up to date."""
    if not MCP_BINDING_DOC.exists():
        return None
    text = MCP_BINDING_DOC.read_text(encoding="utf-8")
    text = fenced(MCP_BINDING_DOC, text, TOOL_FAILURE_BEGIN, TOOL_FAILURE_END, tool_failure_table())
    return fenced(MCP_BINDING_DOC, text, INFERENCE_BEGIN, INFERENCE_END, inference_table())


EXAMPLE_FENCE = re.compile(
    r"(<!-- BEGIN GENERATED: example (?P<name>[\w.-]+\.json) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED: example -->)",
    re.DOTALL,
)


def protocol_doc_source() -> str | None:
    """The protocol document with its catalog table and included examples brought up to date."""
    if not PROTOCOL_DOC.exists():
        return None
    text = fenced(
        PROTOCOL_DOC, PROTOCOL_DOC.read_text(encoding="utf-8"), CATALOG_BEGIN, CATALOG_END, catalog_table()
    )

    def include(match: re.Match[str]) -> str:
        example = SCHEMA_DIR / "examples" / match["name"]
        if not example.is_file():
            raise SystemExit(f"{relative(PROTOCOL_DOC)}: includes {match['name']}, not in schema/v1/examples")
        body = example.read_text(encoding="utf-8").rstrip("\n")
        return f"{match[1]}```json\n{body}\n```\n{match[4]}"

    return EXAMPLE_FENCE.sub(include, text)


def package_init_source() -> str:
    return "\n".join(
        [
            header(relative(SCHEMA_DIR)).rstrip("\n"),
            '"""Models, enums, error-code metadata and interop data generated from the ToolResponse v1',
            'schema (``schema/v1``)."""',
            "",
            "from .error_codes import (",
            "    ERROR_CODE_INFO,",
            "    TOOL_FAILURE_CODES,",
            "    ErrorCategory,",
            "    ErrorCodeInfo,",
            "    McpToolFailure,",
            "    ToolFailureClass,",
            ")",
            "from .interop import INFERENCE_RULES, MCP_RESULT_SHAPE, TOOL_FAILURE_SHAPE, InferenceRule",
            "from .models import Context, ErrorCode, ErrorInfo, Stats, ToolResponse, ToolStatus",
            "",
            'BUNDLED_SCHEMA_NAME = "tool-response.v1.schema.json"',
            '"""The single-file schema shipped beside this module (references inlined)."""',
            "",
            "__all__ = [",
            '    "BUNDLED_SCHEMA_NAME",',
            '    "ERROR_CODE_INFO",',
            '    "INFERENCE_RULES",',
            '    "MCP_RESULT_SHAPE",',
            '    "TOOL_FAILURE_CODES",',
            '    "TOOL_FAILURE_SHAPE",',
            '    "Context",',
            '    "ErrorCategory",',
            '    "ErrorCode",',
            '    "ErrorCodeInfo",',
            '    "ErrorInfo",',
            '    "InferenceRule",',
            '    "McpToolFailure",',
            '    "Stats",',
            '    "ToolFailureClass",',
            '    "ToolResponse",',
            '    "ToolStatus",',
            "]",
            "",
        ]
    )


def example_copies() -> dict[Path, Callable[[], str | None]]:
    """The examples of schema/v1/examples, shipped in the package for ``toolresponse demo``."""
    return {
        PACKAGE_DIR / "examples" / example.name: example.read_text
        for example in sorted((SCHEMA_DIR / "examples").glob("*.json"))
    }


def binding_copy() -> dict[Path, Callable[[], str | None]]:
    """The HTTP binding's OpenAPI document as written, shipped in the package."""
    return {PACKAGE_DIR / BINDING_DOCUMENT.name: BINDING_DOCUMENT.read_text}


# -- the HTTP binding ----------------------------------------------------------------------

PLACED_SCHEMA = "ToolResponseV1"
"""The v1 schema's name in the resolved document's ``components/schemas``; its ``$defs`` are
``ToolResponseV1.<Name>``."""


def resolve_document(document: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` with the single-file v1 ``schema`` placed in ``components/schemas`` and every
    reference to it rewritten to point there, so that any loader resolves it (no file, no ``$id``).

    A reference to any other document, or to something the schema does not have, stops the
    generator: it would otherwise leave a response schema that checks nothing.
    """
    defs: Mapping[str, Any] = schema.get("$defs", {})
    schema_id = str(schema.get("$id", ""))
    file_name = schema_id.rsplit("/", 1)[-1]

    def placed(ref: str) -> str:
        """Where a reference inside the v1 schema (``#``, ``#/$defs/Name...``) points once placed."""
        if ref in ("#", ""):
            return f"#/components/schemas/{PLACED_SCHEMA}"
        prefix = "#/$defs/"
        if ref.startswith(prefix):
            name, _, rest = ref.removeprefix(prefix).partition("/")
            if name in defs:
                return f"#/components/schemas/{PLACED_SCHEMA}.{name}" + (f"/{rest}" if rest else "")
        raise SystemExit(f"{relative(BINDING_DOCUMENT)}: the v1 schema has no {ref!r} to refer to")

    def in_document(ref: str) -> str:
        """Where a reference of the document points: its own stay, the v1 schema's are placed."""
        if ref.startswith("#"):
            return ref
        location, _, fragment = ref.partition("#")
        location = location.removeprefix("./")
        if not file_name or location not in (file_name, schema_id):
            raise SystemExit(
                f"{relative(BINDING_DOCUMENT)}: refers to {ref!r}; only the v1 schema ({file_name})"
                " can be placed in it"
            )
        return placed("#" + fragment)

    resolved: dict[str, Any] = rewrite_refs(document, in_document)
    schemas = resolved.setdefault("components", {}).setdefault("schemas", {})
    bodies = {
        PLACED_SCHEMA: {k: v for k, v in schema.items() if k not in ("$defs", "$id", "$schema", "$comment")},
        **{f"{PLACED_SCHEMA}.{name}": body for name, body in defs.items()},
    }
    for name, body in bodies.items():
        if name in schemas:
            raise SystemExit(f"{relative(BINDING_DOCUMENT)}: already has a component schema named {name!r}")
        schemas[name] = rewrite_refs(body, placed)
    resolved["x-generated"] = (
        f"Generated by `{COMMAND}` from {relative(BINDING_DOCUMENT)} and {relative(SCHEMA_DIR)}: the v1"
        f" schema placed in components/schemas ({PLACED_SCHEMA}), every reference pointing there;"
        " do not edit."
    )
    return resolved


def resolved_binding_source() -> str:
    return json_text(resolve_document(load(BINDING_DOCUMENT), bundled_schema()))


@dataclass(frozen=True, kw_only=True)
class Narrowing:
    """What a response schema says of the ToolResponses it admits (None: it does not narrow it)."""

    statuses: frozenset[str] | None = None
    codes: frozenset[str] | None = None
    limit_bytes: Any = None


def _values(node: Any) -> frozenset[str] | None:
    """The values a schema allows by ``const`` or ``enum``, or None."""
    if not isinstance(node, dict):
        return None
    if "const" in node:
        return frozenset([node["const"]])
    if "enum" in node:
        return frozenset(node["enum"])
    return None


class BindingReader:
    """The facts of the binding document the runtime needs, each checked where the document states it
    twice or where the per-code metadata states it too. Every problem stops the generator."""

    def __init__(self, document: dict[str, Any], error_codes: dict[str, Any]) -> None:
        self.document = document
        self.codes: list[str] = error_codes["enum"]
        self.code_status: dict[str, int] = {
            code: int(error_codes["x-error-codes"][code]["http_status"]) for code in self.codes
        }

    def fail(self, problem: str) -> SystemExit:
        return SystemExit(f"{relative(BINDING_DOCUMENT)}: {problem}")

    def component(self, ref: str) -> dict[str, Any]:
        prefix = "#/components/"
        if not ref.startswith(prefix):
            raise self.fail(f"expected a reference into components, found {ref!r}")
        node: Any = self.document["components"]
        for part in ref.removeprefix(prefix).split("/"):
            if not isinstance(node, dict) or part not in node:
                raise self.fail(f"{ref!r} points at nothing")
            node = node[part]
        if not isinstance(node, dict):
            raise self.fail(f"{ref!r} is not an object")
        return node

    def followed(self, node: dict[str, Any]) -> dict[str, Any]:
        """A response or parameter object, through its ``$ref`` if it is one."""
        while isinstance(node.get("$ref"), str):
            node = self.component(node["$ref"])
        return node

    def operation(self, operation_id: str) -> tuple[str, str, dict[str, Any]]:
        """The path, method (upper case) and object of the operation ``operation_id``."""
        found = [
            (path, method.upper(), operation)
            for path, item in self.document["paths"].items()
            for method, operation in item.items()
            if isinstance(operation, dict) and operation.get("operationId") == operation_id
        ]
        if len(found) != 1:
            raise self.fail(f"expected one operation {operation_id!r}, found {len(found)}")
        return found[0]

    def parameter(self, operation: dict[str, Any], where: str) -> dict[str, Any]:
        """The one parameter of ``operation`` that is ``in`` ``where``."""
        found = [
            self.followed(parameter)
            for parameter in operation.get("parameters", [])
            if self.followed(parameter).get("in") == where
        ]
        if len(found) != 1:
            raise self.fail(
                f"expected one {where} parameter of {operation.get('operationId')}, found {len(found)}"
            )
        return found[0]

    def schema_of(self, parameter: dict[str, Any]) -> dict[str, Any]:
        schema: dict[str, Any] = parameter["schema"]
        while isinstance(schema.get("$ref"), str) and len(schema) == 1:
            schema = self.component(schema["$ref"])
        return schema

    def narrowing(self, schema: dict[str, Any]) -> Narrowing:
        """What ``schema`` (through its local ``$ref``s and ``allOf``) says of the status, the code and
        ``error_info.details.limit_bytes``."""
        statuses: frozenset[str] | None = None
        codes: frozenset[str] | None = None
        limits: list[Any] = []

        def visit(node: dict[str, Any]) -> None:
            nonlocal statuses, codes
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                visit(self.component(ref))
            for part in node.get("allOf", []):
                visit(part)
            members = node.get("properties", {})
            status = _values(members.get("status"))
            if status is not None:
                statuses = status if statuses is None else statuses & status
            info = members.get("error_info", {}).get("properties", {})
            code = _values(info.get("code"))
            if code is not None:
                codes = code if codes is None else codes & code
            limit = info.get("details", {}).get("properties", {}).get("limit_bytes", {})
            if "const" in limit:
                limits.append(limit["const"])

        visit(schema)
        if len({json.dumps(limit) for limit in limits}) > 1:
            raise self.fail(f"a response schema states two limits: {limits}")
        return Narrowing(statuses=statuses, codes=codes, limit_bytes=limits[0] if limits else None)

    def responses(self, operation: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        for status, response in operation["responses"].items():
            yield status, self.followed(response)

    def constants(self) -> dict[str, Any]:
        """Every constant of ``http_binding.py``, by name, in order."""
        list_path, list_method, list_operation = self.operation("listTools")
        invoke_path, invoke_method, invoke = self.operation("invokeTool")
        media = {
            media
            for operation in (list_operation, invoke)
            for _, response in self.responses(operation)
            for media in response.get("content", {})
        }
        if len(media) != 1:
            raise self.fail(f"expected one media type for every response, found {sorted(media)}")
        (media_type,) = media

        tool_name = self.parameter(invoke, "path")
        if f"{{{tool_name['name']}}}" not in invoke_path:
            raise self.fail(f"the path parameter {tool_name['name']!r} is not in {invoke_path!r}")
        call_id = self.parameter(invoke, "header")
        call_id_schema = self.schema_of(call_id)
        tool_name_pattern = self.schema_of(tool_name).get("pattern")
        call_id_pattern = call_id_schema.get("pattern")
        for label, pattern in (("tool name", tool_name_pattern), ("call id", call_id_pattern)):
            if not isinstance(pattern, str) or not (pattern.startswith("^") and pattern.endswith("$")):
                raise self.fail(f"the {label} pattern {pattern!r} is not anchored with ^ and $")
            re.compile(pattern)

        max_body_bytes = invoke.get("requestBody", {}).get("x-max-body-bytes")
        if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 0:
            raise self.fail(f"the invoke request body's x-max-body-bytes is {max_body_bytes!r}, not a size")

        by_status: dict[int, set[str]] = {}
        for code, status in self.code_status.items():
            by_status.setdefault(status, set()).add(code)
        success: set[int] = set()
        exceptions: dict[int, tuple[str, Narrowing]] = {}
        response_headers: dict[int, set[str]] = {}
        for key, response in self.responses(invoke):
            if not key.isdigit():
                continue
            status = int(key)
            if response.get("headers"):
                response_headers[status] = set(response["headers"])
            narrowing = self.narrowing(response["content"][media_type]["schema"])
            if narrowing.statuses is not None and narrowing.statuses <= {"success", "partial"}:
                success.add(status)
                continue
            own = by_status.get(status, set())
            if narrowing.codes is None:
                raise self.fail(f"the invoke response {status} admits every code")
            if narrowing.codes == own:
                continue
            if own or len(narrowing.codes) != 1:
                raise self.fail(
                    f"the invoke response {status} admits {sorted(narrowing.codes)}; the codes whose"
                    f" http_status is {status} are {sorted(own)}"
                )
            (code,) = narrowing.codes
            exceptions[status] = (code, narrowing)
        documented = {int(key) for key in invoke["responses"] if key.isdigit()}
        undocumented = sorted(set(by_status) - documented)
        if undocumented:
            raise self.fail(f"the invoke operation does not document the code statuses {undocumented}")
        if len(success) != 1:
            raise self.fail(f"expected one success status of the invoke operation, found {sorted(success)}")
        (success_status,) = success
        if str(success_status) not in list_operation["responses"]:
            raise self.fail(f"the tool list does not answer {success_status}")
        declared = {
            member: self.declared_answer(
                member, invoke, list_operation if member == "x-unauthorized" else None
            )
            for member in ("x-unauthorized", "x-request-timeout")
        }
        for member, (status, code) in declared.items():
            found_code = exceptions.pop(status, (None, None))[0]
            if found_code != code:
                raise self.fail(
                    f"{member} says {status} {code}; the invoke response {status} is not an answer"
                    f" of that one code (it admits {found_code or 'the codes of its status'})"
                )
        limited = sorted(status for status, (_, found) in exceptions.items() if found.limit_bytes is not None)
        if len(limited) != 1 or set(exceptions) != set(limited):
            raise self.fail(
                f"expected exactly one invoke status that is not its code's, the one stating limit_bytes;"
                f" found {sorted(exceptions)}, stating limit_bytes {limited}"
            )
        (too_large,) = limited
        too_large_code, too_large_narrowing = exceptions[too_large]
        if too_large_narrowing.limit_bytes != max_body_bytes:
            raise self.fail(
                f"the {too_large} answer states limit_bytes {too_large_narrowing.limit_bytes!r}, and the"
                f" request body's x-max-body-bytes is {max_body_bytes}"
            )

        not_allowed = self.document.get("x-method-not-allowed")
        if not isinstance(not_allowed, dict) or not {"status", "code", "header"} <= set(not_allowed):
            raise self.fail("x-method-not-allowed needs status, code and header")
        if not_allowed["code"] not in self.codes:
            raise self.fail(f"x-method-not-allowed names {not_allowed['code']!r}, not a code")
        unauthorized = self.document["x-unauthorized"]
        if unauthorized.get("header") not in response_headers.pop(declared["x-unauthorized"][0], set()):
            raise self.fail(
                f"the invoke response {declared['x-unauthorized'][0]} has no"
                f" {unauthorized.get('header')} header"
            )
        scheme = (
            self.document.get("components", {}).get("securitySchemes", {}).get(unauthorized.get("scheme"))
        )
        if (
            not isinstance(scheme, dict)
            or scheme.get("type") != "http"
            or not isinstance(scheme.get("scheme"), str)
        ):
            raise self.fail(
                f"x-unauthorized names the scheme {unauthorized.get('scheme')!r}, not an http security scheme"
            )
        if not any(
            unauthorized["scheme"] in requirement for requirement in self.document.get("security", [])
        ):
            raise self.fail(f"the document's security does not name {unauthorized['scheme']!r}")
        headers = {name for names in response_headers.values() for name in names}
        if len(headers) != 1:
            raise self.fail(f"expected one response header of the invoke operation, found {sorted(headers)}")
        (retry_after_header,) = headers
        return {
            "LIST_TOOLS_METHOD": list_method,
            "LIST_TOOLS_PATH": list_path,
            "INVOKE_METHOD": invoke_method,
            "INVOKE_PATH": invoke_path,
            "TOOL_NAME_PARAMETER": tool_name["name"],
            "TOOL_NAME_PATTERN": tool_name_pattern,
            "CALL_ID_HEADER": call_id["name"],
            "CALL_ID_PATTERN": call_id_pattern,
            "CALL_ID_MIN_LENGTH": int(call_id_schema["minLength"]),
            "CALL_ID_MAX_LENGTH": int(call_id_schema["maxLength"]),
            "MAX_BODY_BYTES": max_body_bytes,
            "MEDIA_TYPE": media_type,
            "SUCCESS_STATUS": success_status,
            "BODY_TOO_LARGE_STATUS": too_large,
            "BODY_TOO_LARGE_CODE": too_large_code,
            "METHOD_NOT_ALLOWED_STATUS": int(not_allowed["status"]),
            "METHOD_NOT_ALLOWED_CODE": not_allowed["code"],
            "ALLOW_HEADER": not_allowed["header"],
            "RETRY_AFTER_HEADER": retry_after_header,
            "RETRY_AFTER_STATUSES": sorted(response_headers),
            "UNAUTHORIZED_STATUS": declared["x-unauthorized"][0],
            "UNAUTHORIZED_CODE": declared["x-unauthorized"][1],
            "AUTHENTICATE_HEADER": unauthorized["header"],
            "SECURITY_SCHEME": unauthorized["scheme"],
            "BEARER_SCHEME": scheme["scheme"].capitalize(),
            "REQUEST_TIMEOUT_STATUS": declared["x-request-timeout"][0],
            "REQUEST_TIMEOUT_CODE": declared["x-request-timeout"][1],
        }

    def declared_answer(
        self, member: str, invoke: dict[str, Any], also: dict[str, Any] | None
    ) -> tuple[int, str]:
        """The status and code of an answer the document declares in ``member`` (``x-unauthorized``,
        ``x-request-timeout``), documented among the invoke responses (and ``also``'s)."""
        declared = self.document.get(member)
        if not isinstance(declared, dict) or not {"status", "code"} <= set(declared):
            raise self.fail(f"{member} needs status and code")
        status, code = declared["status"], declared["code"]
        if isinstance(status, bool) or not isinstance(status, int) or code not in self.codes:
            raise self.fail(f"{member} says {status!r} {code!r}, not a status and a code")
        for operation in (invoke, *([also] if also is not None else [])):
            if str(status) not in operation["responses"]:
                raise self.fail(
                    f"{operation.get('operationId')} does not document the {member} answer {status}"
                )
        return status, code


CONSTANT_DOCS: dict[str, str] = {
    "LIST_TOOLS_METHOD": "The method of the tool list (operation ``listTools``).",
    "LIST_TOOLS_PATH": "The path of the tool list.",
    "INVOKE_METHOD": "The method of a tool call (operation ``invokeTool``).",
    "INVOKE_PATH": "The path of a tool call, its path parameter in braces.",
    "TOOL_NAME_PARAMETER": "The name of the invoke path's parameter: the tool's name.",
    "TOOL_NAME_PATTERN": "What a tool name matches (anchored: ``re.fullmatch`` gives the ECMA-262 verdict).",
    "CALL_ID_HEADER": "The request header that carries the caller's id for a call.",
    "CALL_ID_PATTERN": "What a call id matches (anchored: ``re.fullmatch`` gives the ECMA-262 verdict).",
    "CALL_ID_MIN_LENGTH": "The fewest characters of a call id.",
    "CALL_ID_MAX_LENGTH": "The most characters of a call id.",
    "MAX_BODY_BYTES": "The largest request body a server accepts (``x-max-body-bytes``).",
    "MEDIA_TYPE": "The media type of every answer.",
    "SUCCESS_STATUS": "The HTTP status of a ToolResponse of status success or partial.",
    "BODY_TOO_LARGE_STATUS": "The HTTP status of the answer to a body over ``MAX_BODY_BYTES``.",
    "BODY_TOO_LARGE_CODE": "The code of that answer (``details.limit_bytes``: ``MAX_BODY_BYTES``).",
    "METHOD_NOT_ALLOWED_STATUS": "The HTTP status of a method a path lacks (``x-method-not-allowed``).",
    "METHOD_NOT_ALLOWED_CODE": "The code of that answer.",
    "ALLOW_HEADER": "The header of that answer, naming the methods the path has.",
    "RETRY_AFTER_HEADER": "The header of a retryable answer: whole seconds before a retry may succeed.",
    "RETRY_AFTER_STATUSES": "The HTTP statuses whose answers may carry ``RETRY_AFTER_HEADER``.",
    "UNAUTHORIZED_STATUS": "The HTTP status of a request without the server's token (``x-unauthorized``).",
    "UNAUTHORIZED_CODE": "The code of that answer.",
    "AUTHENTICATE_HEADER": "The header of that answer: the challenge of the security scheme.",
    "SECURITY_SCHEME": "The name of the bearer-token security scheme in the document.",
    "BEARER_SCHEME": "The authentication scheme of that security scheme, as sent (case-insensitive).",
    "REQUEST_TIMEOUT_STATUS": "The HTTP status of a body not in on time (``x-request-timeout``).",
    "REQUEST_TIMEOUT_CODE": "The code of that answer (``details.timeout_s``: the time limit).",
}
_CODE_CONSTANTS = (
    "BODY_TOO_LARGE_CODE",
    "METHOD_NOT_ALLOWED_CODE",
    "UNAUTHORIZED_CODE",
    "REQUEST_TIMEOUT_CODE",
)


def http_binding_source() -> str:
    reader = BindingReader(load(BINDING_DOCUMENT), load(ERROR_CODE_SCHEMA))
    constants = reader.constants()
    if list(constants) != list(CONSTANT_DOCS):
        raise SystemExit("codegen/generate.py: CONSTANT_DOCS must document each constant, in order")
    lines = [
        header(f"{relative(BINDING_DOCUMENT)} and {relative(ERROR_CODE_SCHEMA)}").rstrip("\n"),
        '"""The HTTP binding\'s constants: what its OpenAPI document and the per-code metadata say."""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Mapping",
        "from types import MappingProxyType",
        "from typing import Final",
        "",
        "from .models import ErrorCode",
        "",
        f"DOCUMENT_NAME: Final = {BINDING_DOCUMENT.name!r}",
        '"""The binding\'s OpenAPI document, shipped beside this module as written."""',
        f"RESOLVED_DOCUMENT_NAME: Final = {RESOLVED_BINDING_NAME!r}",
        '"""That document with the v1 schema in ``components/schemas``, every reference pointing there."""',
        f"PLACED_SCHEMA: Final = {PLACED_SCHEMA!r}",
        '"""The v1 schema\'s name in the resolved document (its ``$defs``: ``<name>.<Def>``)."""',
        f"CONFORMANCE_FIXTURE_DIR: Final = {'conformance/' + HTTP_FIXTURE_DIR.name!r}",
        f'"""The HTTP conformance fixtures (``{relative(HTTP_FIXTURE_DIR)}``), shipped here."""',
        f"FIXTURE_SCHEMA_NAME: Final = {'conformance/' + FIXTURE_SCHEMA.name!r}",
        f'"""The schema of the fixture files (``{relative(FIXTURE_SCHEMA)}``), shipped here."""',
        "",
    ]
    for name, value in constants.items():
        if name in _CODE_CONSTANTS:
            lines.append(f"{name}: Final = ErrorCode.{value}")
        elif name == "RETRY_AFTER_STATUSES":
            lines.append(f"{name}: Final = frozenset(({', '.join(map(str, value))}))")
        else:
            lines.append(f"{name}: Final = {value!r}")
        lines.append(f'"""{CONSTANT_DOCS[name]}"""')
    lines += [
        "",
        "HTTP_STATUS: Mapping[ErrorCode, int] = MappingProxyType(",
        "    {",
        *(f"        ErrorCode.{code}: {status}," for code, status in reader.code_status.items()),
        "    }",
        ")",
        '"""The HTTP status of an error ToolResponse with each code (``x-error-codes``, ``http_status``)."""',
        "",
        "STATUS_EXCEPTIONS: Mapping[int, ErrorCode] = MappingProxyType(",
        "    {",
        *(
            f"        {constants[f'{answer}_STATUS']}: ErrorCode.{constants[f'{answer}_CODE']},"
            for answer in ("BODY_TOO_LARGE", "METHOD_NOT_ALLOWED", "UNAUTHORIZED", "REQUEST_TIMEOUT")
        ),
        "    }",
        ")",
        '"""The answers whose HTTP status is not their code\'s: each such status, and its one code."""',
        "",
    ]
    return "\n".join(lines)


def conformance_copies() -> dict[Path, Callable[[], str | None]]:
    """The HTTP conformance fixtures and their schema, shipped for ``toolresponse conformance``."""
    return {
        PACKAGED_CONFORMANCE_DIR / FIXTURE_SCHEMA.name: FIXTURE_SCHEMA.read_text,
        **{
            PACKAGED_CONFORMANCE_DIR / HTTP_FIXTURE_DIR.name / fixture.name: fixture.read_text
            for fixture in sorted(HTTP_FIXTURE_DIR.glob("*.json"))
        },
    }


COPY_DIRS = {
    PACKAGE_DIR / "examples": "schema/v1/examples",
    PACKAGED_CONFORMANCE_DIR / HTTP_FIXTURE_DIR.name: relative(HTTP_FIXTURE_DIR),
}
"""The directories of copies, and what each copies: a copy whose source is gone is removed."""


def outputs() -> dict[Path, Callable[[], str | None]]:
    return {
        **example_copies(),
        **binding_copy(),
        **conformance_copies(),
        PACKAGE_DIR / RESOLVED_BINDING_NAME: resolved_binding_source,
        PACKAGE_DIR / "http_binding.py": http_binding_source,
        PACKAGE_DIR / "models.py": models_source,
        PACKAGE_DIR / "error_codes.py": error_codes_source,
        PACKAGE_DIR / "interop.py": interop_source,
        PACKAGE_DIR / "__init__.py": package_init_source,
        PACKAGE_DIR / "tool-response.v1.schema.json": bundle_source,
        PROTOCOL_DOC: protocol_doc_source,
        MCP_BINDING_DOC: mcp_binding_doc_source,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if any output is stale")
    args = parser.parse_args(argv)
    stale: list[str] = []
    expected_outputs = outputs()
    for directory, source in COPY_DIRS.items():
        for orphan in sorted(set(directory.glob("*.json")) - set(expected_outputs)):
            stale.append(relative(orphan))
            if args.check:
                print(f"{relative(orphan)}: no longer in {source}")
            else:
                orphan.unlink()
                print(f"removed {relative(orphan)}")
    if not args.check:
        stale.clear()
    for path, build in expected_outputs.items():
        expected = build()
        if expected is None:
            continue
        actual = path.read_text(encoding="utf-8") if path.exists() else ""
        if expected == actual:
            continue
        if args.check:
            name = relative(path)
            diff = difflib.unified_diff(
                actual.splitlines(keepends=True),
                expected.splitlines(keepends=True),
                fromfile=f"{name} (on disk)",
                tofile=f"{name} (from schema)",
            )
            sys.stdout.writelines(diff)
            stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(expected, encoding="utf-8")
            print(f"wrote {relative(path)}")
    if stale:
        print(
            f"\nGenerated files are out of date with schema/: {', '.join(stale)}.\n"
            f"Run `{COMMAND}` and commit the result.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
