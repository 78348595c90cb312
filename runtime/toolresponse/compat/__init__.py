"""Schema evolution: what changed between two versions of a schema, and whom it breaks.

- ``diff_schemas(old, new)``: compare two schema sets (directories of JSON Schema
  documents, or two files) and get a ``SchemaDiff``, every ``Change`` with its
  ``file#/json/pointer``, the ``rule`` that classified it and its
  ``ChangeClass``: breaking for producers (the accepted set shrinks), breaking
  for consumers (it grows: a new error code or status), a behaviour change (an
  error code's category, default retryability or HTTP status; a default) or
  compatible (descriptions, titles, examples, new annotations).
- ``toolresponse schema diff OLD NEW`` prints the report (text or JSON) and fails
  on the classes it is told to; ``--json-schema-diff`` asks Atlassian's npm
  ``json-schema-diff`` for a second opinion on the set comparison.

The classifier is pure Python and needs nothing beyond the base install.
Errors: ``SchemaDiffError`` (a ``ToolResponseError``) names the file or
``$ref`` that could not be read.
"""

from ._classify import Change, SchemaDiff, diff_schemas
from ._documents import SchemaDiffError
from ._rules import ChangeClass

__all__ = ["Change", "ChangeClass", "SchemaDiff", "SchemaDiffError", "diff_schemas"]
