"""Deciding whether a value is a ToolResponse v1, and explaining why not.

- ``validate(obj)`` / ``validate_json(text)`` / ``iter_errors(obj)``: one
  response, its violations as ``SchemaViolation`` values (JSON pointer, keyword,
  schema path, a message naming the nearest valid value), the 100 most relevant
  first (``ValidationResult.more`` counts the others).
- ``parse_ijson(text)``: strict I-JSON (RFC 7493) parsing with exact positions.
- ``to_json_data(value)``: Python values made JSON with documented conversions.
- The bulk API, for files, streams, directories and other engines' partitions:
  ``expand(paths)`` lists the inputs, ``check(sources, options)`` gives each
  batch's ``Record``\\ s in input order, ``check_lines(name, lines, first_line,
  options)`` checks one partition of JSON lines, and ``report(...)`` writes the
  text, JSON or JSON-lines report and returns the exit status. What records
  must be is ``Options.judge``: a ToolResponse unless a ``Judge`` of another
  dialect says otherwise.
Two engines give the same verdicts: jsonschema-rs (``fast``, the default) and
jsonschema (``reference``). Nothing here knows about tools, agents or servers;
the byte ranges and units of work that ``--jobs`` and Dask hand out are private
to the bulk API (``_bulk``).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
