"""One side of a comparison: schema documents read from disk, keyed by file name, and ``$ref``
resolution in them. A directory's set is every ``.json`` file whose top level is an object with
``$schema`` (an OpenAPI document or examples beside them are left out); a file's is that file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from .._errors import MalformedJsonError, ToolResponseError
from ..validation import parse_ijson
from ..validation._engine import json_pointer
from ..validation._open import NO_WRITER_OF_FILE, open_local


class SchemaDiffError(ToolResponseError, ValueError):
    """Two schema sets that cannot be compared (a file unreadable or no schema, a ``$ref`` naming
    nothing); ``location`` is the file, or ``file#/json/pointer``."""

    location: str

    def __init__(self, location: str, reason: str) -> None:
        self.location = location
        super().__init__(f"{location}: {reason}")


def location(file: str, path: list[str | int]) -> str:
    """``file#/json/pointer``: where a value sits in a schema set."""
    return f"{file}#{json_pointer(path)}"


@dataclass(frozen=True)
class SchemaSet:
    """The schema documents of one side of a comparison, keyed by file name."""

    source: str
    """The directory or file the set was read from, as named."""
    documents: Mapping[str, Any]
    file: bool = False
    """Whether ``source`` is one file (its one document keyed by the other side's name)."""

    def _file_for(self, reference: str, base_file: str) -> str | None:
        base = self.documents[base_file]
        target = urljoin(str(base.get("$id", base_file) if isinstance(base, dict) else base_file), reference)
        for name, document in self.documents.items():
            if isinstance(document, dict) and document.get("$id") == target:
                return name
        name = urlsplit(target).path.rsplit("/", 1)[-1]
        return name if name in self.documents else None

    def resolve(self, reference: str, base_file: str) -> tuple[str, list[str | int], Any]:
        """The file, path and schema that ``reference`` (a ``$ref`` in ``base_file``) names."""
        uri, _, fragment = reference.partition("#")
        file = base_file if uri == "" else self._file_for(uri, base_file)
        where = self.source if self.file else f"{self.source}/{base_file}"
        if file is None:
            raise SchemaDiffError(where, f"$ref {reference!r} names no document")
        if fragment and not fragment.startswith("/"):
            raise SchemaDiffError(where, f"$ref {reference!r}: only JSON-pointer fragments are supported")
        node: Any = self.documents[file]
        path: list[str | int] = []
        for token in fragment.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
                path.append(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
                path.append(int(token))
            else:
                raise SchemaDiffError(where, f"$ref {reference!r} names nothing")
        return file, path, node


def _read(path: Path) -> Any:
    try:
        with open_local(str(path), no_writer=NO_WRITER_OF_FILE) as stream:  # never waited on
            return parse_ijson(stream.read())
    except OSError as error:
        raise SchemaDiffError(str(path), f"cannot read: {error.strerror}") from None
    except MalformedJsonError as error:
        raise SchemaDiffError(str(path), error.reason) from None


def load_schema_set(path: str | Path, *, name: str | None = None) -> SchemaSet:
    """The schema set at ``path``: a directory's JSON Schema documents, or one file (keyed by
    ``name`` when given, so that two files of different names are compared as one document)."""
    path = Path(path)
    if path.is_dir():
        read = {file.name: _read(file) for file in sorted(path.glob("*.json"))}
        documents = {key: doc for key, doc in read.items() if isinstance(doc, dict) and "$schema" in doc}
        if not documents:
            raise SchemaDiffError(str(path), "no JSON Schema documents (.json files with $schema) here")
        return SchemaSet(str(path), documents)
    document = _read(path)
    if not isinstance(document, dict | bool):
        raise SchemaDiffError(str(path), "not a JSON Schema (an object or a boolean)")
    return SchemaSet(str(path), {name or path.name: document}, file=True)


def load_schema_sets(old: str | Path, new: str | Path) -> tuple[SchemaSet, SchemaSet]:
    """Both sides of a comparison: two directories, or two files (compared as one document)."""
    old, new = Path(old), Path(new)
    for side in (old, new):
        if not os.path.lexists(side):
            raise SchemaDiffError(str(side), "no such file or directory")
    if old.is_dir() != new.is_dir():
        raise SchemaDiffError(f"{old}, {new}", "compare two directories or two files, not one of each")
    if old.is_dir():
        return load_schema_set(old), load_schema_set(new)
    return load_schema_set(old, name=new.name), load_schema_set(new)
