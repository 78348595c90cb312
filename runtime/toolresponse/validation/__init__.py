"""Deciding whether a value is a ToolResponse v1, and explaining why not.

- ``validate(obj)`` / ``validate_json(text)`` / ``iter_errors(obj)``: one response's violations
  (``SchemaViolation``: pointer, keyword, schema path, a message naming the nearest valid value),
  the 100 most relevant first; ``parse_ijson(text)``: strict I-JSON with exact positions;
  ``to_json_data(value)``: Python values made JSON with documented conversions.
- The bulk API: ``expand(paths)`` lists the inputs, ``check(sources, options)`` gives each batch's
  ``Record``\\ s in input order, ``check_lines`` checks one partition of JSON lines, and
  ``report(...)`` writes the report and returns the exit status; ``Options.judge`` says what
  records must be (a ToolResponse unless a ``Judge`` of another dialect says otherwise).
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
