"""A set of schema documents read from disk, ``$ref`` resolution across them, and bundling.

A *schema set* is what one side of a comparison is: every JSON Schema document
of a directory (a ``.json`` file whose top level is an object with ``$schema``;
other files beside them, such as an OpenAPI binding or examples, are not
schemas and are left out), or a single file. Documents are keyed by file name,
so that the same file on both sides is compared with itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from .._errors import MalformedJsonError, ToolResponseError
from ..validation import json_pointer, parse_ijson

__all__ = ["SchemaDiffError", "SchemaSet", "load_schema_set", "load_schema_sets", "unescape_pointer"]

_MAX_REF_DEPTH = 64
_ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default", "deprecated"})


class SchemaDiffError(ToolResponseError, ValueError):
    """Two schema sets that cannot be compared: a file that cannot be read or is no schema, or a
    ``$ref`` that names nothing. ``location`` says where (a file, or ``file#/json/pointer``)."""

    location: str

    def __init__(self, location: str, reason: str) -> None:
        self.location = location
        super().__init__(f"{location}: {reason}")


def unescape_pointer(pointer: str) -> list[str]:
    """The reference tokens of an RFC 6901 pointer ("" gives none)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def location(file: str, path: list[str | int]) -> str:
    """``file#/json/pointer``: where a value sits in a schema set."""
    return f"{file}#{json_pointer(path)}"


@dataclass(frozen=True)
class SchemaSet:
    """The schema documents of one side of a comparison, keyed by file name."""

    source: str
    documents: Mapping[str, Any]

    def _file_for(self, reference: str, base_file: str) -> str | None:
        base = self.documents[base_file]
        base_uri = base.get("$id", base_file) if isinstance(base, dict) else base_file
        target = urljoin(str(base_uri), reference)
        for name, document in self.documents.items():
            if isinstance(document, dict) and document.get("$id") == target:
                return name
        name = urlsplit(target).path.rsplit("/", 1)[-1]
        return name if name in self.documents else None

    def resolve(self, reference: str, base_file: str) -> tuple[str, list[str | int], Any]:
        """The file, path and schema that ``reference`` (a ``$ref`` in ``base_file``) names."""
        uri, _, fragment = reference.partition("#")
        file = base_file if uri == "" else self._file_for(uri, base_file)
        if file is None:
            raise SchemaDiffError(f"{self.source}/{base_file}", f"$ref {reference!r} names no document")
        try:
            tokens = unescape_pointer(fragment)
        except ValueError:
            raise SchemaDiffError(
                f"{self.source}/{base_file}", f"$ref {reference!r}: only JSON-pointer fragments are supported"
            ) from None
        node: Any = self.documents[file]
        path: list[str | int] = []
        for token in tokens:
            if isinstance(node, dict) and token in node:
                node = node[token]
                path.append(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
                path.append(int(token))
            else:
                raise SchemaDiffError(f"{self.source}/{base_file}", f"$ref {reference!r} names nothing")
        return file, path, node

    def bundle(self, file: str) -> Any:
        """``file``'s schema with every ``$ref`` inlined and ``$schema``, ``$id``, ``$defs`` dropped:
        one self-contained draft-07 document, as tools that know no 2020-12 references need."""
        return self._inline(self.documents[file], file, 0)

    def _inline(self, node: Any, file: str, depth: int) -> Any:
        if depth > _MAX_REF_DEPTH:
            raise SchemaDiffError(f"{self.source}/{file}", "$ref chain too deep (a cycle?)")
        if isinstance(node, list):
            return [self._inline(item, file, depth) for item in node]
        if not isinstance(node, dict):
            return node
        result = {
            key: self._inline(value, file, depth)
            for key, value in node.items()
            if key not in {"$schema", "$id", "$defs", "$ref"}
        }
        if "$ref" in node:
            target_file, _, target = self.resolve(node["$ref"], file)
            inlined = self._inline(target, target_file, depth + 1)
            if set(result) <= _ANNOTATIONS:
                return inlined
            result["allOf"] = [*result.get("allOf", []), inlined]
        return result


def _read(path: Path, shown: str) -> Any:
    try:
        return parse_ijson(path.read_bytes())
    except OSError as error:
        raise SchemaDiffError(shown, f"cannot read: {error.strerror}") from None
    except MalformedJsonError as error:
        raise SchemaDiffError(shown, error.reason) from None


def load_schema_set(path: str | Path, *, name: str | None = None) -> SchemaSet:
    """The schema set at ``path``: a directory's JSON Schema documents, or one file.

    A single file is keyed by ``name`` when given (so that two files of different names can be
    compared as one document), else by its own name.
    """
    path = Path(path)
    if path.is_dir():
        documents: dict[str, Any] = {}
        for file in sorted(path.glob("*.json")):
            document = _read(file, str(file))
            if isinstance(document, dict) and "$schema" in document:
                documents[file.name] = document
        if not documents:
            raise SchemaDiffError(str(path), "no JSON Schema documents (.json files with $schema) here")
        return SchemaSet(str(path), documents)
    document = _read(path, str(path))
    if not isinstance(document, dict | bool):
        raise SchemaDiffError(str(path), "not a JSON Schema (an object or a boolean)")
    return SchemaSet(str(path.parent), {name or path.name: document})


def load_schema_sets(old: str | Path, new: str | Path) -> tuple[SchemaSet, SchemaSet]:
    """Both sides of a comparison: two directories, or two files (compared as one document)."""
    old, new = Path(old), Path(new)
    if old.is_dir() != new.is_dir():
        raise SchemaDiffError(f"{old}, {new}", "compare two directories or two files, not one of each")
    if old.is_dir():
        return load_schema_set(old), load_schema_set(new)
    return load_schema_set(old, name=new.name), load_schema_set(new)
