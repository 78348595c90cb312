"""The protocol document covers the schema: a block per member, every example, the conventions;
and the README holds true: an install line for every extra, every Python snippet runs as it is.

Member names are read from ``schema/v1/tool-response.schema.json`` (the top-level
``properties`` and the ``properties`` of each ``$defs`` entry they reference), so a
member added to the schema without prose fails here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from scripted_chat import ScriptedChatServer, ScriptedReply, ScriptedToolCall

ROOT = Path(__file__).resolve().parent.parent
DOCS_DIR = ROOT / "docs"
PROTOCOL_DOC = DOCS_DIR / "tool-response-protocol.md"
SCHEMA_DIR = ROOT / "schema" / "v1"
ROOT_SCHEMA = SCHEMA_DIR / "tool-response.schema.json"
ERROR_CODE_SCHEMA = SCHEMA_DIR / "error-code.schema.json"
EXAMPLES_DIR = SCHEMA_DIR / "examples"

BLOCK_LABELS = ("Type", "Description", "Constraints", "Examples")
CATALOG_BEGIN = "<!-- BEGIN GENERATED: error-code catalog (make generate) -->"
CATALOG_END = "<!-- END GENERATED: error-code catalog -->"
EXAMPLE_END = "<!-- END GENERATED: example -->"
RFC2119_KEYWORDS = (
    "MUST",
    "MUST NOT",
    "REQUIRED",
    "SHALL",
    "SHALL NOT",
    "SHOULD",
    "SHOULD NOT",
    "RECOMMENDED",
    "NOT RECOMMENDED",
    "MAY",
    "OPTIONAL",
)
REFERENCES = ("RFC 2119", "RFC 8174", "RFC 7493", "RFC 6901", "JSON Schema 2020-12")
HEADING = re.compile(r"^(?P<level>#{1,6}) (?P<title>.+)$", re.MULTILINE)
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


@dataclass(frozen=True)
class Section:
    """A heading of the document and the text up to the next heading."""

    title: str
    body: str


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def doc_text(path: Path = PROTOCOL_DOC) -> str:
    return path.read_text(encoding="utf-8")


def sections(text: str) -> list[Section]:
    """Every heading with its body; headings inside fenced code do not occur in these docs."""
    matches = list(HEADING.finditer(text))
    return [
        Section(
            title=match["title"].strip(),
            body=text[match.end() : matches[index + 1].start() if index + 1 < len(matches) else len(text)],
        )
        for index, match in enumerate(matches)
    ]


def schema_member_names() -> list[str]:
    """Top-level members, then ``parent.member`` for each member of a referenced ``$defs`` object."""
    schema = load_json(ROOT_SCHEMA)
    names: list[str] = []
    for name, subschema in schema["properties"].items():
        names.append(name)
        ref = subschema.get("$ref", "")
        if ref.startswith("#/$defs/"):
            definition = schema["$defs"][ref.removeprefix("#/$defs/")]
            names.extend(f"{name}.{member}" for member in definition.get("properties", {}))
    return names


def extension_prefixes() -> list[str]:
    """The name prefixes that the schema's ``patternProperties`` admit (``^x-`` gives ``x-``)."""
    patterns: dict[str, Any] = load_json(ROOT_SCHEMA).get("patternProperties", {})
    return [pattern.removeprefix("^") for pattern in patterns]


def member_section(title_code: str) -> Section:
    """The one section whose heading starts with the member's name in backticks."""
    found = [
        section
        for section in sections(doc_text())
        if section.title.startswith(f"`{title_code}`") or f"(`{title_code}`)" in section.title
    ]
    assert len(found) == 1, f"expected one heading for `{title_code}`, found {len(found)}"
    return found[0]


def block_labels(body: str) -> list[str]:
    """The block labels of a member section, in the order they appear, each with its content."""
    labels: list[str] = []
    lines = body.splitlines()
    for index, line in enumerate(lines):
        label = re.match(r"^- \*\*(?P<label>[A-Z][a-z]+):\*\*(?P<rest>.*)$", line)
        if label is None:
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        has_content = bool(label["rest"].strip()) or following.startswith("  ")
        labels.append(label["label"] if has_content else f"{label['label']} (empty)")
    return labels


def slug(title: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", title.lower())
    return text.replace(" ", "-")


def test_schema_defines_members_with_nested_objects() -> None:
    """The member list read from the schema reaches into ErrorInfo, Stats and Context."""
    definitions = set(load_json(ROOT_SCHEMA)["$defs"])
    names = schema_member_names()
    referenced = {
        subschema["$ref"].removeprefix("#/$defs/")
        for subschema in load_json(ROOT_SCHEMA)["properties"].values()
        if subschema.get("$ref", "").startswith("#/$defs/")
    }
    assert definitions == referenced
    assert {"status", "error_info.code", "stats.time_ms", "context.tool_name"} <= set(names)


@pytest.mark.parametrize("member", schema_member_names())
def test_member_has_a_full_block(member: str) -> None:
    """Each schema member has one section with Type, Description, Constraints and Examples, in order."""
    assert list(BLOCK_LABELS) == block_labels(member_section(member).body)


@pytest.mark.parametrize("prefix", extension_prefixes())
def test_extension_members_have_a_full_block(prefix: str) -> None:
    """The extension members admitted by patternProperties have their own full block."""
    assert list(BLOCK_LABELS) == block_labels(member_section(prefix).body)


@pytest.mark.parametrize("example", sorted(path.name for path in EXAMPLES_DIR.glob("*.json")))
def test_example_is_included_once_and_current(example: str) -> None:
    """Each file of schema/v1/examples is included exactly once, with its current content."""
    text = doc_text()
    begin = f"<!-- BEGIN GENERATED: example {example} -->\n"
    assert 1 == text.count(begin)
    start = text.index(begin) + len(begin)
    body = text[start : text.index(EXAMPLE_END, start)]
    content = (EXAMPLES_DIR / example).read_text(encoding="utf-8").rstrip("\n")
    assert f"```json\n{content}\n```\n" == body


def test_included_examples_exist() -> None:
    """Every example fence names a file of schema/v1/examples."""
    included = re.findall(r"<!-- BEGIN GENERATED: example (\S+) -->", doc_text())
    existing = {path.name for path in EXAMPLES_DIR.glob("*.json")}
    assert [] == [name for name in included if name not in existing]


def test_catalog_is_fenced_and_lists_every_code() -> None:
    """The error-code catalog sits between its fences once and names each code of the schema."""
    text = doc_text()
    assert (1, 1) == (text.count(CATALOG_BEGIN), text.count(CATALOG_END))
    table = text[text.index(CATALOG_BEGIN) : text.index(CATALOG_END)]
    codes: list[str] = load_json(ERROR_CODE_SCHEMA)["enum"]
    assert codes == re.findall(r"^\| `([A-Z_]+)` \|", table, re.MULTILINE)


def test_notational_conventions_cite_rfc2119_keywords() -> None:
    """A Notational conventions section lists the BCP 14 keywords and cites RFC 2119 and RFC 8174."""
    found = [section for section in sections(doc_text()) if section.title == "Notational conventions"]
    assert 1 == len(found)
    body = found[0].body
    assert [] == [word for word in RFC2119_KEYWORDS if f'"{word}"' not in body]
    assert [] == [rfc for rfc in ("RFC 2119", "RFC 8174") if rfc not in body]


def test_references_cite_the_normative_documents() -> None:
    """The References section cites RFC 2119, 8174, 7493, 6901 and JSON Schema 2020-12."""
    found = [section for section in sections(doc_text()) if section.title == "References"]
    assert 1 == len(found)
    assert [] == [reference for reference in REFERENCES if reference not in found[0].body]


@pytest.mark.parametrize("doc", sorted(path.name for path in DOCS_DIR.glob("*.md")))
def test_relative_links_resolve(doc: str) -> None:
    """Every relative link in docs/ names an existing file, and every #anchor an existing heading."""
    path = DOCS_DIR / doc
    text = doc_text(path)
    anchors = {slug(section.title) for section in sections(text)}
    broken: list[str] = []
    for match in LINK.finditer(text):
        target = match["target"]
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file_part, _, anchor = target.partition("#")
        if file_part:
            if not (path.parent / file_part).exists():
                broken.append(target)
        elif anchor not in anchors:
            broken.append(target)
    assert [] == broken


# -- the README ------------------------------------------------------------------------------

README = ROOT / "README.md"
PYPROJECT = ROOT / "pyproject.toml"
INSTALL_LINE = re.compile(r"^pip install '\.\[(?P<extras>[^\]]+)\]'", re.MULTILINE)
PYTHON_SNIPPET = re.compile(r"^```python\n(?P<code>.*?)^```$", re.MULTILINE | re.DOTALL)


def readme_snippets() -> list[str]:
    """The README's Python snippets, in order."""
    return [match["code"] for match in PYTHON_SNIPPET.finditer(doc_text(README))]


def test_the_readme_has_an_install_line_for_every_extra() -> None:
    """Each optional extra of pyproject.toml is installed by a line of the README, and no line names
    an extra that does not exist."""
    declared = set(tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    shown = {
        extra.strip()
        for line in INSTALL_LINE.finditer(doc_text(README))
        for extra in line["extras"].split(",")
    }
    assert sorted(declared) == sorted(shown)


@pytest.fixture
def chat_server() -> Iterator[ScriptedChatServer]:
    """An OpenAI-compatible model on loopback for the agent's snippet: one calculator call, then
    the answer."""
    script = [
        ScriptedReply(tool_calls=(ScriptedToolCall(name="calculator", arguments={"expression": "2 + 3"}),)),
        ScriptedReply(content="2 + 3 = 5"),
    ]
    with ScriptedChatServer(script) as server:
        yield server


@pytest.mark.parametrize(
    "snippet", readme_snippets(), ids=[code.splitlines()[0][:60] for code in readme_snippets()]
)
def test_each_readme_python_snippet_runs_on_its_own(
    snippet: str, chat_server: ScriptedChatServer, tmp_path: Path
) -> None:
    """Each Python snippet of the README runs alone in a fresh interpreter, as a reader would paste
    it: every name it uses is defined or imported in it. The model the agent's snippet reads from
    the environment is a scripted one on loopback; an MCP server it starts is the pinned one."""
    environment = {
        **{name: value for name, value in os.environ.items() if name != "OPENAI_API_KEY"},
        "OPENAI_BASE_URL": chat_server.base_url,
        "TOOLRESPONSE_MODEL": "scripted-model",
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    finished = subprocess.run(
        [sys.executable, "-c", snippet],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert 0 == finished.returncode, finished.stderr
